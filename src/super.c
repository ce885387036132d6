// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: module init and the hole layer's callbacks, mount
 * (fs_context), superblock validation, statfs, error handling.
 *
 * Every value read from the on-disk superblock and the group descriptors
 * is validated here, once, before anything else uses it: the rest of the
 * module trusts the geometry in struct ext2hole_sb_info.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/seq_file.h>
#include <linux/statfs.h>
#include <linux/random.h>
#include <linux/log2.h>
#include <linux/writeback.h>
#include <linux/pagevec.h>
#include <linux/mbcache.h>
#include <linux/quotaops.h>
#include "ext2hole.h"

static struct kmem_cache *ext2hole_inode_cachep;

/**
 * ext2hole_msg - print a message about a filesystem
 * @sb: the filesystem (may be NULL)
 * @level: KERN_* prefix
 * @fmt: printf format
 *
 * Prints `ext2hole (<dev>): <message>`.
 */
void ext2hole_msg(struct super_block *sb, const char *level,
		  const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	/* @level is a KERN_* prefix chosen by the caller, as in ext2_msg(). */
	printk("%sext2hole (%s): %pV\n", level, sb ? sb->s_id : "?", &vaf);
	va_end(args);
}

/**
 * __ext2hole_error - report corruption found on the filesystem
 * @sb: the filesystem
 * @func: the function that found it
 * @fmt: printf format
 *
 * Marks the on-disk state ERROR_FS (so that e2fsck checks the filesystem)
 * and then acts on the errors= mount option.  Must not be called with
 * s_lock held; may sleep.
 */
void __ext2hole_error(struct super_block *sb, const char *func,
		      const char *fmt, ...)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_crit("ext2hole (%s): error: %s: %pV\n", sb->s_id, func, &vaf);
	va_end(args);

	if (!sbi || !sbi->s_es)
		return;

	if (!sb_rdonly(sb)) {
		spin_lock(&sbi->s_lock);
		sbi->s_mount_state |= EXT2HOLE_ERROR_FS;
		sbi->s_es->s_state |= cpu_to_le16(EXT2HOLE_ERROR_FS);
		spin_unlock(&sbi->s_lock);
		ext2hole_sync_super(sb, 1);
	}

	if (ext2hole_test_opt(sb, ERRORS_PANIC))
		panic("ext2hole (%s): panic forced after error\n", sb->s_id);
	if (ext2hole_test_opt(sb, ERRORS_RO) && !sb_rdonly(sb)) {
		ext2hole_msg(sb, KERN_CRIT, "error: remounting filesystem read-only");
		/* Like stock ext2: later writers see SB_RDONLY and fail. */
		sb->s_flags |= SB_RDONLY;
	}
}

/**
 * ext2hole_update_dynamic_rev - turn a revision 0 superblock into revision 1
 * @sb: the filesystem
 *
 * Needed before a feature flag is set.  Called with s_lock held.
 */
void ext2hole_update_dynamic_rev(struct super_block *sb)
{
	struct ext2hole_super_block *es = EXT2HOLE_SB(sb)->s_es;

	if (le32_to_cpu(es->s_rev_level) > EXT2HOLE_GOOD_OLD_REV)
		return;
	ext2hole_msg(sb, KERN_WARNING,
		     "warning: updating to rev %d because of new feature flag",
		     EXT2HOLE_DYNAMIC_REV);
	es->s_first_ino = cpu_to_le32(EXT2HOLE_GOOD_OLD_FIRST_INO);
	es->s_inode_size = cpu_to_le16(EXT2HOLE_GOOD_OLD_INODE_SIZE);
	es->s_rev_level = cpu_to_le32(EXT2HOLE_DYNAMIC_REV);
	/* s_uuid, s_volume_name, features: already zero in a rev 0 block */
}

/**
 * ext2hole_sync_super - write the in-memory counts to the superblock
 * @sb: the filesystem
 * @wait: write the buffer synchronously
 */
void ext2hole_sync_super(struct super_block *sb, int wait)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;
	struct buffer_head *sbh = sbi->s_sbh;

	/*
	 * Under the buffer lock, which a write in flight holds until its
	 * completion: a previous failed write (which left the buffer
	 * !uptodate, memory holding the newest copy) must not block this one
	 * forever, nor make mark_buffer_dirty() WARN.
	 */
	lock_buffer(sbh);
	if (buffer_write_io_error(sbh)) {
		ext2hole_msg(sb, KERN_ERR,
			     "previous I/O error to superblock detected");
		clear_buffer_write_io_error(sbh);
		set_buffer_uptodate(sbh);
	}
	spin_lock(&sbi->s_lock);
	es->s_free_blocks_count = cpu_to_le32(sbi->s_free_blocks);
	es->s_free_inodes_count = cpu_to_le32(sbi->s_free_inodes);
	es->s_wtime = cpu_to_le32(ktime_get_real_seconds());
	spin_unlock(&sbi->s_lock);
	mark_buffer_dirty(sbh);
	unlock_buffer(sbh);
	if (wait)
		sync_dirty_buffer(sbh);
}

/* ---------------------------------------------------------------------- */
/* the hole layer's callbacks (include/hole.h) */

static struct hole_stats *ext2hole_sb_hole_stats(struct super_block *sb)
{
	return &EXT2HOLE_SB(sb)->s_hole_stats;
}

static const struct hole_operations ext2hole_hole_ops = {
	.stats		= ext2hole_sb_hole_stats,
	.written	= ext2hole_hole_written,
	.write_failed	= ext2hole_hole_write_failed,
	.delay_cancel	= ext2hole_delay_cancel,
};

/* ---------------------------------------------------------------------- */
/* inode cache */

static struct inode *ext2hole_alloc_inode(struct super_block *sb)
{
	struct ext2hole_inode_info *ei;

	ei = alloc_inode_sb(sb, ext2hole_inode_cachep, GFP_KERNEL);
	if (!ei)
		return NULL;
	ei->i_dir_start_lookup = 0;
	ei->i_dir_state = 0;
	ei->i_last_alloc = 0;
	ei->i_last_logical = 0;
	ei->i_reserved_meta = 0;
#ifdef CONFIG_QUOTA
	memset(&ei->i_dquot, 0, sizeof(ei->i_dquot));
	ei->i_reserved_quota = 0;
#endif
	return &ei->vfs_inode;
}

static void ext2hole_free_in_core_inode(struct inode *inode)
{
	kmem_cache_free(ext2hole_inode_cachep, EXT2HOLE_I(inode));
}

/*
 * xa_init() gives every xarray initialised in one file the same lockdep
 * class; these two are taken in different contexts (i_pending from bio
 * completion, with interrupts off; i_delayed in process context only),
 * so each gets its own class, or lockdep would see one lock taken both
 * with and without interrupts enabled (s_meta_pins has its own too,
 * src/meta.c).
 */
static struct lock_class_key ext2hole_pending_key;
static struct lock_class_key ext2hole_delayed_key;

static void ext2hole_inode_init_once(void *foo)
{
	struct ext2hole_inode_info *ei = foo;

	mutex_init(&ei->i_map_mutex);
	seqcount_mutex_init(&ei->i_map_seq, &ei->i_map_mutex);
	/* emptied by evict (xa_destroy), so it is empty again when reused */
	xa_init_flags(&ei->i_pending, XA_FLAGS_LOCK_IRQ);
	lockdep_set_class(&ei->i_pending.xa_lock, &ext2hole_pending_key);
	/* emptied by evict (ext2hole_delay_evict) */
	xa_init(&ei->i_delayed);
	lockdep_set_class(&ei->i_delayed.xa_lock, &ext2hole_delayed_key);
	init_rwsem(&ei->i_xattr_sem);
	inode_init_once(&ei->vfs_inode);
}

/* ---------------------------------------------------------------------- */
/* mount options */

struct ext2hole_fs_context {
	unsigned long errors;		/* EXT2HOLE_MOUNT_ERRORS_*, 0: unset */
	int mkwrite;			/* -1: unset */
	int acl;			/* acl / noacl, -1: unset */
	int user_xattr;			/* user_xattr / nouser_xattr, -1: unset */
	int grpid;			/* grpid / nogrpid, -1: unset */
	int large_folio;		/* largefolio / nolargefolio, -1: unset */
	bool nouid32;
	unsigned long quota;		/* EXT2HOLE_MOUNT_*QUOTA given */
	unsigned int ignored;		/* 1 << Opt_nobh ... given */
	bool resuid_set;
	bool resgid_set;
	unsigned long sb_block;		/* sb=, in 1 KiB units; 1: the primary */
	kuid_t resuid;
	kgid_t resgid;
};

enum {
	Opt_errors,
	Opt_mkwrite,
	Opt_resuid,
	Opt_resgid,
	Opt_acl,
	Opt_user_xattr,
	Opt_grpid,
	Opt_nogrpid,
	Opt_nouid32,
	Opt_largefolio,
	Opt_nobh,
	Opt_oldalloc,
	Opt_orlov,
	Opt_usrquota,
	Opt_grpquota,
	Opt_noquota,
	Opt_sb,
};

/* Options the ext2 driver accepts and ignores: accepted with a notice. */
static const char * const ext2hole_ignored_opts[] = {
	[Opt_nobh] = "nobh",
	[Opt_oldalloc] = "oldalloc",
	[Opt_orlov] = "orlov",
};

static const struct constant_table ext2hole_param_errors[] = {
	{ "continue",	EXT2HOLE_MOUNT_ERRORS_CONT },
	{ "remount-ro",	EXT2HOLE_MOUNT_ERRORS_RO },
	{ "panic",	EXT2HOLE_MOUNT_ERRORS_PANIC },
	{}
};

static const struct constant_table ext2hole_param_mkwrite[] = {
	{ "alloc",	EXT2HOLE_MKWRITE_ALLOC },
	{ "noalloc",	EXT2HOLE_MKWRITE_NOALLOC },
	{}
};

static const struct fs_parameter_spec ext2hole_param_spec[] = {
	fsparam_enum("errors",	Opt_errors, ext2hole_param_errors),
	fsparam_enum("mkwrite",	Opt_mkwrite, ext2hole_param_mkwrite),
	fsparam_u32("resuid",	Opt_resuid),
	fsparam_u32("resgid",	Opt_resgid),
	fsparam_flag_no("acl",	Opt_acl),
	fsparam_flag_no("user_xattr", Opt_user_xattr),
	fsparam_flag("grpid",	Opt_grpid),
	fsparam_flag("bsdgroups", Opt_grpid),
	fsparam_flag("nogrpid",	Opt_nogrpid),
	fsparam_flag("sysvgroups", Opt_nogrpid),
	fsparam_flag("nouid32",	Opt_nouid32),
	fsparam_flag_no("largefolio", Opt_largefolio),
	fsparam_flag("nobh",	Opt_nobh),
	fsparam_flag("oldalloc", Opt_oldalloc),
	fsparam_flag("orlov",	Opt_orlov),
	/*
	 * As the ext2 driver: quota and usrquota mean user quota, noquota is
	 * accepted and does nothing (it does not turn the others off), and
	 * usrjquota=, grpjquota= and jqfmt= (journaled quota) are unknown.
	 */
	fsparam_flag("quota",	Opt_usrquota),
	fsparam_flag("usrquota", Opt_usrquota),
	fsparam_flag("grpquota", Opt_grpquota),
	fsparam_flag("noquota",	Opt_noquota),
	fsparam_u32("sb",	Opt_sb),
	{}
};

static int ext2hole_parse_param(struct fs_context *fc,
				struct fs_parameter *param)
{
	struct ext2hole_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	kuid_t uid;
	kgid_t gid;
	int opt;

	opt = fs_parse(fc, ext2hole_param_spec, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case Opt_errors:
		ctx->errors = result.uint_32;
		break;
	case Opt_mkwrite:
		ctx->mkwrite = result.uint_32;
		break;
	case Opt_resuid:
		uid = make_kuid(current_user_ns(), result.uint_32);
		if (!uid_valid(uid))
			return invalfc(fc, "Invalid uid value %u", result.uint_32);
		ctx->resuid = uid;
		ctx->resuid_set = true;
		break;
	case Opt_resgid:
		gid = make_kgid(current_user_ns(), result.uint_32);
		if (!gid_valid(gid))
			return invalfc(fc, "Invalid gid value %u", result.uint_32);
		ctx->resgid = gid;
		ctx->resgid_set = true;
		break;
	case Opt_acl:
		ctx->acl = !result.negated;
		break;
	case Opt_user_xattr:
		ctx->user_xattr = !result.negated;
		break;
	case Opt_grpid:
		ctx->grpid = 1;
		break;
	case Opt_nogrpid:
		ctx->grpid = 0;
		break;
	case Opt_nouid32:
		ctx->nouid32 = true;
		break;
	case Opt_largefolio:
#ifndef EXT2HOLE_HAVE_LARGE_FOLIOS
		if (!result.negated)
			return invalfc(fc, "largefolio needs the 6.12 series");
#endif
		ctx->large_folio = !result.negated;
		break;
	case Opt_nobh:
	case Opt_oldalloc:
	case Opt_orlov:
		ctx->ignored |= 1U << opt;
		break;
	case Opt_usrquota:
	case Opt_grpquota:
		if (!IS_ENABLED(CONFIG_QUOTA)) {
			/* ext2 without CONFIG_QUOTA: accepted with a notice */
			warnf(fc, "ext2hole: quota operations not supported");
			break;
		}
		ctx->quota |= opt == Opt_usrquota ? EXT2HOLE_MOUNT_USRQUOTA :
						    EXT2HOLE_MOUNT_GRPQUOTA;
		break;
	case Opt_noquota:
		break;
	case Opt_sb:
		/* as in ext2: read at mount, accepted and ignored on remount */
		if (!result.uint_32)
			return invalfc(fc, "sb=0 is the boot block, not a superblock");
		ctx->sb_block = result.uint_32;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* Apply the options given in @ctx; the others keep their values. */
static void ext2hole_apply_options(struct super_block *sb,
				   struct ext2hole_fs_context *ctx)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned int i;

	spin_lock(&sbi->s_lock);
	if (ctx->errors) {
		sbi->s_mount_opt &= ~EXT2HOLE_MOUNT_ERRORS_MASK;
		sbi->s_mount_opt |= ctx->errors;
	}
	if (ctx->mkwrite >= 0)
		sbi->s_mkwrite = ctx->mkwrite;
	if (ctx->resuid_set)
		sbi->s_resuid = ctx->resuid;
	if (ctx->resgid_set)
		sbi->s_resgid = ctx->resgid;
	if (ctx->acl >= 0) {
		sbi->s_mount_opt &= ~EXT2HOLE_MOUNT_POSIX_ACL;
		if (ctx->acl)
			sbi->s_mount_opt |= EXT2HOLE_MOUNT_POSIX_ACL;
	}
	if (ctx->user_xattr >= 0) {
		sbi->s_mount_opt &= ~EXT2HOLE_MOUNT_XATTR_USER;
		if (ctx->user_xattr)
			sbi->s_mount_opt |= EXT2HOLE_MOUNT_XATTR_USER;
	}
	if (ctx->grpid >= 0) {
		sbi->s_mount_opt &= ~EXT2HOLE_MOUNT_GRPID;
		if (ctx->grpid)
			sbi->s_mount_opt |= EXT2HOLE_MOUNT_GRPID;
	}
	if (ctx->nouid32)
		sbi->s_mount_opt |= EXT2HOLE_MOUNT_NO_UID32;
	if (ctx->large_folio >= 0) {
		sbi->s_mount_opt &= ~EXT2HOLE_MOUNT_NO_LARGE_FOLIO;
		if (!ctx->large_folio)
			sbi->s_mount_opt |= EXT2HOLE_MOUNT_NO_LARGE_FOLIO;
	}
	sbi->s_mount_opt |= ctx->quota;
	spin_unlock(&sbi->s_lock);
	for (i = 0; i < ARRAY_SIZE(ext2hole_ignored_opts); i++)
		if ((ctx->ignored & (1U << i)) && ext2hole_ignored_opts[i])
			ext2hole_msg(sb, KERN_INFO,
				     "option %s ignored, as by the ext2 driver",
				     ext2hole_ignored_opts[i]);
	/* The VFS leaves SB_POSIXACL to the filesystem, on remount too. */
	if (ext2hole_test_opt(sb, POSIX_ACL))
		sb->s_flags |= SB_POSIXACL;
	else
		sb->s_flags &= ~SB_POSIXACL;
}

static int ext2hole_show_options(struct seq_file *seq, struct dentry *root)
{
	struct super_block *sb = root->d_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;
	u32 def = le32_to_cpu(es->s_default_mount_opts);
	const char *errors;

	if (ext2hole_test_opt(sb, ERRORS_PANIC))
		errors = "panic";
	else if (ext2hole_test_opt(sb, ERRORS_RO))
		errors = "remount-ro";
	else
		errors = "continue";
	seq_printf(seq, ",errors=%s", errors);
	seq_printf(seq, ",mkwrite=%s",
		   sbi->s_mkwrite == EXT2HOLE_MKWRITE_NOALLOC ? "noalloc" : "alloc");
	if (!ext2hole_test_opt(sb, GRPID) != !(def & EXT2HOLE_DEFM_BSDGROUPS))
		seq_puts(seq, ext2hole_test_opt(sb, GRPID) ? ",grpid" : ",nogrpid");
	if (ext2hole_test_opt(sb, NO_UID32) && !(def & EXT2HOLE_DEFM_UID16))
		seq_puts(seq, ",nouid32");
#ifdef EXT2HOLE_HAVE_LARGE_FOLIOS
	seq_puts(seq, ext2hole_test_opt(sb, NO_LARGE_FOLIO) ? ",nolargefolio" :
		 ",largefolio");
#endif
	seq_puts(seq, ext2hole_test_opt(sb, POSIX_ACL) ? ",acl" : ",noacl");
	seq_puts(seq, ext2hole_test_opt(sb, XATTR_USER) ? ",user_xattr" :
		 ",nouser_xattr");
	if (!uid_eq(sbi->s_resuid,
		    make_kuid(&init_user_ns, le16_to_cpu(es->s_def_resuid))))
		seq_printf(seq, ",resuid=%u",
			   from_kuid_munged(&init_user_ns, sbi->s_resuid));
	if (!gid_eq(sbi->s_resgid,
		    make_kgid(&init_user_ns, le16_to_cpu(es->s_def_resgid))))
		seq_printf(seq, ",resgid=%u",
			   from_kgid_munged(&init_user_ns, sbi->s_resgid));
	if (ext2hole_test_opt(sb, USRQUOTA))
		seq_puts(seq, ",usrquota");
	if (ext2hole_test_opt(sb, GRPQUOTA))
		seq_puts(seq, ",grpquota");
	if (sbi->s_sb_opt != 1)
		seq_printf(seq, ",sb=%lu", sbi->s_sb_opt);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* superblock state */

/* The filesystem is being mounted (or remounted) read-write. */
static void ext2hole_setup_super(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;
	u16 state = sbi->s_mount_state;
	s16 max_mnt = le16_to_cpu(es->s_max_mnt_count);
	u32 lastcheck = le32_to_cpu(es->s_lastcheck);
	u32 interval = le32_to_cpu(es->s_checkinterval);

	if (!(state & EXT2HOLE_VALID_FS))
		ext2hole_msg(sb, KERN_WARNING,
			     "warning: mounting unchecked fs, running e2fsck is recommended");
	else if (state & EXT2HOLE_ERROR_FS)
		ext2hole_msg(sb, KERN_WARNING,
			     "warning: mounting fs with errors, running e2fsck is recommended");
	else if (max_mnt > 0 && le16_to_cpu(es->s_mnt_count) >= max_mnt)
		ext2hole_msg(sb, KERN_WARNING,
			     "warning: maximal mount count reached, running e2fsck is recommended");
	else if (interval &&
		 (u64)lastcheck + interval <= (u64)ktime_get_real_seconds())
		ext2hole_msg(sb, KERN_WARNING,
			     "warning: checktime reached, running e2fsck is recommended");

	spin_lock(&sbi->s_lock);
	es->s_state &= cpu_to_le16(~EXT2HOLE_VALID_FS);
	if (!es->s_max_mnt_count)
		es->s_max_mnt_count = cpu_to_le16(-1);
	le16_add_cpu(&es->s_mnt_count, 1);
	es->s_mtime = cpu_to_le32(ktime_get_real_seconds());
	spin_unlock(&sbi->s_lock);
	ext2hole_sync_super(sb, 1);
}

/* Read-write -> read-only, unmount, freeze: restore the mount-time state. */
static void ext2hole_restore_state(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	spin_lock(&sbi->s_lock);
	sbi->s_es->s_state = cpu_to_le16(sbi->s_mount_state);
	spin_unlock(&sbi->s_lock);
	ext2hole_sync_super(sb, 1);
}

static void ext2hole_free_sbi(struct ext2hole_sb_info *sbi)
{
	unsigned long i;

	if (sbi->s_ea_block_cache)
		mb_cache_destroy(sbi->s_ea_block_cache);
	bitmap_free(sbi->s_bb_checked);
	bitmap_free(sbi->s_bb_bad);
	if (sbi->s_group_desc) {
		for (i = 0; i < sbi->s_gdb_count; i++)
			brelse(sbi->s_group_desc[i]);
		kvfree(sbi->s_group_desc);
	}
	brelse(sbi->s_sbh);
	ext2hole_meta_destroy(sbi);
	kfree(sbi);
}

static void ext2hole_put_super(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	ext2hole_quota_off_umount(sb);
	/* A failed registration already dropped the kobject (fill_super). */
	if (sbi->s_kobj.state_in_sysfs)
		ext2hole_sysfs_unregister(sb);
	/* before the state is written: a lost block marks it ERROR_FS */
	ext2hole_dirblk_flush(sb);
	ext2hole_meta_flush(sb);
	if (!sb_rdonly(sb))
		ext2hole_restore_state(sb);
	sb->s_fs_info = NULL;
	ext2hole_free_sbi(sbi);
}

static int ext2hole_sync_fs(struct super_block *sb, int wait)
{
	/* Dirty dquots into the quota files; the block device sync writes them. */
	dquot_writeback_dquots(sb, -1);
	if (wait) {
		ext2hole_dirblk_flush(sb);
		ext2hole_meta_sync(sb);
	}
	ext2hole_sync_super(sb, wait);
	return 0;
}

static int ext2hole_freeze(struct super_block *sb)
{
	/* Unlinked-but-open inodes: the image is not clean, keep the state. */
	if (atomic_long_read(&sb->s_remove_count)) {
		ext2hole_sync_super(sb, 1);
		return 0;
	}
	ext2hole_restore_state(sb);
	return 0;
}

static int ext2hole_unfreeze(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	spin_lock(&sbi->s_lock);
	sbi->s_es->s_state &= cpu_to_le16(~EXT2HOLE_VALID_FS);
	spin_unlock(&sbi->s_lock);
	ext2hole_sync_super(sb, 1);
	return 0;
}

/* Blocks taken by metadata: superblock copies, descriptors, bitmaps, tables. */
static unsigned long ext2hole_overhead(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long overhead = sbi->s_first_data_block;
	unsigned long rsv = 0, g;

	if (sbi->s_es->s_feature_compat &
	    cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_RESIZE_INO))
		rsv = le16_to_cpu(sbi->s_es->s_reserved_gdt_blocks);
	for (g = 0; g < sbi->s_groups_count; g++) {
		if (ext2hole_bg_has_super(sb, g))
			overhead += 1 + ext2hole_bg_num_gdb(sb, g) + rsv;
	}
	overhead += sbi->s_groups_count * (2 + sbi->s_itb_per_group);
	return overhead;
}

static int ext2hole_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;
	unsigned long overhead = ext2hole_overhead(sb);
	u32 rblocks = le32_to_cpu(es->s_r_blocks_count);
	u64 fsid;

	buf->f_type = EXT2HOLE_SUPER_MAGIC;
	buf->f_bsize = sb->s_blocksize;
	buf->f_blocks = sbi->s_blocks_count > overhead ?
			sbi->s_blocks_count - overhead : 0;
	spin_lock(&sbi->s_lock);
	buf->f_bfree = sbi->s_free_blocks;
	buf->f_ffree = sbi->s_free_inodes;
	spin_unlock(&sbi->s_lock);
	buf->f_bavail = buf->f_bfree > rblocks ? buf->f_bfree - rblocks : 0;
	buf->f_files = sbi->s_inodes_count;
	buf->f_namelen = EXT2HOLE_NAME_LEN;
	fsid = le64_to_cpup((void *)es->s_uuid) ^
	       le64_to_cpup((void *)es->s_uuid + sizeof(u64));
	buf->f_fsid = u64_to_fsid(fsid);
	return 0;
}

/* The superblock shrinker: pinned metadata buffers already written. */
static long ext2hole_nr_cached_objects(struct super_block *sb,
				       struct shrink_control *sc)
{
	return ext2hole_meta_count(sb);
}

static long ext2hole_free_cached_objects(struct super_block *sb,
					 struct shrink_control *sc)
{
	return ext2hole_meta_reap(sb, sc->nr_to_scan);
}

static const struct super_operations ext2hole_sops = {
	.alloc_inode	= ext2hole_alloc_inode,
	.free_inode	= ext2hole_free_in_core_inode,
	.write_inode	= ext2hole_write_inode,
	.evict_inode	= ext2hole_evict_inode,
	.put_super	= ext2hole_put_super,
	.sync_fs	= ext2hole_sync_fs,
	.freeze_fs	= ext2hole_freeze,
	.unfreeze_fs	= ext2hole_unfreeze,
	.statfs		= ext2hole_statfs,
	.show_options	= ext2hole_show_options,
	.nr_cached_objects = ext2hole_nr_cached_objects,
	.free_cached_objects = ext2hole_free_cached_objects,
#ifdef CONFIG_QUOTA
	.quota_read	= ext2hole_quota_read,
	.quota_write	= ext2hole_quota_write,
	.get_dquots	= ext2hole_get_dquots,
#endif
};

/* ---------------------------------------------------------------------- */
/* fill_super */

/**
 * ext2hole_max_size - largest file the block tree and i_blocks can hold
 * @bits: log2 of the block size
 *
 * The tree addresses 12 + a + a^2 + a^3 blocks (a = pointers per block);
 * i_blocks counts 512-byte sectors in 32 bits and includes the indirect
 * blocks.  The answer is the largest n data blocks such that n plus the
 * indirect blocks a dense file of n blocks needs fits in i_blocks.
 */
static loff_t ext2hole_max_size(int bits)
{
	u64 a = 1ULL << (bits - 2);
	u64 tree = EXT2HOLE_NDIR_BLOCKS + a + a * a + a * a * a;
	u64 limit = ((1ULL << 32) - 1) >> (bits - 9);
	u64 lo = 0, hi = tree;
	loff_t res;

	while (lo < hi) {
		u64 n = lo + (hi - lo + 1) / 2;
		u64 meta = 0, rest = n;

		if (rest > EXT2HOLE_NDIR_BLOCKS) {
			rest -= EXT2HOLE_NDIR_BLOCKS;
			meta += 1;			/* single indirect */
			if (rest > a) {
				rest -= a;
				meta += 1 + DIV_ROUND_UP(min(rest, a * a), a);
				if (rest > a * a) {
					rest -= a * a;
					meta += 1 + DIV_ROUND_UP(rest, a * a) +
						DIV_ROUND_UP(rest, a);
				}
			}
		}
		if (n + meta <= limit)
			lo = n;
		else
			hi = n - 1;
	}
	res = (loff_t)lo << bits;
	if (res > MAX_LFS_FILESIZE)
		res = MAX_LFS_FILESIZE;
	return res;
}

/*
 * Read the 1024-byte superblock at byte @sb_opt * 1024 (sb=, 1 for the
 * primary at byte 1024) with the current block size; *@sb_block is the
 * block that holds it.
 */
static struct buffer_head *ext2hole_read_sb(struct super_block *sb,
					    unsigned long sb_opt,
					    struct ext2hole_super_block **es,
					    unsigned long *sb_block)
{
	unsigned long bs = sb->s_blocksize;
	u64 off = (u64)sb_opt * EXT2HOLE_SB_OFFSET;
	struct buffer_head *bh;

	*sb_block = div_u64(off, bs);
	bh = sb_bread(sb, *sb_block);
	if (!bh)
		return NULL;
	*es = (struct ext2hole_super_block *)(bh->b_data + off % bs);
	return bh;
}

/* Check one group descriptor; returns 0 or prints why and returns -EINVAL. */
static int ext2hole_check_group(struct super_block *sb, unsigned long g,
				unsigned long rsv_gdt)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_group_desc *gd = ext2hole_get_group_desc(sb, g, NULL);
	u64 first = ext2hole_group_first_block(sb, g);
	u64 last = min_t(u64, first + sbi->s_blocks_per_group,
			 sbi->s_blocks_count) - 1;
	u64 meta_end = first;
	u64 bb, ib, it, it_end;

	if (ext2hole_bg_has_super(sb, g))
		meta_end += 1 + ext2hole_bg_num_gdb(sb, g) + rsv_gdt;

	bb = le32_to_cpu(gd->bg_block_bitmap);
	ib = le32_to_cpu(gd->bg_inode_bitmap);
	it = le32_to_cpu(gd->bg_inode_table);
	it_end = it + sbi->s_itb_per_group - 1;

	if (bb < meta_end || bb > last) {
		ext2hole_msg(sb, KERN_ERR,
			     "group %lu: block bitmap %llu not in group (%llu-%llu)",
			     g, bb, meta_end, last);
		return -EINVAL;
	}
	if (ib < meta_end || ib > last) {
		ext2hole_msg(sb, KERN_ERR,
			     "group %lu: inode bitmap %llu not in group (%llu-%llu)",
			     g, ib, meta_end, last);
		return -EINVAL;
	}
	if (it < meta_end || it_end > last) {
		ext2hole_msg(sb, KERN_ERR,
			     "group %lu: inode table %llu-%llu not in group (%llu-%llu)",
			     g, it, it_end, meta_end, last);
		return -EINVAL;
	}
	if (bb == ib || (bb >= it && bb <= it_end) || (ib >= it && ib <= it_end)) {
		ext2hole_msg(sb, KERN_ERR,
			     "group %lu: bitmaps and inode table overlap", g);
		return -EINVAL;
	}
	if (le16_to_cpu(gd->bg_free_blocks_count) > last - first + 1) {
		ext2hole_msg(sb, KERN_ERR,
			     "group %lu: free blocks count %u too large",
			     g, le16_to_cpu(gd->bg_free_blocks_count));
		return -EINVAL;
	}
	if (le16_to_cpu(gd->bg_free_inodes_count) > sbi->s_inodes_per_group ||
	    le16_to_cpu(gd->bg_used_dirs_count) > sbi->s_inodes_per_group) {
		ext2hole_msg(sb, KERN_ERR,
			     "group %lu: inode counts too large (free %u, dirs %u)",
			     g, le16_to_cpu(gd->bg_free_inodes_count),
			     le16_to_cpu(gd->bg_used_dirs_count));
		return -EINVAL;
	}
	return 0;
}

/**
 * ext2hole_setup_times - time range and new inodes' i_extra_isize
 * @sb: the filesystem, its inode size known
 * @es: its superblock
 *
 * Inodes larger than 128 bytes keep nanoseconds, two more bits of seconds
 * and the birth time in ext4's extra fields (up to 2446, as the ext4
 * driver on the same image); new ones get i_extra_isize 32 or the
 * superblock's s_want_extra_isize / s_min_extra_isize when larger and
 * sane (mke2fs writes 32; a value past the inode or not a multiple of 4
 * is ignored with a notice).  128-byte inodes have 32-bit seconds only:
 * dates end in January 2038, which the mount says, as the ext4 driver's
 * mount does.  See docs/design.md, "On-disk decisions", timestamps.
 */
static void ext2hole_setup_times(struct super_block *sb,
				 struct ext2hole_super_block *es)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned int room = sbi->s_inode_size - EXT2HOLE_GOOD_OLD_INODE_SIZE;
	unsigned int v[2] = { le16_to_cpu(es->s_want_extra_isize),
			      le16_to_cpu(es->s_min_extra_isize) };
	int i;

	sb->s_time_min = EXT2HOLE_TIME_MIN;
	if (!room) {
		sbi->s_want_extra_isize = 0;
		sb->s_time_gran = NSEC_PER_SEC;
		sb->s_time_max = EXT2HOLE_TIME_MAX_32;
		ext2hole_msg(sb, KERN_NOTICE,
			     "128-byte inodes: timestamps end in 2038 (no nanoseconds, no birth time)");
		return;
	}
	sbi->s_want_extra_isize = EXT2HOLE_WANT_EXTRA_ISIZE;
	for (i = 0; i < 2; i++) {
		if (v[i] > room || (v[i] & 3))
			ext2hole_msg(sb, KERN_WARNING,
				     "ignoring bad %s_extra_isize %u (inode size %u)",
				     i ? "s_min" : "s_want", v[i],
				     sbi->s_inode_size);
		else if (v[i] > sbi->s_want_extra_isize)
			sbi->s_want_extra_isize = v[i];
	}
	sb->s_time_gran = 1;
	sb->s_time_max = EXT2HOLE_TIME_MAX_EXTRA;
}

/*
 * ext2hole_setup_hash - the dir_index hash parameters (src/hash.c)
 *
 * With neither hash flag set, the hashes are signed, as on x86 where
 * such images come from (the ext4 driver would set the flag of its own
 * char signedness; ext2hole writes no flag).
 */
static int ext2hole_setup_hash(struct super_block *sb,
			       struct ext2hole_super_block *es)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	int i;

	/*
	 * New indexes take the default hash: one this driver cannot
	 * compute (a damaged field, or siphash, which needs casefolding)
	 * would leave it unable to read what it indexed.
	 */
	if ((le32_to_cpu(es->s_feature_compat) &
	     EXT2HOLE_FEATURE_COMPAT_DIR_INDEX) &&
	    es->s_def_hash_version > EXT2HOLE_DX_HASH_TEA) {
		ext2hole_msg(sb, KERN_ERR,
			     "unknown default directory hash version %u, run e2fsck",
			     es->s_def_hash_version);
		return -EUCLEAN;
	}

	for (i = 0; i < 4; i++)
		sbi->s_hash_seed[i] = le32_to_cpu(es->s_hash_seed[i]);
	sbi->s_hash_unsigned = 0;
	if (le32_to_cpu(es->s_flags) & EXT2HOLE_FLAGS_UNSIGNED_HASH)
		sbi->s_hash_unsigned = EXT2HOLE_DX_HASH_LEGACY_UNSIGNED;
	return 0;
}

/* Geometry checks on a superblock read with the right block size. */
static int ext2hole_check_geometry(struct super_block *sb,
				   struct ext2hole_super_block *es)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long bs = sb->s_blocksize;
	u32 rev = le32_to_cpu(es->s_rev_level);
	u64 groups;

	if (rev == EXT2HOLE_GOOD_OLD_REV) {
		sbi->s_inode_size = EXT2HOLE_GOOD_OLD_INODE_SIZE;
		sbi->s_first_ino = EXT2HOLE_GOOD_OLD_FIRST_INO;
	} else {
		sbi->s_inode_size = le16_to_cpu(es->s_inode_size);
		sbi->s_first_ino = le32_to_cpu(es->s_first_ino);
		if (sbi->s_inode_size < EXT2HOLE_GOOD_OLD_INODE_SIZE ||
		    sbi->s_inode_size > bs ||
		    !is_power_of_2(sbi->s_inode_size)) {
			ext2hole_msg(sb, KERN_ERR, "unsupported inode size: %u",
				     sbi->s_inode_size);
			return -EINVAL;
		}
		if (sbi->s_first_ino < EXT2HOLE_GOOD_OLD_FIRST_INO) {
			ext2hole_msg(sb, KERN_ERR, "bad first inode: %u",
				     sbi->s_first_ino);
			return -EINVAL;
		}
	}
	if (le32_to_cpu(es->s_log_frag_size) != le32_to_cpu(es->s_log_block_size)) {
		ext2hole_msg(sb, KERN_ERR,
			     "fragment size != block size: not supported");
		return -EINVAL;
	}

	sbi->s_blocks_count = le32_to_cpu(es->s_blocks_count);
	sbi->s_inodes_count = le32_to_cpu(es->s_inodes_count);
	sbi->s_first_data_block = le32_to_cpu(es->s_first_data_block);
	sbi->s_blocks_per_group = le32_to_cpu(es->s_blocks_per_group);
	sbi->s_inodes_per_group = le32_to_cpu(es->s_inodes_per_group);
	sbi->s_inodes_per_block = bs / sbi->s_inode_size;
	sbi->s_desc_per_block = bs / sizeof(struct ext2hole_group_desc);
	sbi->s_addr_per_block_bits = ilog2(bs / sizeof(u32));

	if (sbi->s_first_data_block != (bs == 1024 ? 1 : 0)) {
		ext2hole_msg(sb, KERN_ERR, "bad first data block %u for %lu-byte blocks",
			     sbi->s_first_data_block, bs);
		return -EINVAL;
	}
	if (sbi->s_blocks_per_group < 8 || sbi->s_blocks_per_group > bs * 8 ||
	    sbi->s_blocks_per_group % 8) {
		ext2hole_msg(sb, KERN_ERR, "bad blocks per group: %lu",
			     sbi->s_blocks_per_group);
		return -EINVAL;
	}
	if (sbi->s_inodes_per_group < 8 || sbi->s_inodes_per_group > bs * 8 ||
	    sbi->s_inodes_per_group % 8) {
		ext2hole_msg(sb, KERN_ERR, "bad inodes per group: %lu",
			     sbi->s_inodes_per_group);
		return -EINVAL;
	}
	sbi->s_itb_per_group = DIV_ROUND_UP(sbi->s_inodes_per_group,
					    sbi->s_inodes_per_block);

	if (sbi->s_blocks_count <= sbi->s_first_data_block) {
		ext2hole_msg(sb, KERN_ERR, "bad blocks count: %u",
			     sbi->s_blocks_count);
		return -EINVAL;
	}
	if (sb_bdev_nr_blocks(sb) < sbi->s_blocks_count) {
		ext2hole_msg(sb, KERN_ERR,
			     "device too small: %llu blocks, filesystem has %u",
			     (u64)sb_bdev_nr_blocks(sb), sbi->s_blocks_count);
		return -EINVAL;
	}
	groups = DIV_ROUND_UP((u64)sbi->s_blocks_count - sbi->s_first_data_block,
			      sbi->s_blocks_per_group);
	if (groups * sbi->s_inodes_per_group != sbi->s_inodes_count) {
		ext2hole_msg(sb, KERN_ERR,
			     "inodes count %u != %llu groups * %lu inodes per group",
			     sbi->s_inodes_count, groups, sbi->s_inodes_per_group);
		return -EINVAL;
	}
	sbi->s_groups_count = groups;
	sbi->s_gdb_count = DIV_ROUND_UP(groups, sbi->s_desc_per_block);
	if (sbi->s_first_ino >= sbi->s_inodes_count) {
		ext2hole_msg(sb, KERN_ERR, "first inode %u beyond inodes count %u",
			     sbi->s_first_ino, sbi->s_inodes_count);
		return -EINVAL;
	}
	if (le32_to_cpu(es->s_r_blocks_count) > sbi->s_blocks_count) {
		ext2hole_msg(sb, KERN_ERR, "reserved blocks count %u too large",
			     le32_to_cpu(es->s_r_blocks_count));
		return -EINVAL;
	}
	return 0;
}

static int ext2hole_check_features(struct super_block *sb,
				   struct ext2hole_super_block *es, bool rdonly)
{
	u32 compat, incompat, ro_compat;

	if (le32_to_cpu(es->s_rev_level) == EXT2HOLE_GOOD_OLD_REV &&
	    (es->s_feature_compat || es->s_feature_incompat ||
	     es->s_feature_ro_compat))
		ext2hole_msg(sb, KERN_WARNING,
			     "warning: feature flags set on rev 0 fs, running e2fsck is recommended");

	compat = le32_to_cpu(es->s_feature_compat);
	incompat = le32_to_cpu(es->s_feature_incompat);
	ro_compat = le32_to_cpu(es->s_feature_ro_compat);

	if ((compat & EXT2HOLE_FEATURE_COMPAT_HAS_JOURNAL) ||
	    (incompat & (EXT2HOLE_FEATURE_INCOMPAT_RECOVER |
			 EXT2HOLE_FEATURE_INCOMPAT_JOURNAL_DEV))) {
		ext2hole_msg(sb, KERN_ERR,
			     "filesystem has a journal: not supported (journal: use ext4)");
		return -EINVAL;
	}
	if (incompat & ~EXT2HOLE_FEATURE_INCOMPAT_SUPP) {
		ext2hole_msg(sb, KERN_ERR,
			     "couldn't mount because of unsupported optional features (%x)",
			     incompat & ~EXT2HOLE_FEATURE_INCOMPAT_SUPP);
		return -EINVAL;
	}
	if (!rdonly && (ro_compat & ~EXT2HOLE_FEATURE_RO_COMPAT_SUPP)) {
		ext2hole_msg(sb, KERN_ERR,
			     "couldn't mount RDWR because of unsupported optional features (%x)",
			     ro_compat & ~EXT2HOLE_FEATURE_RO_COMPAT_SUPP);
		return -EROFS;
	}
	return 0;
}

/*
 * Read the superblock (at @sb_opt, 1 for the primary) at the device's
 * smallest block size, check its magic, revision, block size and
 * features (for a read-only mount if @rdonly), and read it again at the
 * filesystem's block size.  Sets s_sbh, s_es and s_sb_block.
 */
static int ext2hole_load_super(struct super_block *sb, unsigned long sb_opt,
			       bool rdonly)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es;
	struct buffer_head *bh;
	unsigned long bs, sb_block;
	u32 log_bs;
	int err;

	bs = sb_min_blocksize(sb, EXT2HOLE_MIN_BLOCK_SIZE);
	if (!bs || bs > EXT2HOLE_MAX_BLOCK_SIZE) {
		ext2hole_msg(sb, KERN_ERR, "unable to set blocksize");
		return -EINVAL;
	}
	bh = ext2hole_read_sb(sb, sb_opt, &es, &sb_block);
	if (!bh) {
		ext2hole_msg(sb, KERN_ERR, "unable to read superblock");
		return -EIO;
	}
	sbi->s_sbh = bh;
	sbi->s_es = es;
	if (le16_to_cpu(es->s_magic) != EXT2HOLE_SUPER_MAGIC) {
		if (sb_opt != 1)
			ext2hole_msg(sb, KERN_ERR, "no ext2 superblock at sb=%lu (bad magic 0x%04x)",
				     sb_opt, le16_to_cpu(es->s_magic));
		else
			ext2hole_msg(sb, KERN_ERR, "can't find an ext2 filesystem (bad magic 0x%04x)",
				     le16_to_cpu(es->s_magic));
		return -EINVAL;
	}
	if (le32_to_cpu(es->s_rev_level) > EXT2HOLE_DYNAMIC_REV) {
		ext2hole_msg(sb, KERN_ERR, "unsupported revision level %u",
			     le32_to_cpu(es->s_rev_level));
		return -EINVAL;
	}
	log_bs = le32_to_cpu(es->s_log_block_size);
	if (log_bs > EXT2HOLE_MAX_BLOCK_LOG_SIZE - EXT2HOLE_MIN_BLOCK_LOG_SIZE) {
		ext2hole_msg(sb, KERN_ERR, "unsupported log block size %u",
			     log_bs);
		return -EINVAL;
	}
	err = ext2hole_check_features(sb, es, rdonly);
	/*
	 * A read-write mount refused for a read-only-compatible feature is
	 * -EINVAL, as in stock ext2 and the ext4 driver: mount(8) takes
	 * -EROFS for write-protected media and silently retries read-only.
	 * (A refused remount to read-write stays -EROFS, as in both.)
	 */
	if (err == -EROFS)
		err = -EINVAL;
	if (err)
		return err;

	if (bs != (EXT2HOLE_MIN_BLOCK_SIZE << log_bs)) {
		bs = EXT2HOLE_MIN_BLOCK_SIZE << log_bs;
		brelse(sbi->s_sbh);
		sbi->s_sbh = NULL;
		sbi->s_es = NULL;
		if (!sb_set_blocksize(sb, bs)) {
			ext2hole_msg(sb, KERN_ERR,
				     "bad block size %lu for this device", bs);
			return -EINVAL;
		}
		bh = ext2hole_read_sb(sb, sb_opt, &es, &sb_block);
		if (!bh) {
			ext2hole_msg(sb, KERN_ERR,
				     "unable to read superblock at block size %lu",
				     bs);
			return -EIO;
		}
		sbi->s_sbh = bh;
		sbi->s_es = es;
		if (le16_to_cpu(es->s_magic) != EXT2HOLE_SUPER_MAGIC ||
		    le32_to_cpu(es->s_log_block_size) != log_bs) {
			ext2hole_msg(sb, KERN_ERR, "superblock changed on re-read");
			return -EINVAL;
		}
	}
	sbi->s_sb_block = sb_block;
	return 0;
}

/*
 * With sb=N the superblock read is a group's backup copy: it must be the
 * copy of the group it names, where that group keeps one.
 */
static int ext2hole_check_sb_copy(struct super_block *sb, unsigned long sb_opt)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;
	unsigned long bs = sb->s_blocksize, sb_block = sbi->s_sb_block;

	if (sb_opt != 1) {
		u32 g = le16_to_cpu(es->s_block_group_nr);

		if (g >= sbi->s_groups_count || !ext2hole_bg_has_super(sb, g) ||
		    ext2hole_group_first_block(sb, g) != sb_block ||
		    EXT2HOLE_SB_OFFSET * sb_opt % bs !=
		    (g ? 0 : EXT2HOLE_SB_OFFSET % bs)) {
			ext2hole_msg(sb, KERN_ERR,
				     "sb=%lu: not the superblock copy of group %u (block %lu)",
				     sb_opt, g, sb_block);
			return -EINVAL;
		}
		ext2hole_msg(sb, KERN_NOTICE,
			     "using the superblock copy of group %u (sb=%lu); updates go to that copy and the descriptors after it",
			     g, sb_opt);
	}
	return 0;
}

/*
 * Read the group descriptors that follow the superblock in use, check
 * every group and sum the free counts into s_free_blocks/s_free_inodes.
 */
static int ext2hole_load_groups(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;
	unsigned long bs = sb->s_blocksize, sb_block = sbi->s_sb_block;
	unsigned long i, rsv_gdt = 0;
	u32 free_blocks = 0, free_inodes = 0;

	if (es->s_feature_compat & cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_RESIZE_INO))
		rsv_gdt = le16_to_cpu(es->s_reserved_gdt_blocks);
	if (rsv_gdt > bs / sizeof(u32)) {
		ext2hole_msg(sb, KERN_ERR, "bad reserved GDT blocks count %lu",
			     rsv_gdt);
		return -EINVAL;
	}
	/* Group 0 must hold the superblock, descriptors, two bitmaps, a table. */
	if ((u64)1 + sbi->s_gdb_count + rsv_gdt + 2 + sbi->s_itb_per_group >
	    min_t(u64, sbi->s_blocks_per_group,
		  sbi->s_blocks_count - sbi->s_first_data_block)) {
		ext2hole_msg(sb, KERN_ERR,
			     "group descriptors (%lu blocks) do not fit in group 0",
			     sbi->s_gdb_count);
		return -EINVAL;
	}

	sbi->s_group_desc = kvcalloc(sbi->s_gdb_count, sizeof(*sbi->s_group_desc),
				     GFP_KERNEL);
	sbi->s_bb_checked = bitmap_zalloc(sbi->s_groups_count, GFP_KERNEL);
	sbi->s_bb_bad = bitmap_zalloc(sbi->s_groups_count, GFP_KERNEL);
	if (!sbi->s_group_desc || !sbi->s_bb_checked || !sbi->s_bb_bad)
		return -ENOMEM;
	for (i = 0; i < sbi->s_gdb_count; i++) {
		/* the descriptors follow the superblock copy in use */
		sbi->s_group_desc[i] = sb_bread(sb, sb_block + 1 + i);
		if (!sbi->s_group_desc[i]) {
			ext2hole_msg(sb, KERN_ERR,
				     "unable to read group descriptors");
			return -EIO;
		}
	}
	for (i = 0; i < sbi->s_groups_count; i++) {
		struct ext2hole_group_desc *gd;

		if (ext2hole_check_group(sb, i, rsv_gdt))
			return -EINVAL;
		gd = ext2hole_get_group_desc(sb, i, NULL);
		free_blocks += le16_to_cpu(gd->bg_free_blocks_count);
		free_inodes += le16_to_cpu(gd->bg_free_inodes_count);
	}
	sbi->s_free_blocks = free_blocks;
	sbi->s_free_inodes = free_inodes;
	if (free_blocks > sbi->s_blocks_count || free_inodes > sbi->s_inodes_count) {
		ext2hole_msg(sb, KERN_ERR, "free counts larger than the filesystem");
		return -EINVAL;
	}
	return 0;
}

/*
 * The default of largefolio/nolargefolio for mounts that name neither
 * (6.12; without large folios in the kernel it changes nothing): a whole
 * test run with large folios off is "insmod ext2hole.ko largefolio=0".
 */
static bool ext2hole_large_folio_default = true;
module_param_named(largefolio, ext2hole_large_folio_default, bool, 0644);
MODULE_PARM_DESC(largefolio,
		 "regular files in large folios unless a mount says nolargefolio (6.12; default Y)");

/* The mount options the superblock gives by default. */
static void ext2hole_default_options(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_super_block *es = sbi->s_es;

	switch (le16_to_cpu(es->s_errors)) {
	case EXT2HOLE_ERRORS_PANIC:
		sbi->s_mount_opt = EXT2HOLE_MOUNT_ERRORS_PANIC;
		break;
	case EXT2HOLE_ERRORS_RO:
		sbi->s_mount_opt = EXT2HOLE_MOUNT_ERRORS_RO;
		break;
	default:
		sbi->s_mount_opt = EXT2HOLE_MOUNT_ERRORS_CONT;
		break;
	}
	/*
	 * acl and user_xattr: on unless refused with noacl / nouser_xattr.
	 * The ext2 driver takes them from s_default_mount_opts only; the ext4
	 * driver, which serves ext2 images on Debian, sets both whatever the
	 * superblock says (EXT2HOLE_DEFM_ACL, EXT2HOLE_DEFM_XATTR_USER, which
	 * mke2fs sets by default, can only agree).  ext2hole does as ext4: an
	 * image whose default options lack them still has its ACLs enforced.
	 */
	sbi->s_mount_opt |= EXT2HOLE_MOUNT_POSIX_ACL | EXT2HOLE_MOUNT_XATTR_USER;
	/* grpid and nouid32: from the superblock, as both drivers do */
	if (le32_to_cpu(es->s_default_mount_opts) & EXT2HOLE_DEFM_BSDGROUPS)
		sbi->s_mount_opt |= EXT2HOLE_MOUNT_GRPID;
	if (le32_to_cpu(es->s_default_mount_opts) & EXT2HOLE_DEFM_UID16)
		sbi->s_mount_opt |= EXT2HOLE_MOUNT_NO_UID32;
#ifdef EXT2HOLE_HAVE_LARGE_FOLIOS
	if (!READ_ONCE(ext2hole_large_folio_default))
		sbi->s_mount_opt |= EXT2HOLE_MOUNT_NO_LARGE_FOLIO;
#endif
	sbi->s_mkwrite = EXT2HOLE_MKWRITE_ALLOC;
	sbi->s_resuid = make_kuid(&init_user_ns, le16_to_cpu(es->s_def_resuid));
	sbi->s_resgid = make_kgid(&init_user_ns, le16_to_cpu(es->s_def_resgid));
}

/* The super_block's operations and limits. */
static void ext2hole_setup_sb_ops(struct super_block *sb)
{
	sb->s_magic = EXT2HOLE_SUPER_MAGIC;
	sb->s_op = &ext2hole_sops;
#ifdef CONFIG_QUOTA
	sb->dq_op = &ext2hole_dquot_ops;
	sb->s_qcop = &ext2hole_quotactl_ops;
	sb->s_quota_types = QTYPE_MASK_USR | QTYPE_MASK_GRP;
#endif
	sb->s_xattr = ext2hole_xattr_handlers;
	sb->s_maxbytes = ext2hole_max_size(sb->s_blocksize_bits);
	sb->s_max_links = 32000;
	sb->s_export_op = &ext2hole_export_ops;
	/*
	 * cgroup writeback: every data bio of writeback is attributed with
	 * wbc_init_bio() and the pages' owners accounted (src/hole.c).
	 */
	sb->s_iflags |= SB_I_CGROUPWB;
}

/* Read the root directory and make sb->s_root. */
static int ext2hole_load_root(struct super_block *sb)
{
	struct inode *root;

	root = ext2hole_iget(sb, EXT2HOLE_ROOT_INO);
	if (IS_ERR(root)) {
		ext2hole_msg(sb, KERN_ERR, "unable to read root inode: %ld",
			     PTR_ERR(root));
		return PTR_ERR(root);
	}
	if (!S_ISDIR(root->i_mode) || !root->i_blocks || !root->i_size) {
		iput(root);
		ext2hole_msg(sb, KERN_ERR, "corrupt root inode, run e2fsck");
		return -EUCLEAN;
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root) {
		ext2hole_msg(sb, KERN_ERR, "get root inode failed");
		return -ENOMEM;
	}
	return 0;
}

static int ext2hole_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct ext2hole_fs_context *ctx = fc->fs_private;
	struct ext2hole_sb_info *sbi;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	spin_lock_init(&sbi->s_lock);
	mutex_init(&sbi->s_balloc_mutex);
	mutex_init(&sbi->s_ialloc_mutex);
	ext2hole_meta_init(sb);

	err = ext2hole_load_super(sb, ctx->sb_block, fc->sb_flags & SB_RDONLY);
	if (err)
		goto failed;
	err = ext2hole_check_geometry(sb, sbi->s_es);
	if (err)
		goto failed;
	err = ext2hole_check_sb_copy(sb, ctx->sb_block);
	if (err)
		goto failed;
	sbi->s_sb_opt = ctx->sb_block;
	err = ext2hole_load_groups(sb);
	if (err)
		goto failed;
	sbi->s_next_generation = get_random_u32();
	/* write errors from before this mount are not ours to requeue */
	sbi->s_meta_wb_err = errseq_sample(&ext2hole_bdev_mapping(sb)->wb_err);
	sbi->s_ea_block_cache = mb_cache_create(EXT2HOLE_XATTR_CACHE_BITS);
	if (!sbi->s_ea_block_cache) {
		err = -ENOMEM;
		goto failed;
	}

	/* Options: the superblock's defaults, then what the user gave. */
	ext2hole_default_options(sb);
	ext2hole_apply_options(sb, ctx);
	sbi->s_mount_state = le16_to_cpu(sbi->s_es->s_state);

	ext2hole_setup_sb_ops(sb);
	ext2hole_setup_times(sb, sbi->s_es);
	err = ext2hole_setup_hash(sb, sbi->s_es);
	if (err)
		goto failed;
	memcpy(&sb->s_uuid, sbi->s_es->s_uuid, sizeof(sbi->s_es->s_uuid));

	err = ext2hole_load_root(sb);
	if (err)
		goto failed;

	if (!sb_rdonly(sb))
		ext2hole_setup_super(sb);

	if (ext2hole_sysfs_register(sb))
		ext2hole_msg(sb, KERN_WARNING,
			     "warning: sysfs counters not available");
	return 0;

failed:
	/* s_root unset: put_super will not run, free everything here. */
	sb->s_fs_info = NULL;
	ext2hole_free_sbi(sbi);
	return err;
}

/* ---------------------------------------------------------------------- */
/* fs_context */

static int ext2hole_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, ext2hole_fill_super);
}

static int ext2hole_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_fs_context *ctx = fc->fs_private;
	bool want_ro = fc->sb_flags & SB_RDONLY;
	bool resume_quota = false;
	int err;

	/* set on each regular file's mapping as it is read: mount time only */
	if (ctx->large_folio >= 0 &&
	    !ctx->large_folio != !!ext2hole_test_opt(sb, NO_LARGE_FOLIO))
		return invalfc(fc, "largefolio cannot change on remount");

	sync_filesystem(sb);

	if ((fc->sb_flags_mask & SB_RDONLY) && want_ro != sb_rdonly(sb)) {
		if (want_ro) {
			err = dquot_suspend(sb, -1);
			if (err < 0)
				return err;
			ext2hole_restore_state(sb);
		} else {
			err = ext2hole_check_features(sb, sbi->s_es, false);
			if (err)
				return err;
			spin_lock(&sbi->s_lock);
			sbi->s_mount_state = le16_to_cpu(sbi->s_es->s_state);
			spin_unlock(&sbi->s_lock);
			/* Called before the VFS clears SB_RDONLY: fine, we write
			 * the superblock buffer ourselves.
			 */
			ext2hole_setup_super(sb);
			/* After the options: dquot_resume() below. */
			resume_quota = true;
		}
	}
	ext2hole_apply_options(sb, ctx);
	if (resume_quota) {
		/*
		 * The quota files are reopened for writing: clear SB_RDONLY
		 * first, as ext2 and ext4 do (the VFS would only clear it
		 * after we return).
		 */
		sb->s_flags &= ~SB_RDONLY;
		dquot_resume(sb, -1);
	}
	return 0;
}

static void ext2hole_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations ext2hole_context_ops = {
	.parse_param	= ext2hole_parse_param,
	.get_tree	= ext2hole_get_tree,
	.reconfigure	= ext2hole_reconfigure,
	.free		= ext2hole_free_fc,
};

static int ext2hole_init_fs_context(struct fs_context *fc)
{
	struct ext2hole_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->mkwrite = -1;
	ctx->sb_block = 1;
	ctx->acl = -1;
	ctx->user_xattr = -1;
	ctx->grpid = -1;
	ctx->large_folio = -1;
	fc->fs_private = ctx;
	fc->ops = &ext2hole_context_ops;
	return 0;
}

static struct file_system_type ext2hole_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "ext2hole",
	.init_fs_context	= ext2hole_init_fs_context,
	.parameters		= ext2hole_param_spec,
	.kill_sb		= kill_block_super,
	/*
	 * Idmapped mounts, as the ext4 driver: every inode operation takes
	 * the mount's idmap (new inodes' owners, setattr, getattr, ACLs,
	 * quota transfer, fileattr); stock ext2 does not allow them.
	 */
	.fs_flags		= FS_REQUIRES_DEV | FS_ALLOW_IDMAP,
};

static int __init ext2hole_init(void)
{
	int err;

	/* Fast symlink targets live in i_data and are copied to user space. */
	ext2hole_inode_cachep = kmem_cache_create_usercopy("ext2hole_inode_cache",
				sizeof(struct ext2hole_inode_info), 0,
				SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
				offsetof(struct ext2hole_inode_info, i_data),
				sizeof_field(struct ext2hole_inode_info, i_data),
				ext2hole_inode_init_once);
	if (!ext2hole_inode_cachep)
		return -ENOMEM;
	err = hole_init(&ext2hole_hole_ops);
	if (err)
		goto out_cache;
	err = ext2hole_sysfs_init();
	if (err)
		goto out_hole;
	err = register_filesystem(&ext2hole_fs_type);
	if (err)
		goto out_sysfs;
	return 0;

out_sysfs:
	ext2hole_sysfs_exit();
out_hole:
	hole_exit();
out_cache:
	kmem_cache_destroy(ext2hole_inode_cachep);
	return err;
}

static void __exit ext2hole_exit(void)
{
	unregister_filesystem(&ext2hole_fs_type);
	ext2hole_sysfs_exit();
	hole_exit();
	/* Inodes are freed after an RCU grace period. */
	rcu_barrier();
	kmem_cache_destroy(ext2hole_inode_cachep);
}

module_init(ext2hole_init);
module_exit(ext2hole_exit);
MODULE_LICENSE("GPL");
MODULE_ALIAS_FS("ext2hole");
MODULE_VERSION(EXT2HOLE_VERSION);
MODULE_DESCRIPTION("ext2 with better mmap and hole semantics");
