// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole symbolic links: fast ones live in i_data, slow ones in a block.
 */
#include "ext2hole.h"

const struct inode_operations ext2hole_symlink_inode_operations = {
	.get_link	= page_get_link,
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
};

const struct inode_operations ext2hole_fast_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
};
