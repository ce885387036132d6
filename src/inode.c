// SPDX-License-Identifier: GPL-2.0
/* ext2hole: inodes and the block map (stub, being written) */
#include "ext2hole.h"

struct inode *ext2hole_iget(struct super_block *sb, unsigned long ino)
{
	return ERR_PTR(-EIO);
}

int ext2hole_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	return 0;
}

void ext2hole_evict_inode(struct inode *inode)
{
}

int ext2hole_get_block(struct inode *inode, sector_t iblock,
		       struct buffer_head *bh_result, int create)
{
	return -EIO;
}

int ext2hole_setsize(struct inode *inode, loff_t newsize)
{
	return -EINVAL;
}

int ext2hole_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		     struct iattr *iattr)
{
	return -EINVAL;
}

int ext2hole_getattr(struct user_namespace *mnt_userns, const struct path *path,
		     struct kstat *stat, u32 request_mask,
		     unsigned int query_flags)
{
	return -EINVAL;
}

void ext2hole_set_inode_flags(struct inode *inode)
{
}

int ext2hole_sync_inode(struct inode *inode)
{
	return 0;
}
