/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole extended attributes and POSIX ACLs: what src/xattr.c,
 * src/xattr_handlers.c and src/acl.c offer the rest of the module.
 *
 * Attributes are read from the inode body (256-byte and larger inodes,
 * ext4's layout) and from the xattr block (i_file_acl), in that order, as
 * the ext4 driver does.  Writing is not implemented yet: setxattr and
 * removexattr fail with EOPNOTSUPP, new inodes under a directory whose
 * default ACL would have to be stored are refused, and chmod of an inode
 * with an access ACL is refused when it would change the ACL (see acl.c).
 *
 * Locking: EXT2HOLE_I(inode)->i_xattr_sem, shared for reading; the inode
 * table buffer and the xattr block are only read under it.
 */
#ifndef _EXT2HOLE_XATTR_H
#define _EXT2HOLE_XATTR_H

#include <linux/fs.h>
#include <linux/xattr.h>
#include <linux/posix_acl.h>

struct inode;
struct dentry;
struct iattr;

/* xattr.c */
int ext2hole_xattr_get(struct inode *inode, int name_index, const char *name,
		       void *buffer, size_t size);
ssize_t ext2hole_listxattr(struct dentry *dentry, char *buffer, size_t size);

/* xattr_handlers.c */
extern const struct xattr_handler *ext2hole_xattr_handlers[];
const struct xattr_handler *ext2hole_xattr_handler(int name_index);

/* acl.c */
struct posix_acl *ext2hole_get_acl(struct inode *inode, int type, bool rcu);
int ext2hole_acl_create_mode(struct inode *dir, umode_t *mode);
int ext2hole_acl_setattr_check(struct inode *inode, const struct iattr *iattr);

#endif /* _EXT2HOLE_XATTR_H */
