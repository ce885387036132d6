// SPDX-License-Identifier: GPL-2.0
/* ext2hole: sysfs (stub, being written) */
#include "ext2hole.h"

int ext2hole_sysfs_init(void)
{
	return 0;
}

void ext2hole_sysfs_exit(void)
{
}

int ext2hole_sysfs_register(struct super_block *sb)
{
	return 0;
}

void ext2hole_sysfs_unregister(struct super_block *sb)
{
}
