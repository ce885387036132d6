// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole symbolic links.
 *
 * A fast symlink keeps its target, NUL-terminated, in i_data (iget points
 * i_link there); a slow one keeps it in its first data block, read through
 * the page cache with ext2hole_aops.
 */
#include "ext2hole.h"

/*
 * ext2hole_get_link - the target of a slow symlink
 *
 * The size comes from disk: a target that cannot fit in the one block a
 * symlink has is corruption, not something to hand to page_get_link().
 */
static const char *ext2hole_get_link(struct dentry *dentry,
				     struct inode *inode,
				     struct delayed_call *done)
{
	if (unlikely(inode->i_size <= 0 ||
		     inode->i_size >= inode->i_sb->s_blocksize)) {
		ext2hole_error(inode->i_sb, "symlink #%lu: bad size %lld",
			       inode->i_ino, inode->i_size);
		return ERR_PTR(-EFSCORRUPTED);
	}
	return page_get_link(dentry, inode, done);
}

const struct inode_operations ext2hole_symlink_inode_operations = {
	.get_link	= ext2hole_get_link,
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
	.listxattr	= ext2hole_listxattr,
};

const struct inode_operations ext2hole_fast_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
	.listxattr	= ext2hole_listxattr,
};
