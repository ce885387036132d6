// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: /sys/fs/ext2hole/<dev>/, one read-only file per hole-API
 * and directory-lookup counter of the mounted filesystem plus its mkwrite
 * policy.
 *
 * The per-superblock kobject is embedded in ext2hole_sb_info; its release
 * completes s_kobj_unregister, and unregistering waits for it, so sb_info
 * is not freed while a sysfs reader still holds the kobject.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/completion.h>
#include "ext2hole.h"

static struct kset *ext2hole_kset;

struct ext2hole_attr {
	struct attribute attr;
	size_t offset;		/* of the atomic64_t in ext2hole_sb_info */
};

static struct ext2hole_sb_info *ext2hole_kobj_sbi(struct kobject *kobj)
{
	return container_of(kobj, struct ext2hole_sb_info, s_kobj);
}

#define EXT2HOLE_STAT_ATTR(_name)					\
static struct ext2hole_attr ext2hole_attr_##_name = {			\
	.attr = { .name = __stringify(_name), .mode = 0444 },		\
	.offset = offsetof(struct ext2hole_sb_info, s_hole_stats._name),	\
}

#define EXT2HOLE_SB_STAT_ATTR(_name)					\
static struct ext2hole_attr ext2hole_attr_##_name = {			\
	.attr = { .name = __stringify(_name), .mode = 0444 },		\
	.offset = offsetof(struct ext2hole_sb_info, s_##_name),		\
}

#define EXT2HOLE_DIR_STAT_ATTR(_name)					\
static struct ext2hole_attr ext2hole_attr_##_name = {			\
	.attr = { .name = __stringify(_name), .mode = 0444 },		\
	.offset = offsetof(struct ext2hole_sb_info, s_dir_stats._name),	\
}

EXT2HOLE_STAT_ATTR(holes_prepared);
EXT2HOLE_STAT_ATTR(pages_wrprotected);
EXT2HOLE_STAT_ATTR(mkwrite_alloc);
EXT2HOLE_STAT_ATTR(mkwrite_noalloc);
EXT2HOLE_STAT_ATTR(mkwrite_run_blocks);
EXT2HOLE_STAT_ATTR(mkwrite_enospc);
EXT2HOLE_STAT_ATTR(mkwrite_edquot);
EXT2HOLE_STAT_ATTR(mkwrite_eio);
EXT2HOLE_STAT_ATTR(mkwrite_other);
EXT2HOLE_STAT_ATTR(pages_written);
EXT2HOLE_STAT_ATTR(delayed_mapped);
EXT2HOLE_STAT_ATTR(writeback_errors);
EXT2HOLE_STAT_ATTR(bios_submitted);
EXT2HOLE_STAT_ATTR(pages_bio);
EXT2HOLE_SB_STAT_ATTR(dio_pending);
EXT2HOLE_SB_STAT_ATTR(read_split);
EXT2HOLE_SB_STAT_ATTR(read_buffers);
EXT2HOLE_SB_STAT_ATTR(large_folios);
EXT2HOLE_DIR_STAT_ATTR(dx_lookups);
EXT2HOLE_DIR_STAT_ATTR(dx_blocks);
EXT2HOLE_DIR_STAT_ATTR(linear_lookups);
EXT2HOLE_DIR_STAT_ATTR(linear_blocks);
EXT2HOLE_DIR_STAT_ATTR(dx_errors);
EXT2HOLE_DIR_STAT_ATTR(dx_inserts);
EXT2HOLE_DIR_STAT_ATTR(dx_splits);
EXT2HOLE_DIR_STAT_ATTR(dx_dropped);
EXT2HOLE_DIR_STAT_ATTR(dx_levels);
EXT2HOLE_DIR_STAT_ATTR(dx_node_splits);
EXT2HOLE_DIR_STAT_ATTR(dx_indexed);

/* Not a counter: offset is unused, the show method tells them apart. */
static struct ext2hole_attr ext2hole_attr_mkwrite_policy = {
	.attr = { .name = "mkwrite_policy", .mode = 0444 },
};

static struct attribute *ext2hole_sb_attrs[] = {
	&ext2hole_attr_holes_prepared.attr,
	&ext2hole_attr_pages_wrprotected.attr,
	&ext2hole_attr_mkwrite_alloc.attr,
	&ext2hole_attr_mkwrite_noalloc.attr,
	&ext2hole_attr_mkwrite_run_blocks.attr,
	&ext2hole_attr_mkwrite_enospc.attr,
	&ext2hole_attr_mkwrite_edquot.attr,
	&ext2hole_attr_mkwrite_eio.attr,
	&ext2hole_attr_mkwrite_other.attr,
	&ext2hole_attr_pages_written.attr,
	&ext2hole_attr_delayed_mapped.attr,
	&ext2hole_attr_writeback_errors.attr,
	&ext2hole_attr_bios_submitted.attr,
	&ext2hole_attr_pages_bio.attr,
	&ext2hole_attr_dio_pending.attr,
	&ext2hole_attr_read_split.attr,
	&ext2hole_attr_read_buffers.attr,
	&ext2hole_attr_large_folios.attr,
	&ext2hole_attr_dx_lookups.attr,
	&ext2hole_attr_dx_blocks.attr,
	&ext2hole_attr_linear_lookups.attr,
	&ext2hole_attr_linear_blocks.attr,
	&ext2hole_attr_dx_errors.attr,
	&ext2hole_attr_dx_inserts.attr,
	&ext2hole_attr_dx_splits.attr,
	&ext2hole_attr_dx_dropped.attr,
	&ext2hole_attr_dx_levels.attr,
	&ext2hole_attr_dx_node_splits.attr,
	&ext2hole_attr_dx_indexed.attr,
	&ext2hole_attr_mkwrite_policy.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ext2hole_sb);

static ssize_t ext2hole_attr_show(struct kobject *kobj, struct attribute *attr,
				  char *buf)
{
	struct ext2hole_sb_info *sbi = ext2hole_kobj_sbi(kobj);
	struct ext2hole_attr *a = container_of(attr, struct ext2hole_attr, attr);
	atomic64_t *counter;

	if (a == &ext2hole_attr_mkwrite_policy)
		return sysfs_emit(buf, "%s\n",
				  READ_ONCE(sbi->s_mkwrite) ==
				  EXT2HOLE_MKWRITE_NOALLOC ? "noalloc" : "alloc");

	counter = (atomic64_t *)((char *)sbi + a->offset);
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(counter));
}

static const struct sysfs_ops ext2hole_sysfs_ops = {
	.show = ext2hole_attr_show,
};

static void ext2hole_sb_release(struct kobject *kobj)
{
	complete(&ext2hole_kobj_sbi(kobj)->s_kobj_unregister);
}

static const struct kobj_type ext2hole_sb_ktype = {
	.default_groups = ext2hole_sb_groups,
	.sysfs_ops = &ext2hole_sysfs_ops,
	.release = ext2hole_sb_release,
};

/**
 * ext2hole_sysfs_register - create /sys/fs/ext2hole/<sb->s_id>/
 * @sb: the superblock being mounted; its sb_info must be set up
 *
 * Return: 0 or a negative errno; on error nothing is left to unregister.
 */
int ext2hole_sysfs_register(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	int err;

	init_completion(&sbi->s_kobj_unregister);
	sbi->s_kobj.kset = ext2hole_kset;
	err = kobject_init_and_add(&sbi->s_kobj, &ext2hole_sb_ktype, NULL,
				   "%s", sb->s_id);
	if (err) {
		kobject_put(&sbi->s_kobj);
		wait_for_completion(&sbi->s_kobj_unregister);
	}
	return err;
}

/**
 * ext2hole_sysfs_unregister - remove /sys/fs/ext2hole/<sb->s_id>/
 * @sb: the superblock being unmounted
 *
 * Waits until the last reference to the kobject is gone, so the caller
 * may free sb_info afterwards.
 */
void ext2hole_sysfs_unregister(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	kobject_del(&sbi->s_kobj);
	kobject_put(&sbi->s_kobj);
	wait_for_completion(&sbi->s_kobj_unregister);
}

/**
 * ext2hole_sysfs_init - create /sys/fs/ext2hole at module load
 *
 * Return: 0 or -ENOMEM.
 */
int ext2hole_sysfs_init(void)
{
	ext2hole_kset = kset_create_and_add("ext2hole", NULL, fs_kobj);
	return ext2hole_kset ? 0 : -ENOMEM;
}

/**
 * ext2hole_sysfs_exit - remove /sys/fs/ext2hole at module unload
 */
void ext2hole_sysfs_exit(void)
{
	kset_unregister(ext2hole_kset);
	ext2hole_kset = NULL;
}
