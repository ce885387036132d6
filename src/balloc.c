// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: group descriptors, block bitmaps and block allocation.
 *
 * The group descriptors are read at mount and stay in memory.  Bitmaps
 * are read through the buffer cache (ext2hole_bread(), src/meta.c) on
 * every use and changed under sbi->s_balloc_mutex.  The free counts (group descriptor
 * and in-memory total) change under s_lock with the bitmap, so the three
 * always agree.  Allocation and freeing here also charge and release the
 * owner's disk quota, which keeps inode->i_blocks (dquot_alloc_block()
 * adds to it, dquot_free_block() takes from it, quota on or off): callers
 * never change i_blocks for blocks they got or gave back here.  The
 * _nocharge variants leave quota and i_blocks to their caller: get_block,
 * whose delayed blocks were reserved at page_mkwrite and are charged by
 * claiming that reservation (dquot_claim_block(), src/inode.c).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/quotaops.h>
#include <linux/blkdev.h>
#include "ext2hole.h"

/**
 * ext2hole_get_group_desc - the descriptor of a block group
 * @sb: the filesystem
 * @group: group number, checked against s_groups_count
 * @bh: if not NULL, gets the buffer holding the descriptor (no reference
 *	is taken: the descriptor buffers live as long as the mount)
 */
struct ext2hole_group_desc *ext2hole_get_group_desc(struct super_block *sb,
						    unsigned long group,
						    struct buffer_head **bh)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long block, offset;

	if (group >= sbi->s_groups_count) {
		ext2hole_error(sb, "group %lu out of range (%lu groups)",
			       group, sbi->s_groups_count);
		return NULL;
	}
	block = group / sbi->s_desc_per_block;
	offset = group % sbi->s_desc_per_block;
	if (bh)
		*bh = sbi->s_group_desc[block];
	return (struct ext2hole_group_desc *)sbi->s_group_desc[block]->b_data +
	       offset;
}

/* Blocks in group @group: the last group may be shorter. */
static unsigned long ext2hole_group_blocks(struct super_block *sb,
					   unsigned long group)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long first = ext2hole_group_first_block(sb, group);

	return min_t(unsigned long, sbi->s_blocks_per_group,
		     sbi->s_blocks_count - first);
}

static unsigned long ext2hole_rsv_gdt(struct super_block *sb)
{
	struct ext2hole_super_block *es = EXT2HOLE_SB(sb)->s_es;

	if (!(es->s_feature_compat &
	      cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_RESIZE_INO)))
		return 0;
	return le16_to_cpu(es->s_reserved_gdt_blocks);
}

static bool ext2hole_test_root(unsigned long a, unsigned int b)
{
	for (;;) {
		if (a < b)
			return a == 1;
		if (a % b)
			return false;
		a /= b;
	}
}

/**
 * ext2hole_bg_has_super - does a group hold a superblock copy
 * @sb: the filesystem
 * @group: group number
 *
 * Every group does without sparse_super; with it, groups 0, 1 and the
 * powers of 3, 5 and 7.
 */
int ext2hole_bg_has_super(struct super_block *sb, unsigned long group)
{
	struct ext2hole_super_block *es = EXT2HOLE_SB(sb)->s_es;

	if (group == 0)
		return 1;
	if (!(es->s_feature_ro_compat &
	      cpu_to_le32(EXT2HOLE_FEATURE_RO_COMPAT_SPARSE_SUPER)))
		return 1;
	return ext2hole_test_root(group, 3) || ext2hole_test_root(group, 5) ||
	       ext2hole_test_root(group, 7);
}

/**
 * ext2hole_bg_num_gdb - group descriptor blocks stored in a group
 * @sb: the filesystem
 * @group: group number
 *
 * Without meta_bg (refused at mount), each superblock copy is followed by
 * a full copy of the descriptor table.  Reserved GDT blocks not included.
 */
unsigned long ext2hole_bg_num_gdb(struct super_block *sb, unsigned long group)
{
	return ext2hole_bg_has_super(sb, group) ? EXT2HOLE_SB(sb)->s_gdb_count : 0;
}

/*
 * Cut [@start, *@lim] at the metadata extent [@a, @b]: false when @start
 * lies inside it, else *@lim ends before it when it starts in the range.
 */
static bool ext2hole_cut_run(u64 start, u64 *lim, u64 a, u64 b)
{
	if (a <= start && start <= b)
		return false;
	if (a > start && a <= *lim)
		*lim = a - 1;
	return true;
}

/**
 * ext2hole_data_blocks_run - how many blocks from @start may hold file data
 * or indirect blocks
 * @sb: the filesystem
 * @start: first block
 * @max: blocks wanted
 *
 * The length of the longest prefix of [@start, @start + @max) that stays
 * inside the data zone and touches no superblock copy, group descriptors,
 * reserved GDT blocks, bitmap or inode table.  Each group the range
 * crosses is checked once against its metadata extents (the range is cut
 * only at group boundaries), so a long contiguous run costs one
 * descriptor lookup per group, not one per block.
 *
 * Return: 0 when @start itself is not a data block, else 1..@max.
 */
unsigned long ext2hole_data_blocks_run(struct super_block *sb,
				       unsigned long start, unsigned long max)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	u64 cur = start, end = (u64)start + max - 1;

	if (!max || start < sbi->s_first_data_block ||
	    start >= sbi->s_blocks_count)
		return 0;
	end = min_t(u64, end, sbi->s_blocks_count - 1);

	while (cur <= end) {
		unsigned long g = (cur - sbi->s_first_data_block) /
				  sbi->s_blocks_per_group;
		u64 first = ext2hole_group_first_block(sb, g);
		u64 lim = min_t(u64, end, first + sbi->s_blocks_per_group - 1);
		u64 glim = lim, bb, ib, it;
		struct ext2hole_group_desc *gd;

		gd = ext2hole_get_group_desc(sb, g, NULL);
		if (!gd)
			break;
		bb = le32_to_cpu(gd->bg_block_bitmap);
		ib = le32_to_cpu(gd->bg_inode_bitmap);
		it = le32_to_cpu(gd->bg_inode_table);
		if ((ext2hole_bg_has_super(sb, g) &&
		     !ext2hole_cut_run(cur, &lim, first,
				       first + ext2hole_bg_num_gdb(sb, g) +
				       ext2hole_rsv_gdt(sb))) ||
		    !ext2hole_cut_run(cur, &lim, bb, bb) ||
		    !ext2hole_cut_run(cur, &lim, ib, ib) ||
		    !ext2hole_cut_run(cur, &lim, it,
				      it + sbi->s_itb_per_group - 1))
			break;
		cur = lim + 1;
		if (lim < glim)
			break;
	}
	return cur - start;
}

/**
 * ext2hole_data_blocks_valid - may these blocks hold file data or indirect
 * blocks
 * @sb: the filesystem
 * @start: first block
 * @count: number of blocks (at least 1)
 *
 * False when the range leaves the data zone or touches a superblock copy,
 * group descriptors, reserved GDT blocks, a bitmap or an inode table.
 */
bool ext2hole_data_blocks_valid(struct super_block *sb, unsigned long start,
				unsigned long count)
{
	return count && ext2hole_data_blocks_run(sb, start, count) == count;
}

/*
 * The first time since mount that @group's bitmap @bh is used: do its free
 * bits and the descriptor's free count agree?  A group where they do not
 * (a damaged bitmap or descriptor, an unclean shutdown not yet repaired)
 * is reported and left alone from then on, as the ext4 driver does: an
 * allocation there could hand out a block in use, a free could count a
 * block twice.  e2fsck repairs it.  Under s_balloc_mutex, which also
 * covers every change of the bitmap and the count.
 */
static bool ext2hole_block_bitmap_agrees(struct super_block *sb,
					 unsigned long group,
					 const struct buffer_head *bh,
					 const struct ext2hole_group_desc *gd)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long size = ext2hole_group_blocks(sb, group), used;
	const u8 *map = (const u8 *)bh->b_data;

	if (test_bit(group, sbi->s_bb_bad))
		return false;
	if (test_bit(group, sbi->s_bb_checked))
		return true;
	used = memweight(map, size / 8);
	if (size % 8)
		used += hweight8(map[size / 8] & ((1U << (size % 8)) - 1));
	if (size - used != le16_to_cpu(gd->bg_free_blocks_count)) {
		set_bit(group, sbi->s_bb_bad);
		/* what statfs and the reserve count may no longer be used */
		spin_lock(&sbi->s_lock);
		sbi->s_free_blocks -= min_t(u32, sbi->s_free_blocks,
					    le16_to_cpu(gd->bg_free_blocks_count));
		spin_unlock(&sbi->s_lock);
		ext2hole_error(sb,
			       "block bitmap of group %lu has %lu free blocks, its descriptor %u: no allocation there until e2fsck",
			       group, size - used,
			       le16_to_cpu(gd->bg_free_blocks_count));
		return false;
	}
	set_bit(group, sbi->s_bb_checked);
	return true;
}

/*
 * Read a group's block bitmap and check that it marks the group's own
 * bitmaps and inode table in use, and (once) that its free bits agree
 * with the descriptor.  NULL (error reported) if not.
 */
static struct buffer_head *ext2hole_read_block_bitmap(struct super_block *sb,
						      unsigned long group)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_group_desc *gd;
	struct buffer_head *bh;
	unsigned long first, bb, ib, it, itb = sbi->s_itb_per_group;

	gd = ext2hole_get_group_desc(sb, group, NULL);
	if (!gd)
		return NULL;
	first = ext2hole_group_first_block(sb, group);
	bb = le32_to_cpu(gd->bg_block_bitmap);
	ib = le32_to_cpu(gd->bg_inode_bitmap);
	it = le32_to_cpu(gd->bg_inode_table);

	bh = ext2hole_bread(sb, bb);
	if (!bh) {
		ext2hole_error(sb, "cannot read block bitmap %lu of group %lu",
			       bb, group);
		return NULL;
	}
	if (!test_bit_le(bb - first, bh->b_data) ||
	    !test_bit_le(ib - first, bh->b_data) ||
	    find_next_zero_bit_le(bh->b_data, it - first + itb, it - first) <
	    it - first + itb) {
		brelse(bh);
		ext2hole_error(sb,
			       "block bitmap of group %lu does not mark its own metadata in use",
			       group);
		return NULL;
	}
	if (!ext2hole_block_bitmap_agrees(sb, group, bh, gd)) {
		brelse(bh);
		return NULL;
	}
	return bh;
}

/**
 * ext2hole_add_group_counts - change a group descriptor's counts
 * @sb: the filesystem
 * @group: the group
 * @blocks: change of bg_free_blocks_count (and the in-core total)
 * @inodes: change of bg_free_inodes_count (and the in-core total)
 * @dirs: change of bg_used_dirs_count
 *
 * The caller serializes the group's bitmap that the change follows: the
 * block bitmap's lock for blocks, s_ialloc_mutex for inodes and dirs.
 * s_lock covers the descriptor's fields and the totals.
 */
void ext2hole_add_group_counts(struct super_block *sb, unsigned long group,
			       long blocks, int inodes, int dirs)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_group_desc *gd;
	struct buffer_head *gdbh;

	gd = ext2hole_get_group_desc(sb, group, &gdbh);
	if (!gd)
		return;
	spin_lock(&sbi->s_lock);
	le16_add_cpu(&gd->bg_free_blocks_count, blocks);
	sbi->s_free_blocks += blocks;
	le16_add_cpu(&gd->bg_free_inodes_count, inodes);
	sbi->s_free_inodes += inodes;
	le16_add_cpu(&gd->bg_used_dirs_count, dirs);
	spin_unlock(&sbi->s_lock);
	ext2hole_dirty_meta(sb, gdbh);
}

/* May the current task use the blocks reserved for root (s_r_blocks_count)? */
static bool ext2hole_may_use_reserved(struct ext2hole_sb_info *sbi)
{
	if (uid_eq(current_fsuid(), GLOBAL_ROOT_UID) ||
	    uid_eq(current_fsuid(), sbi->s_resuid))
		return true;
	if (!gid_eq(sbi->s_resgid, GLOBAL_ROOT_GID) &&
	    in_group_p(sbi->s_resgid))
		return true;
	return capable(CAP_SYS_RESOURCE);
}

/*
 * How many of @want blocks the current task may take; called under
 * s_balloc_mutex so the answer holds until the allocation is done.
 */
static unsigned long ext2hole_avail_blocks(struct super_block *sb,
					   unsigned long want)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long free, rsv;

	spin_lock(&sbi->s_lock);
	free = sbi->s_free_blocks;
	spin_unlock(&sbi->s_lock);
	rsv = le32_to_cpu(sbi->s_es->s_r_blocks_count);
	if (free >= rsv + want)
		return want;
	if (ext2hole_may_use_reserved(sbi))
		return min(free, want);
	return free > rsv ? free - rsv : 0;
}

/*
 * Try to take up to @want blocks in @group, the first at or after bit
 * @start (wrapping inside the group).  Returns the number taken, the first
 * block in *@block.  Called under s_balloc_mutex.
 */
static unsigned long ext2hole_alloc_in_group(struct super_block *sb,
					     unsigned long group,
					     unsigned long start,
					     unsigned long want,
					     unsigned long *block)
{
	struct ext2hole_group_desc *gd;
	struct buffer_head *bh;
	unsigned long size = ext2hole_group_blocks(sb, group);
	unsigned long first = ext2hole_group_first_block(sb, group);
	unsigned long bit, len, i;

	gd = ext2hole_get_group_desc(sb, group, NULL);
	if (!gd || !gd->bg_free_blocks_count)
		return 0;
	want = min_t(unsigned long, want, le16_to_cpu(gd->bg_free_blocks_count));
	if (start >= size)
		start = 0;

	bh = ext2hole_read_block_bitmap(sb, group);
	if (!bh)
		return 0;
	bit = find_next_zero_bit_le(bh->b_data, size, start);
	if (bit >= size && start) {
		/* Wrap: look before the goal too. */
		bit = find_next_zero_bit_le(bh->b_data, start, 0);
		if (bit >= start)
			bit = size;
	}
	if (bit >= size) {
		/* The descriptor's free count and the bitmap disagree. */
		brelse(bh);
		return 0;
	}
	/* the free run from bit, then one metadata check for all of it */
	len = find_next_bit_le(bh->b_data, min_t(unsigned long, size, bit + want),
			       bit) - bit;
	len = ext2hole_data_blocks_run(sb, first + bit, len);
	if (!len) {
		brelse(bh);
		ext2hole_error(sb,
			       "block bitmap of group %lu marks metadata block %lu free",
			       group, first + bit);
		return 0;
	}
	lock_buffer(bh);
	for (i = 0; i < len; i++)
		__set_bit_le(bit + i, bh->b_data);
	unlock_buffer(bh);
	ext2hole_dirty_meta(sb, bh);
	if (sb->s_flags & SB_SYNCHRONOUS)
		sync_dirty_buffer(bh);
	brelse(bh);

	ext2hole_add_group_counts(sb, group, -(long)len, 0, 0);
	*block = first + bit;
	return len;
}

/**
 * ext2hole_new_blocks_nocharge - allocate contiguous blocks, quota aside
 * @inode: the inode the blocks are for (its group is the fallback goal)
 * @goal: preferred first block
 * @count: in: blocks wanted (at least 1); out: blocks allocated
 * @errp: out: 0, -ENOSPC, -EROFS or -EINVAL
 *
 * Searches the goal's group from the goal on, then the following groups.
 * Never hands out metadata blocks, and leaves s_r_blocks_count blocks to
 * root, resuid, resgid and CAP_SYS_RESOURCE.  Touches neither the quota
 * nor i_blocks: the caller charged the blocks already (get_block, which
 * charges a delayed block by claiming its reservation) and gives back the
 * charge of what it did not get.
 *
 * Return: the first block allocated, 0 on error.
 */
unsigned long ext2hole_new_blocks_nocharge(struct inode *inode,
					   unsigned long goal,
					   unsigned long *count, int *errp)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long want = *count, got = 0, block = 0;
	unsigned long g0, off, i;

	*count = 0;
	*errp = 0;
	if (!want) {
		*errp = -EINVAL;
		return 0;
	}
	if (sb_rdonly(sb)) {
		*errp = -EROFS;
		return 0;
	}
	if (goal < sbi->s_first_data_block || goal >= sbi->s_blocks_count) {
		unsigned long grp = EXT2HOLE_I(inode)->i_block_group;

		if (grp >= sbi->s_groups_count)
			grp = 0;
		goal = ext2hole_group_first_block(sb, grp);
	}
	g0 = (goal - sbi->s_first_data_block) / sbi->s_blocks_per_group;
	off = (goal - sbi->s_first_data_block) % sbi->s_blocks_per_group;

	mutex_lock(&sbi->s_balloc_mutex);
	want = ext2hole_avail_blocks(sb, want);
	for (i = 0; want && i < sbi->s_groups_count; i++) {
		unsigned long g = (g0 + i) % sbi->s_groups_count;

		got = ext2hole_alloc_in_group(sb, g, i ? 0 : off, want, &block);
		if (got)
			break;
	}
	mutex_unlock(&sbi->s_balloc_mutex);

	if (!got) {
		*errp = -ENOSPC;
		return 0;
	}
	*count = got;
	return block;
}

/**
 * ext2hole_new_blocks - allocate contiguous blocks near a goal
 * @inode: the inode the blocks are for
 * @goal: preferred first block
 * @count: in: blocks wanted (at least 1); out: blocks allocated
 * @errp: out: 0, -ENOSPC, -EDQUOT, -EROFS or -EINVAL
 *
 * ext2hole_new_blocks_nocharge(), charged: as in ext2, all @count blocks
 * are charged to @inode's quota first (-EDQUOT if they do not fit, before
 * any bitmap is touched) and what was not allocated is given back; the
 * blocks allocated stay charged and counted in i_blocks.
 *
 * Return: the first block allocated, 0 on error (nothing charged then).
 */
unsigned long ext2hole_new_blocks(struct inode *inode, unsigned long goal,
				  unsigned long *count, int *errp)
{
	unsigned long want = *count, block;

	if (!want) {
		*errp = -EINVAL;
		return 0;
	}
	*errp = dquot_alloc_block(inode, want);
	if (*errp) {
		*count = 0;
		return 0;
	}
	block = ext2hole_new_blocks_nocharge(inode, goal, count, errp);
	if (*count < want)
		dquot_free_block(inode, want - *count);
	return block;
}

/**
 * ext2hole_release_blocks - take blocks off an inode's quota and i_blocks
 * @inode: the inode
 * @count: blocks it no longer holds
 *
 * For a shared xattr block whose reference @inode drops, and for
 * ext2hole_free_blocks().  A count larger than i_blocks is corruption:
 * reported, and i_blocks goes to zero.
 */
void ext2hole_release_blocks(struct inode *inode, unsigned long count)
{
	u64 have = inode_get_bytes(inode) >> inode->i_sb->s_blocksize_bits;

	if (count > have) {
		ext2hole_error(inode->i_sb, "inode %lu: i_blocks %llu too small",
			       inode->i_ino, (u64)inode->i_blocks);
		count = have;
	}
	if (count)
		dquot_free_block(inode, count);
}

/**
 * ext2hole_charge_blocks - charge blocks an inode takes without allocating
 * @inode: the inode
 * @count: blocks
 *
 * For a shared xattr block @inode takes a reference on: charged and
 * counted in i_blocks like an allocated one.
 *
 * Return: 0 or -EDQUOT.
 */
int ext2hole_charge_blocks(struct inode *inode, unsigned long count)
{
	return dquot_alloc_block(inode, count);
}

/**
 * ext2hole_free_blocks - give blocks back
 * @inode: the inode they belonged to
 * @block: first block
 * @count: number of blocks
 *
 * The blocks leave @inode's quota charge and i_blocks in every case (the
 * inode no longer points at them), then ext2hole_free_blocks_nocharge().
 */
void ext2hole_free_blocks(struct inode *inode, unsigned long block,
			  unsigned long count)
{
	if (!count)
		return;
	ext2hole_release_blocks(inode, count);
	ext2hole_free_blocks_nocharge(inode, block, count);
}

/**
 * ext2hole_free_blocks_nocharge - give blocks back to the bitmaps
 * @inode: the inode they belonged to (for messages only)
 * @block: first block
 * @count: number of blocks
 *
 * Refuses (with ext2hole_error) to free metadata or blocks outside the
 * data zone, and reports blocks that were already free.  The quota and
 * i_blocks are the caller's: for blocks that ext2hole_new_blocks_nocharge()
 * gave out and that never entered the map.  Their pinned metadata buffers,
 * if any (a quota file's data blocks, written through the block device,
 * have some), are forgotten first (ext2hole_meta_forget_range()).
 */
void ext2hole_free_blocks_nocharge(struct inode *inode, unsigned long block,
				   unsigned long count)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	if (!count)
		return;
	if (!ext2hole_data_blocks_valid(sb, block, count)) {
		ext2hole_error(sb,
			       "inode %lu: freeing invalid or metadata blocks %lu (count %lu)",
			       inode->i_ino, block, count);
		return;
	}
	/* while the blocks are still ours: no retry may write over them */
	ext2hole_meta_forget_range(sb, block, count);

	mutex_lock(&sbi->s_balloc_mutex);
	while (count) {
		unsigned long rel = block - sbi->s_first_data_block;
		unsigned long group = rel / sbi->s_blocks_per_group;
		unsigned long bit = rel % sbi->s_blocks_per_group;
		unsigned long n = min(count, sbi->s_blocks_per_group - bit);
		unsigned long freed = 0, already = 0, i;
		struct buffer_head *bh;

		bh = ext2hole_read_block_bitmap(sb, group);
		if (bh) {
			lock_buffer(bh);
			for (i = 0; i < n; i++) {
				if (__test_and_clear_bit_le(bit + i, bh->b_data))
					freed++;
				else
					already++;
			}
			unlock_buffer(bh);
			ext2hole_dirty_meta(sb, bh);
			if (sb->s_flags & SB_SYNCHRONOUS)
				sync_dirty_buffer(bh);
			brelse(bh);
			if (freed)
				ext2hole_add_group_counts(sb, group, freed, 0, 0);
			if (already)
				ext2hole_error(sb,
					       "inode %lu: %lu of blocks %lu-%lu already free",
					       inode->i_ino, already, block,
					       block + n - 1);
		}
		block += n;
		count -= n;
	}
	mutex_unlock(&sbi->s_balloc_mutex);
}

/**
 * ext2hole_trim_fs - FITRIM: discard the free blocks of a range
 * @sb: the filesystem
 * @range: bytes [start, start + len) and minlen; on return, len is the
 *	number of bytes discarded
 *
 * Each group's bitmap is read under s_balloc_mutex, and every free run of
 * at least minlen blocks inside the range is discarded before the mutex is
 * dropped, so no allocation takes a block while it is being discarded;
 * allocations wait at most for one group's discards.  A group whose bitmap
 * cannot be trusted (reported when it was read) is left alone.
 *
 * Return: 0, -EINVAL for a range the filesystem does not reach or a
 * minlen larger than a group, -ERESTARTSYS when a fatal signal stopped it,
 * or the first discard error.
 */
int ext2hole_trim_fs(struct super_block *sb, struct fstrim_range *range)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned int bits = sb->s_blocksize_bits;
	u64 start = range->start >> bits, end, minlen, trimmed = 0;
	unsigned long group;
	int err = 0;

	minlen = max_t(u64, 1, DIV_ROUND_UP_ULL(range->minlen, sb->s_blocksize));
	if (range->len < sb->s_blocksize || start >= sbi->s_blocks_count ||
	    minlen > sbi->s_blocks_per_group)
		return -EINVAL;
	end = min_t(u64, sbi->s_blocks_count,
		    start + (range->len >> bits));
	start = max_t(u64, start, sbi->s_first_data_block);

	for (group = (start - sbi->s_first_data_block) /
		     sbi->s_blocks_per_group;
	     group < sbi->s_groups_count && !err; group++) {
		unsigned long first = ext2hole_group_first_block(sb, group);
		unsigned long lo, hi, i, j;
		struct buffer_head *bh;

		if (first >= end)
			break;
		if (fatal_signal_pending(current)) {
			err = -ERESTARTSYS;
			break;
		}
		lo = max_t(u64, start, first) - first;
		hi = min_t(u64, end, first + ext2hole_group_blocks(sb, group)) -
		     first;
		mutex_lock(&sbi->s_balloc_mutex);
		bh = ext2hole_read_block_bitmap(sb, group);
		for (i = lo; bh && i < hi; i = j) {
			i = find_next_zero_bit_le(bh->b_data, hi, i);
			if (i >= hi)
				break;
			j = find_next_bit_le(bh->b_data, hi, i);
			if (j - i < minlen)
				continue;
			err = sb_issue_discard(sb, first + i, j - i, GFP_NOFS, 0);
			if (err)
				break;
			trimmed += j - i;
		}
		brelse(bh);
		mutex_unlock(&sbi->s_balloc_mutex);
		cond_resched();
	}
	range->len = trimmed << bits;
	return err;
}
