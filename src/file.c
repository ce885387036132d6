// SPDX-License-Identifier: GPL-2.0
/* ext2hole: regular file operations (stub, being written) */
#include "ext2hole.h"

const struct file_operations ext2hole_file_operations = {
};

const struct inode_operations ext2hole_file_inode_operations = {
};
