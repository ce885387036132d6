// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole directory inode operations (stub; filled in soon).
 */
#include "ext2hole.h"

const struct inode_operations ext2hole_dir_inode_operations = {
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
};

const struct inode_operations ext2hole_special_inode_operations = {
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
};
