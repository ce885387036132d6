// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: fallocate(2) - punching holes, zeroing ranges and plain
 * preallocation on the indirect block map (docs/design.md, "The hole API",
 * "Making holes").
 *
 * Every mode runs like a size change: i_rwsem, then the invalidate lock
 * exclusive, so that page_mkwrite (which takes it shared) and the creation
 * of pages by faults and reads wait until the map and the page cache agree
 * again.  A punch write-protects the pages straddling either end of the
 * range and removes the pages wholly inside it (which waits for their
 * writeback), before any block is freed: the next store into a punched
 * block goes through page_mkwrite again, which allocates or delays (no
 * silent loss, re-fault after growth: docs/design.md, "Guarantees"), and
 * no writeback still in flight writes a freed block.
 *
 * This format has no unwritten extents.  A preallocated block therefore
 * holds zeros on disk before it enters the map (ext2hole_alloc_zeroed()),
 * and no block may lie beyond i_size (e2fsck calls that damage), so
 * preallocation beyond EOF that keeps the size is refused.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/falloc.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include "ext2hole.h"

#define EXT2HOLE_FALLOC_MODES	(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | \
				 FALLOC_FL_ZERO_RANGE)

/*
 * Punch [@offset, @end) out of a file of size @size (no bigger): the
 * invalidate lock is held exclusive.  A range that reaches EOF takes the
 * whole EOF block (its tail beyond EOF holds no data).
 */
static int ext2hole_punch_locked(struct inode *inode, loff_t offset,
				 loff_t end, loff_t size)
{
	unsigned int bsize = i_blocksize(inode);
	loff_t first = round_up(offset, bsize);
	loff_t last;
	int err;

	if (offset >= size || offset >= end)
		return 0;
	if (end >= size)
		end = round_up(size, bsize);
	last = round_down(end, bsize);

	if (offset_in_page(offset))
		hole_wrprotect(inode, offset);
	if (offset_in_page(end))
		hole_wrprotect(inode, end);

	if (first > last) {
		/* inside one block */
		err = hole_zero_block(inode, offset, end, ext2hole_get_block);
	} else {
		err = hole_zero_block(inode, offset, first,
				      ext2hole_get_block);
		if (!err)
			err = hole_zero_block(inode, last, end,
					      ext2hole_get_block);
	}
	if (err)
		return err;

	/*
	 * Zeroes the range in the pages straddling its ends and discards
	 * their buffers wholly inside it; removes (and unmaps) the pages
	 * wholly inside it, waiting for their writeback.
	 */
	truncate_pagecache_range(inode, offset, end - 1);
	if (first < last)
		ext2hole_free_range(inode, first >> inode->i_blkbits,
				    last >> inode->i_blkbits);
	return 0;
}

/* Most blocks zeroed (and waited for) at once by preallocation. */
#define EXT2HOLE_ZERO_BATCH	4096

/*
 * The holes from block @b on, at most @max of them, counted up to the first
 * mapped block.  Returns 0 when @b is mapped, with *@mapped set to the
 * length of its mapped run; a negative errno on damage or a read error.
 */
static long ext2hole_hole_run(struct inode *inode, u64 b, unsigned long max,
			      unsigned long *mapped)
{
	unsigned int bits = inode->i_blkbits;
	unsigned long n;
	int err;

	*mapped = 0;
	for (n = 0; n < max; n++) {
		struct buffer_head bh = { .b_size = (size_t)(max - n) << bits };

		err = ext2hole_get_block(inode, b + n, &bh, 0);
		if (err)
			return err;
		if (buffer_mapped(&bh)) {
			if (!n)
				*mapped = bh.b_size >> bits;
			break;
		}
	}
	return n;
}

/*
 * Where the zeroed run for the hole at @b should start: right after the
 * block mapped before it, else after the inode's last allocation (0: the
 * allocator falls back to the inode's group).
 */
static unsigned long ext2hole_zero_goal(struct inode *inode, u64 b)
{
	struct buffer_head bh = { .b_size = i_blocksize(inode) };

	if (b && !ext2hole_get_block(inode, b - 1, &bh, 0) &&
	    buffer_mapped(&bh))
		return bh.b_blocknr + 1;
	return EXT2HOLE_I(inode)->i_last_alloc ?
		EXT2HOLE_I(inode)->i_last_alloc + 1 : 0;
}

/*
 * Allocate (charged) up to @want contiguous blocks near @goal, and write
 * zeros over them with one request, waited for.  Under a quota limit the
 * request shrinks until it fits.  Returns the first block, *@want set to
 * the count; 0 with *@errp set on failure.
 */
static unsigned long ext2hole_zeroed_run(struct inode *inode,
					 unsigned long goal,
					 unsigned long *want, int *errp)
{
	unsigned long count, start;

	for (;;) {
		count = *want;
		start = ext2hole_new_blocks(inode, goal, &count, errp);
		if (start || *errp != -EDQUOT || *want == 1)
			break;
		*want /= 2;
	}
	if (!start)
		return 0;
	*errp = sb_issue_zeroout(inode->i_sb, start, count, GFP_NOFS);
	if (*errp) {
		ext2hole_free_blocks(inode, start, count);
		return 0;
	}
	*want = count;
	return start;
}

/*
 * Give every hole in blocks [@first, @last] a block of zeros on disk.
 * Mapped blocks are left as they are.  Each stretch of holes (up to
 * EXT2HOLE_ZERO_BATCH blocks) gets a contiguous run of new blocks zeroed
 * with one request (REQ_OP_WRITE_ZEROES where the device has it) and
 * waited for; only then does get_block put them in the map, one per hole,
 * so that no lookup ever maps a block whose zeros are not on disk.  A
 * block of the run that is not taken (the hole was filled meanwhile by
 * writeback of a delayed block) is freed again.
 */
static int ext2hole_alloc_zeroed(struct inode *inode, u64 first, u64 last)
{
	unsigned int bits = inode->i_blkbits;
	u64 b = first;
	int err = 0;

	while (b <= last) {
		unsigned long mapped, want, start, i = 0;
		long holes;

		holes = ext2hole_hole_run(inode, b,
					  min_t(u64, last - b + 1,
						EXT2HOLE_ZERO_BATCH), &mapped);
		if (holes < 0)
			return holes;
		if (!holes) {
			b += mapped;
			continue;
		}
		want = holes;
		start = ext2hole_zeroed_run(inode, ext2hole_zero_goal(inode, b),
					    &want, &err);
		if (!start)
			return err;
		for (i = 0; i < want; i++) {
			struct buffer_head bh = {
				.b_size = 1U << bits,
				.b_blocknr = start + i,
			};

			err = ext2hole_get_block(inode, b + i, &bh,
						 EXT2HOLE_GET_BLOCK_ZEROED);
			if (err)
				break;
			if (!buffer_new(&bh) || bh.b_blocknr != start + i)
				ext2hole_free_blocks(inode, start + i, 1);
		}
		if (i < want)
			ext2hole_free_blocks(inode, start + i, want - i);
		if (err)
			return err;
		b += want;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Zero range (when @zero: punch, then preallocate) or preallocate
 * [@offset, @end), growing i_size to @end unless FALLOC_FL_KEEP_SIZE.
 * i_rwsem held.
 */
static int ext2hole_falloc_alloc(struct inode *inode, int mode, loff_t offset,
				 loff_t end, bool zero)
{
	struct address_space *mapping = inode->i_mapping;
	unsigned int bits = inode->i_blkbits;
	loff_t size = i_size_read(inode);
	loff_t newsize = size, alloc_end;
	int err;

	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > size) {
		newsize = end;
		err = inode_newsize_ok(inode, newsize);
		if (err)
			return err;
	}
	if (zero)
		inode_dio_wait(inode);

	filemap_invalidate_lock(mapping);
	if (zero) {
		err = ext2hole_punch_locked(inode, offset, end, size);
		if (err)
			goto out;
	}
	if (newsize > size) {
		err = hole_prepare(inode, size, newsize, ext2hole_get_block);
		if (err)
			goto out;
	}
	alloc_end = min(end, newsize);
	err = 0;
	if (offset < alloc_end)
		err = ext2hole_alloc_zeroed(inode, offset >> bits,
					    (alloc_end - 1) >> bits);
	if (newsize > size) {
		if (err) {
			/* no block may stay beyond the size */
			ext2hole_truncate_blocks(inode, size);
			goto out;
		}
		i_size_write(inode, newsize);
		hole_finish(inode, size, newsize);
	}
	if (zero || newsize > size)
		inode_set_mtime_to_ts(inode, inode_set_ctime_current(inode));
	else
		inode_set_ctime_current(inode);
	mark_inode_dirty(inode);
out:
	filemap_invalidate_unlock(mapping);
	return err;
}

static int ext2hole_punch_hole(struct inode *inode, loff_t offset, loff_t end)
{
	struct address_space *mapping = inode->i_mapping;
	int err;

	inode_dio_wait(inode);
	filemap_invalidate_lock(mapping);
	err = ext2hole_punch_locked(inode, offset, end, i_size_read(inode));
	if (!err) {
		inode_set_mtime_to_ts(inode, inode_set_ctime_current(inode));
		mark_inode_dirty(inode);
	}
	filemap_invalidate_unlock(mapping);
	return err;
}

/**
 * ext2hole_fallocate - fallocate(2) on a regular file
 * @file: the file
 * @mode: FALLOC_FL_* flags
 * @offset: first byte of the range
 * @len: length of the range (the VFS checked it is positive and fits)
 *
 * - PUNCH_HOLE | KEEP_SIZE: whole blocks in the range (up to EOF) are
 *   freed, with the indirect blocks that become empty; partial blocks at
 *   either end are zeroed in the page cache and on disk.
 * - ZERO_RANGE [| KEEP_SIZE]: the same, then every block of the range
 *   inside the (new) size gets a block of zeros on disk; without KEEP_SIZE
 *   the size grows to the end of the range.  With KEEP_SIZE nothing is
 *   allocated past EOF (bytes there are no data, and read as zeros when
 *   the file grows: holes read as zeros).
 * - 0 and KEEP_SIZE: preallocation: holes in the range get blocks of
 *   zeros on disk; mode 0 grows the size to the end of the range.
 *   KEEP_SIZE with a range that ends past EOF: -EOPNOTSUPP, since this
 *   format has no place for blocks beyond i_size.
 * - anything else (collapse, insert, unshare): -EOPNOTSUPP.
 *
 * With IS_SYNC or O_SYNC the range and the inode reach disk before return.
 *
 * Return: 0 or a negative errno (-ENOSPC, -EIO, -EFBIG, -EINTR ...).
 */
long ext2hole_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	loff_t end = offset + len;
	int err;

	if (mode & ~EXT2HOLE_FALLOC_MODES)
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && (mode & FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	if (!S_ISREG(inode->i_mode))
		return -EOPNOTSUPP;

	inode_lock(inode);
	if (mode == FALLOC_FL_KEEP_SIZE && end > i_size_read(inode)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	err = file_modified(file);
	if (err)
		goto out;
	if (mode & FALLOC_FL_PUNCH_HOLE)
		err = ext2hole_punch_hole(inode, offset, end);
	else
		err = ext2hole_falloc_alloc(inode, mode, offset, end,
					    mode & FALLOC_FL_ZERO_RANGE);
	if (!err && (IS_SYNC(inode) || (file->f_flags & O_SYNC))) {
		err = filemap_write_and_wait_range(inode->i_mapping, offset,
						   end - 1);
		if (!err)
			err = sync_mapping_buffers(inode->i_mapping);
		if (!err)
			err = ext2hole_sync_inode(inode);
	}
out:
	inode_unlock(inode);
	return err;
}
