// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole xattr handlers: the user., trusted. and security. namespaces,
 * and the kernel's own handlers for system.posix_acl_access and
 * system.posix_acl_default (which go through ext2hole_get_acl).
 *
 * The VFS checks permissions (xattr_permission) and sizes (XATTR_SIZE_MAX)
 * before a handler runs.
 */
#include <linux/fs.h>
#include <linux/capability.h>
#include <linux/posix_acl_xattr.h>
#include "ext2hole.h"
#include "xattr.h"

/* May @inode's attributes of @handler's namespace be used at all? */
static bool ext2hole_xattr_handler_on(const struct xattr_handler *handler,
				      struct inode *inode)
{
	/* user.: only with the user_xattr mount option */
	return handler->flags != EXT2HOLE_XATTR_INDEX_USER ||
	       ext2hole_test_opt(inode->i_sb, XATTR_USER);
}

static int ext2hole_xattr_handler_get(const struct xattr_handler *handler,
				      struct dentry *unused,
				      struct inode *inode, const char *name,
				      void *buffer, size_t size)
{
	if (!ext2hole_xattr_handler_on(handler, inode))
		return -EOPNOTSUPP;
	return ext2hole_xattr_get(inode, handler->flags, name, buffer, size);
}

static int ext2hole_xattr_handler_set(const struct xattr_handler *handler,
				      struct ext2hole_idmap *idmap,
				      struct dentry *unused,
				      struct inode *inode, const char *name,
				      const void *value, size_t size, int flags)
{
	if (!ext2hole_xattr_handler_on(handler, inode))
		return -EOPNOTSUPP;
	return ext2hole_xattr_set(inode, handler->flags, name, value, size,
				  flags);
}

/* user.: listed only with the user_xattr mount option. */
static bool ext2hole_xattr_user_list(struct dentry *dentry)
{
	return ext2hole_test_opt(dentry->d_sb, XATTR_USER);
}

/* trusted.: listed to CAP_SYS_ADMIN only (the VFS checks the get). */
static bool ext2hole_xattr_trusted_list(struct dentry *dentry)
{
	return capable(CAP_SYS_ADMIN);
}

static const struct xattr_handler ext2hole_xattr_user_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.flags	= EXT2HOLE_XATTR_INDEX_USER,
	.list	= ext2hole_xattr_user_list,
	.get	= ext2hole_xattr_handler_get,
	.set	= ext2hole_xattr_handler_set,
};

static const struct xattr_handler ext2hole_xattr_trusted_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.flags	= EXT2HOLE_XATTR_INDEX_TRUSTED,
	.list	= ext2hole_xattr_trusted_list,
	.get	= ext2hole_xattr_handler_get,
	.set	= ext2hole_xattr_handler_set,
};

static const struct xattr_handler ext2hole_xattr_security_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.flags	= EXT2HOLE_XATTR_INDEX_SECURITY,
	.get	= ext2hole_xattr_handler_get,
	.set	= ext2hole_xattr_handler_set,
};

#ifdef EXT2HOLE_HAVE_GET_INODE_ACL
/* the VFS handles system.posix_acl_*; these only name them for listxattr */
#define EXT2HOLE_ACL_ACCESS_HANDLER	nop_posix_acl_access
#define EXT2HOLE_ACL_DEFAULT_HANDLER	nop_posix_acl_default
#else
#define EXT2HOLE_ACL_ACCESS_HANDLER	posix_acl_access_xattr_handler
#define EXT2HOLE_ACL_DEFAULT_HANDLER	posix_acl_default_xattr_handler
#endif

static const struct xattr_handler *ext2hole_xattr_handler_map[] = {
	[EXT2HOLE_XATTR_INDEX_USER]		 = &ext2hole_xattr_user_handler,
	[EXT2HOLE_XATTR_INDEX_POSIX_ACL_ACCESS]	 = &EXT2HOLE_ACL_ACCESS_HANDLER,
	[EXT2HOLE_XATTR_INDEX_POSIX_ACL_DEFAULT] = &EXT2HOLE_ACL_DEFAULT_HANDLER,
	[EXT2HOLE_XATTR_INDEX_TRUSTED]		 = &ext2hole_xattr_trusted_handler,
	[EXT2HOLE_XATTR_INDEX_SECURITY]		 = &ext2hole_xattr_security_handler,
};

/* sb->s_xattr */
const struct xattr_handler *ext2hole_xattr_handlers[] = {
	&ext2hole_xattr_user_handler,
	&ext2hole_xattr_trusted_handler,
#ifndef EXT2HOLE_HAVE_GET_INODE_ACL
	&posix_acl_access_xattr_handler,
	&posix_acl_default_xattr_handler,
#endif
	&ext2hole_xattr_security_handler,
	NULL
};

/**
 * ext2hole_xattr_handler - the handler of an on-disk name index
 * @name_index: e_name_index of an entry
 *
 * Return: the handler, or NULL for an index ext2hole does not know.
 */
const struct xattr_handler *ext2hole_xattr_handler(int name_index)
{
	if (name_index > 0 && name_index < ARRAY_SIZE(ext2hole_xattr_handler_map))
		return ext2hole_xattr_handler_map[name_index];
	return NULL;
}
