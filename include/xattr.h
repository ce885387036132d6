/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole extended attributes and POSIX ACLs: what src/xattr.c,
 * src/xattr_handlers.c and src/acl.c offer the rest of the module.
 *
 * Attributes live in the inode body (256-byte and larger inodes, ext4's
 * layout) and in the xattr block (i_file_acl); they are looked up in that
 * order, as the ext4 driver does, and a new one goes to the inode body
 * when it fits there.
 *
 * Locking: EXT2HOLE_I(inode)->i_xattr_sem, shared for reading, exclusive
 * for a change; then i_map_mutex (i_blocks, allocation) and the buffer
 * locks.  A shared block's h_refcount changes under its buffer lock.
 */
#ifndef _EXT2HOLE_XATTR_H
#define _EXT2HOLE_XATTR_H

#include <linux/fs.h>
#include <linux/xattr.h>
#include <linux/posix_acl.h>
#include "compat.h"

/* mbcache buckets (1 << bits) for sharing xattr blocks, as ext2 */
#define EXT2HOLE_XATTR_CACHE_BITS	10

struct inode;
struct dentry;
struct iattr;

/* xattr.c */
int ext2hole_xattr_get(struct inode *inode, int name_index, const char *name,
		       void *buffer, size_t size);
int ext2hole_xattr_set(struct inode *inode, int name_index, const char *name,
		       const void *value, size_t size, int flags);
ssize_t ext2hole_listxattr(struct dentry *dentry, char *buffer, size_t size);
void ext2hole_xattr_delete_inode(struct inode *inode);

/* xattr_handlers.c */
extern const struct xattr_handler *ext2hole_xattr_handlers[];
const struct xattr_handler *ext2hole_xattr_handler(int name_index);

/* acl.c */
struct posix_acl *ext2hole_get_acl(struct inode *inode, int type, bool rcu);
#ifdef EXT2HOLE_HAVE_GET_INODE_ACL
int ext2hole_set_acl(struct ext2hole_idmap *idmap, struct dentry *dentry,
		     struct posix_acl *acl, int type);
#else
int ext2hole_set_acl(struct ext2hole_idmap *idmap, struct inode *inode,
		     struct posix_acl *acl, int type);
#endif
int ext2hole_acl_chmod(struct ext2hole_idmap *idmap, struct dentry *dentry);
int ext2hole_init_acl(struct inode *inode, struct inode *dir);
int ext2hole_init_security(struct inode *inode, struct inode *dir,
			   const struct qstr *qstr);

#endif /* _EXT2HOLE_XATTR_H */
