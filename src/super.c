// SPDX-License-Identifier: GPL-2.0
/* ext2hole: superblock, mount, module init (stub, being written) */
#include <linux/module.h>
#include "ext2hole.h"

void __ext2hole_error(struct super_block *sb, const char *func,
		      const char *fmt, ...)
{
}

void ext2hole_msg(struct super_block *sb, const char *level,
		  const char *fmt, ...)
{
}

struct ext2hole_group_desc *ext2hole_get_group_desc(struct super_block *sb,
						    unsigned long group,
						    struct buffer_head **bh)
{
	return NULL;
}

void ext2hole_sync_super(struct super_block *sb, int wait)
{
}

void ext2hole_update_dynamic_rev(struct super_block *sb)
{
}

struct ext2hole_hole_stats *ext2hole_hole_stats(struct super_block *sb)
{
	return &EXT2HOLE_SB(sb)->s_hole_stats;
}

static int __init ext2hole_init(void)
{
	return 0;
}

static void __exit ext2hole_exit(void)
{
}

module_init(ext2hole_init);
module_exit(ext2hole_exit);
MODULE_LICENSE("GPL");
MODULE_ALIAS_FS("ext2hole");
MODULE_VERSION(EXT2HOLE_VERSION);
MODULE_DESCRIPTION("ext2 with better mmap hole semantics");
