// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole directories (stub; filled in soon).
 */
#include "ext2hole.h"

const struct file_operations ext2hole_dir_operations = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.fsync		= generic_file_fsync,
};

struct ext2hole_dir_entry *ext2hole_find_entry(struct inode *dir,
					       const struct qstr *child,
					       struct page **res_page)
{
	*res_page = NULL;
	return ERR_PTR(-ENOENT);
}

int ext2hole_inode_by_name(struct inode *dir, const struct qstr *child,
			   ino_t *ino)
{
	return -ENOENT;
}

int ext2hole_add_link(struct dentry *dentry, struct inode *inode)
{
	return -EROFS;
}

int ext2hole_delete_entry(struct ext2hole_dir_entry *de, struct page *page)
{
	return -EROFS;
}

int ext2hole_make_empty(struct inode *inode, struct inode *parent)
{
	return -EROFS;
}

int ext2hole_empty_dir(struct inode *inode)
{
	return 0;
}

struct ext2hole_dir_entry *ext2hole_dotdot(struct inode *dir, struct page **p)
{
	*p = NULL;
	return ERR_PTR(-ENOENT);
}

int ext2hole_set_link(struct inode *dir, struct ext2hole_dir_entry *de,
		      struct page *page, struct inode *inode,
		      bool update_times)
{
	return -EROFS;
}
