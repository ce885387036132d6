// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: inode bitmaps and inode allocation.
 *
 * Inode bitmaps change under sbi->s_ialloc_mutex; the counts (group
 * descriptor and in-memory totals) change with them under s_lock.
 */
#include <linux/quotaops.h>
#include <linux/random.h>
#include "ext2hole.h"

/* Flags a new inode takes from its directory (then masked by type). */
#define EXT2HOLE_FL_INHERITED	(EXT2HOLE_SECRM_FL | EXT2HOLE_UNRM_FL | \
				 EXT2HOLE_COMPR_FL | EXT2HOLE_SYNC_FL | \
				 EXT2HOLE_NODUMP_FL | EXT2HOLE_NOATIME_FL | \
				 EXT2HOLE_DIRSYNC_FL)
#define EXT2HOLE_REG_FLMASK	(~(EXT2HOLE_DIRSYNC_FL | EXT2HOLE_TOPDIR_FL))
#define EXT2HOLE_OTHER_FLMASK	(EXT2HOLE_NODUMP_FL | EXT2HOLE_NOATIME_FL)

static u32 ext2hole_mask_flags(umode_t mode, u32 flags)
{
	if (S_ISDIR(mode))
		return flags;
	if (S_ISREG(mode))
		return flags & EXT2HOLE_REG_FLMASK;
	return flags & EXT2HOLE_OTHER_FLMASK;
}

/*
 * Read a group's inode bitmap.  Group 0 must mark the reserved inodes
 * (1 .. s_first_ino - 1) in use.  NULL (error reported) if not.
 */
static struct buffer_head *ext2hole_read_inode_bitmap(struct super_block *sb,
						      unsigned long group)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_group_desc *gd;
	struct buffer_head *bh;
	unsigned long nr;

	gd = ext2hole_get_group_desc(sb, group, NULL);
	if (!gd)
		return NULL;
	nr = le32_to_cpu(gd->bg_inode_bitmap);
	bh = ext2hole_bread(sb, nr);
	if (!bh) {
		ext2hole_error(sb, "cannot read inode bitmap %lu of group %lu",
			       nr, group);
		return NULL;
	}
	if (group == 0 && sbi->s_first_ino - 1 <= sbi->s_inodes_per_group &&
	    find_next_zero_bit_le(bh->b_data, sbi->s_first_ino - 1, 0) <
	    sbi->s_first_ino - 1) {
		brelse(bh);
		ext2hole_error(sb, "inode bitmap of group 0 marks reserved inodes free");
		return NULL;
	}
	return bh;
}

/**
 * ext2hole_free_inode - release an inode number
 * @inode: the inode being evicted, with i_nlink == 0
 *
 * Called by ext2hole_evict_inode() after the blocks were freed and dtime
 * written.  Gives the inode back to its owner's quota, then clears the
 * bitmap bit and fixes the counts.
 */
void ext2hole_free_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long ino = inode->i_ino;
	unsigned long group, bit;
	struct buffer_head *bh;
	bool was_set;

	/* Before any filesystem lock: the quota write may need them. */
	dquot_free_inode(inode);
	dquot_drop(inode);

	if (ino < sbi->s_first_ino || ino > sbi->s_inodes_count) {
		ext2hole_error(sb, "freeing reserved or nonexistent inode %lu",
			       ino);
		return;
	}
	group = (ino - 1) / sbi->s_inodes_per_group;
	bit = (ino - 1) % sbi->s_inodes_per_group;

	mutex_lock(&sbi->s_ialloc_mutex);
	bh = ext2hole_read_inode_bitmap(sb, group);
	if (!bh)
		goto out;
	lock_buffer(bh);
	was_set = __test_and_clear_bit_le(bit, bh->b_data);
	unlock_buffer(bh);
	if (was_set) {
		ext2hole_dirty_meta(sb, bh);
		if (sb->s_flags & SB_SYNCHRONOUS)
			sync_dirty_buffer(bh);
		ext2hole_add_group_counts(sb, group, 0, 1,
					  S_ISDIR(inode->i_mode) ? -1 : 0);
	}
	brelse(bh);
	if (!was_set)
		ext2hole_error(sb, "bit already cleared for inode %lu", ino);
out:
	mutex_unlock(&sbi->s_ialloc_mutex);
}

/*
 * The descriptor of group @g when it has a free inode and no fewer free
 * inodes and blocks than @avei and @aveb; NULL otherwise.
 */
static struct ext2hole_group_desc *
ext2hole_group_roomy(struct super_block *sb, unsigned long g,
		     unsigned long avei, unsigned long aveb)
{
	struct ext2hole_group_desc *gd = ext2hole_get_group_desc(sb, g, NULL);

	if (!gd || !gd->bg_free_inodes_count)
		return NULL;
	if (le16_to_cpu(gd->bg_free_inodes_count) < avei ||
	    le16_to_cpu(gd->bg_free_blocks_count) < aveb)
		return NULL;
	return gd;
}

/*
 * Orlov-lite for directories: top-level directories go to a group with
 * above-average free inodes and blocks and few directories, searched
 * from a random start; others prefer the parent's group if it is not
 * below average, else the next group that is.  Any group with a free
 * inode as a last resort.  Returns -1 when there is none.
 */
static long ext2hole_find_group_dir(struct super_block *sb, struct inode *parent)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long ngroups = sbi->s_groups_count;
	unsigned long avefreei, avefreeb, pgroup, start, i;
	long best = -1;
	unsigned int best_dirs = UINT_MAX;
	bool top = parent->i_ino == EXT2HOLE_ROOT_INO ||
		   (EXT2HOLE_I(parent)->i_flags & EXT2HOLE_TOPDIR_FL);

	spin_lock(&sbi->s_lock);
	avefreei = sbi->s_free_inodes / ngroups;
	avefreeb = sbi->s_free_blocks / ngroups;
	spin_unlock(&sbi->s_lock);

	pgroup = EXT2HOLE_I(parent)->i_block_group;
	if (pgroup >= ngroups)
		pgroup = 0;

	start = top ? get_random_u32_below(ngroups) : pgroup;
	for (i = 0; i < ngroups; i++) {
		unsigned long g = (start + i) % ngroups;
		struct ext2hole_group_desc *gd;

		gd = ext2hole_group_roomy(sb, g, avefreei, avefreeb);
		if (!gd)
			continue;
		if (!top)
			return g;
		if (le16_to_cpu(gd->bg_used_dirs_count) < best_dirs) {
			best = g;
			best_dirs = le16_to_cpu(gd->bg_used_dirs_count);
		}
	}
	if (best >= 0)
		return best;

	for (i = 0; i < ngroups; i++) {
		unsigned long g = (pgroup + i) % ngroups;

		if (ext2hole_group_roomy(sb, g, 0, 0))
			return g;
	}
	return -1;
}

/*
 * Files: the parent's group if it has a free inode and a free block;
 * then a quadratic-hash probe, then a linear scan for any free inode.
 */
static long ext2hole_find_group_other(struct super_block *sb,
				      struct inode *parent)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long ngroups = sbi->s_groups_count;
	unsigned long pgroup = EXT2HOLE_I(parent)->i_block_group;
	struct ext2hole_group_desc *gd;
	unsigned long g, i;

	if (pgroup >= ngroups)
		pgroup = 0;
	gd = ext2hole_get_group_desc(sb, pgroup, NULL);
	if (gd && gd->bg_free_inodes_count && gd->bg_free_blocks_count)
		return pgroup;

	g = (pgroup + parent->i_ino) % ngroups;
	for (i = 1; i < ngroups; i <<= 1) {
		g = (g + i) % ngroups;
		gd = ext2hole_get_group_desc(sb, g, NULL);
		if (gd && gd->bg_free_inodes_count && gd->bg_free_blocks_count)
			return g;
	}

	for (i = 0; i < ngroups; i++) {
		g = (pgroup + i) % ngroups;
		gd = ext2hole_get_group_desc(sb, g, NULL);
		if (gd && gd->bg_free_inodes_count)
			return g;
	}
	return -1;
}

/*
 * Take a free inode bit in @group (or, if the descriptor lied, in any
 * later group).  Returns the inode number, 0 if none.  Under the mutex.
 */
static unsigned long ext2hole_take_inode(struct super_block *sb,
					 unsigned long group, bool is_dir,
					 unsigned long *groupp)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long ipg = sbi->s_inodes_per_group;
	unsigned long i;

	for (i = 0; i < sbi->s_groups_count; i++) {
		unsigned long g = (group + i) % sbi->s_groups_count;
		struct ext2hole_group_desc *gd;
		struct buffer_head *bh;
		unsigned long start = 0, bit;

		gd = ext2hole_get_group_desc(sb, g, NULL);
		if (!gd || !gd->bg_free_inodes_count)
			continue;
		bh = ext2hole_read_inode_bitmap(sb, g);
		if (!bh)
			continue;
		if (g == 0)
			start = sbi->s_first_ino - 1;
		bit = find_next_zero_bit_le(bh->b_data, ipg, start);
		if (bit >= ipg) {
			brelse(bh);
			continue;
		}
		lock_buffer(bh);
		__set_bit_le(bit, bh->b_data);
		unlock_buffer(bh);
		ext2hole_dirty_meta(sb, bh);
		if (sb->s_flags & SB_SYNCHRONOUS)
			sync_dirty_buffer(bh);
		brelse(bh);
		ext2hole_add_group_counts(sb, g, 0, -1, is_dir ? 1 : 0);
		*groupp = g;
		return g * ipg + bit + 1;
	}
	return 0;
}

/* Zero the on-disk inode, including the bytes after the first 128. */
static int ext2hole_zero_raw_inode(struct super_block *sb, unsigned long ino)
{
	struct ext2hole_inode *raw;
	struct buffer_head *bh;

	raw = ext2hole_get_raw_inode(sb, ino, &bh);
	if (IS_ERR(raw))
		return PTR_ERR(raw);
	lock_buffer(bh);
	memset(raw, 0, EXT2HOLE_SB(sb)->s_inode_size);
	unlock_buffer(bh);
	ext2hole_dirty_meta(sb, bh);
	brelse(bh);
	return 0;
}

/**
 * ext2hole_new_inode - allocate an inode
 * @idmap: the idmap of the mount the inode is made through: its owner is
 *	the caller's fsuid (and fsgid, or the directory's group) mapped by it
 * @dir: the parent directory
 * @mode: the new inode's mode
 * @qstr: its name (for security labels; NULL for O_TMPFILE)
 *
 * Return: a new inode, locked (I_NEW) and dirty, with owner, times, flags
 * and generation set and no blocks, charged to its owner's inode quota;
 * the caller sets the operations and ends with d_instantiate_new() or
 * discard_new_inode().  ERR_PTR on error (-ENOSPC when no inode is free,
 * -EDQUOT over the inode limit).
 */
struct inode *ext2hole_new_inode(struct ext2hole_idmap *idmap,
				 struct inode *dir, umode_t mode,
				 const struct qstr *qstr)
{
	struct super_block *sb = dir->i_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_inode_info *ei;
	struct inode *inode;
	unsigned long ino = 0, group = 0;
	long g;
	int err;

	if (sb_rdonly(sb))
		return ERR_PTR(-EROFS);
	/* The directory's blocks are charged when the entry is added. */
	err = dquot_initialize(dir);
	if (err)
		return ERR_PTR(err);
	inode = new_inode(sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ei = EXT2HOLE_I(inode);

	mutex_lock(&sbi->s_ialloc_mutex);
	if (S_ISDIR(mode))
		g = ext2hole_find_group_dir(sb, dir);
	else
		g = ext2hole_find_group_other(sb, dir);
	if (g >= 0)
		ino = ext2hole_take_inode(sb, g, S_ISDIR(mode), &group);
	mutex_unlock(&sbi->s_ialloc_mutex);
	if (!ino) {
		iput(inode);
		return ERR_PTR(-ENOSPC);
	}
	if (ino < sbi->s_first_ino || ino > sbi->s_inodes_count) {
		ext2hole_error(sb, "allocated reserved or nonexistent inode %lu",
			       ino);
		iput(inode);
		return ERR_PTR(-EFSCORRUPTED);
	}

	if (ext2hole_test_opt(sb, GRPID)) {
		/* BSD semantics: the directory's group, no setgid rule */
		inode->i_mode = mode;
		inode_fsuid_set(inode, idmap);
		inode->i_gid = dir->i_gid;
	} else {
		inode_init_owner(idmap, inode, dir, mode);
	}
	inode->i_ino = ino;
	inode->i_blocks = 0;
	ei->i_crtime = simple_inode_init_ts(inode);
	/* ext4's extra fields: nanoseconds, dates to 2446, birth time */
	ei->i_extra_isize = sbi->s_want_extra_isize;
	memset(ei->i_data, 0, sizeof(ei->i_data));
	ei->i_flags = ext2hole_mask_flags(mode, EXT2HOLE_I(dir)->i_flags &
					  EXT2HOLE_FL_INHERITED);
	ei->i_file_acl = 0;
	ei->i_dtime = 0;
	ei->i_block_group = group;
	ei->i_dir_start_lookup = 0;
	ei->i_last_alloc = 0;
	ei->i_last_logical = 0;
	ext2hole_set_inode_flags(inode);
	spin_lock(&sbi->s_lock);
	inode->i_generation = sbi->s_next_generation++;
	spin_unlock(&sbi->s_lock);

	if (insert_inode_locked(inode) < 0) {
		ext2hole_error(sb, "inode number already in use - inode=%lu",
			       ino);
		/* Keep the bit: the inode is in use by someone else. */
		make_bad_inode(inode);
		iput(inode);
		return ERR_PTR(-EFSCORRUPTED);
	}

	err = ext2hole_zero_raw_inode(sb, ino);
	if (err)
		goto fail_noquota;
	err = dquot_initialize(inode);
	if (err)
		goto fail_noquota;
	err = dquot_alloc_inode(inode);
	if (err)
		goto fail_noquota;
	err = ext2hole_init_acl(inode, dir);
	if (err)
		goto fail_drop;
	err = ext2hole_init_security(inode, dir, qstr);
	if (err)
		goto fail_drop;
	mark_inode_dirty(inode);
	return inode;

fail_noquota:
	/* Not charged: eviction must not give a charge back. */
	dquot_drop(inode);
	inode->i_flags |= S_NOQUOTA;
fail_drop:
	/* Evict with i_nlink == 0 frees the inode number again. */
	clear_nlink(inode);
	discard_new_inode(inode);
	return ERR_PTR(err);
}
