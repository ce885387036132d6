// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: what the block map says about data and holes - FIEMAP and
 * lseek(SEEK_HOLE / SEEK_DATA), through the kernel's iomap reporting
 * helpers.  Lookups only: nothing here allocates or changes the map.
 *
 * A block is data when it is mapped, or when it lies in a page that the
 * page cache holds dirty or under writeback: data that write(2) or a store
 * through a mapping put there and that the map may not show yet
 * (mkwrite=noalloc's delayed buffers, a page whose writeback failed, or
 * one that writeback is allocating right now).  Such a range is reported
 * as delayed allocation, so an accepted write is never a hole.  The page
 * cache is looked at before the map, never after: see
 * ext2hole_report_begin().
 */
#include <linux/fs.h>
#include <linux/fiemap.h>
#include <linux/iomap.h>
#include <linux/pagemap.h>
#include "ext2hole.h"

/*
 * One step of a walk down the block map from logical block @iblock: a
 * mapped run contiguous on disk inside one pointer array (*@pblk its first
 * block), or a hole up to the end of the largest empty subtree that holds
 * @iblock, or of the zero pointers from it at the data level (*@pblk =
 * 0).  *@count is the run's length in blocks.  Called under i_map_mutex.
 */
static int ext2hole_report_step(struct inode *inode, u64 iblock, u32 *pblk,
				u64 *count)
{
	unsigned long n = 0;
	int err;

	/* beyond what the map can address: a hole for ever (ULONG_MAX) */
	err = ext2hole_map_extent(inode, iblock, ULONG_MAX, true, pblk, &n);
	*count = n == ULONG_MAX ? U64_MAX : n;
	return err;
}

/*
 * The longest run from @iblock, at most @max blocks, that is all hole or
 * all mapped and contiguous on disk (across pointer arrays too).
 */
static int ext2hole_report_run(struct inode *inode, u64 iblock, u64 max,
			       u32 *pblk, u64 *count)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	u64 n, n2;
	u32 pb2;
	int err;

	mutex_lock(&ei->i_map_mutex);
	err = ext2hole_report_step(inode, iblock, pblk, &n);
	while (!err && n < max) {
		err = ext2hole_report_step(inode, iblock + n, &pb2, &n2);
		if (err)
			break;
		if (*pblk ? pb2 != *pblk + n : pb2 != 0)
			break;
		n = n2 > U64_MAX - n ? U64_MAX : n + n2;
		cond_resched();
	}
	mutex_unlock(&ei->i_map_mutex);
	*count = min(n, max);
	return err;
}

/*
 * The first page in [@index, @last] that the page cache tags dirty or
 * under writeback, or @last + 1.  Both tags are read under the i_pages
 * lock, so the answer is one snapshot: __folio_start_writeback() sets
 * WRITEBACK and clears DIRTY in one critical section of that lock, and a
 * reader outside it could see neither tag on a weakly ordered CPU.
 */
static pgoff_t ext2hole_first_cached(struct address_space *mapping,
				     pgoff_t index, pgoff_t last)
{
	pgoff_t dirty = index, wb = index;
	pgoff_t first = last + 1;

	xa_lock_irq(&mapping->i_pages);
	if (xa_find(&mapping->i_pages, &dirty, last, PAGECACHE_TAG_DIRTY))
		first = dirty;
	if (first > index &&
	    xa_find(&mapping->i_pages, &wb, first - 1, PAGECACHE_TAG_WRITEBACK))
		first = wb;
	xa_unlock_irq(&mapping->i_pages);
	/* a large folio's entry may start before @index */
	return max(first, index);
}

/*
 * Part of a hole that the page cache held dirty or under writeback
 * (@cached, from ext2hole_first_cached()): data whose block the map did
 * not show.  The hole is cut at that page; a hole that starts in it
 * becomes a delayed-allocation extent as far as that page goes.
 */
static void ext2hole_iomap_cached(struct iomap *iomap, pgoff_t cached)
{
	loff_t pos = (loff_t)cached << PAGE_SHIFT;

	if (pos >= iomap->offset + iomap->length)
		return;
	if (pos > iomap->offset) {
		iomap->length = pos - iomap->offset;
		return;
	}
	iomap->type = IOMAP_DELALLOC;
	iomap->length = min_t(u64, iomap->length,
			      pos + PAGE_SIZE - iomap->offset);
}

/**
 * ext2hole_report_begin - what [@offset, @offset + @length) starts with
 * @inode: the file (i_rwsem held shared)
 * @offset: first byte
 * @length: bytes
 * @flags: IOMAP_REPORT (FIEMAP, SEEK_HOLE, SEEK_DATA)
 * @iomap: the answer: a mapped run, a hole, or a delayed range
 * @srcmap: unused
 *
 * Data may be in the page cache only, or on disk only, and writeback
 * moves it from one to the other while we look: it splices a delayed
 * block into the map, then moves the page from dirty to writeback.  Read
 * in the other order (the map, then the dirty tag), a page caught in
 * between shows a hole in the map and no dirty tag, and a byte stored
 * before the call is reported as a hole.  So the page cache's
 * DIRTY and WRITEBACK tags are read first, in one snapshot, and the map
 * after.  A page with data the snapshot saw neither dirty nor under
 * writeback had its blocks in the map before the snapshot, because
 * ext2hole's writeback (hole_write_folio(), src/hole.c) allocates
 * every delayed buffer with get_block(create=1), which splices it into
 * the map under i_map_mutex, before set_page_writeback(); the writeback
 * tag then stays until the I/O has completed.  The map is read under the
 * same mutex after the snapshot's i_pages lock was dropped, and the
 * writer took the i_pages lock to move the tags after splicing, so the
 * map read sees every splice that the snapshot's tags depend on.
 *
 * The corner cases keep a tag on the page until its data has a block:
 * clearing a page's dirty bit for I/O (folio_clear_dirty_for_io()) leaves
 * the DIRTY tag, which only __folio_start_writeback() clears, and only if
 * the page was not dirtied again; a page whose allocation failed (ENOSPC,
 * EDQUOT, EIO) or whose buffer could not be locked is redirtied before
 * set_page_writeback(), so its DIRTY tag never drops; a writeback that
 * finds nothing to write (clean buffers, or only buffers beyond EOF, which
 * are never data) starts and ends the page's writeback at once, with
 * every data block of the page already mapped; the buffer straddling EOF
 * goes to disk from a bounce copy, but the page itself is under writeback
 * until that copy's I/O completes, and its block was spliced before.
 * write_begin and page_mkwrite (mkwrite=alloc) splice blocks before the
 * data is stored, so a mapped block may still hold no data: reporting
 * data for it, or for a whole page of which one buffer is dirty, is
 * allowed; reporting a hole where data is, is not.
 *
 * Return: 0, -EOPNOTSUPP for a write, or an error of the map walk.
 */
static int ext2hole_report_begin(struct inode *inode, loff_t offset,
				 loff_t length, unsigned int flags,
				 struct iomap *iomap, struct iomap *srcmap)
{
	unsigned int blkbits = inode->i_blkbits;
	u64 first = offset >> blkbits;
	u64 last = (offset + length - 1) >> blkbits;
	pgoff_t cached;
	u64 count;
	u32 pblk;
	int err;

	if (flags & (IOMAP_WRITE | IOMAP_ZERO))
		return -EOPNOTSUPP;
	/* the page cache first, then the map: see above */
	cached = ext2hole_first_cached(inode->i_mapping, offset >> PAGE_SHIFT,
				       (offset + length - 1) >> PAGE_SHIFT);
	err = ext2hole_report_run(inode, first, last - first + 1, &pblk, &count);
	if (err)
		return err;
	iomap->bdev = inode->i_sb->s_bdev;
	iomap->offset = first << blkbits;
	iomap->length = count << blkbits;
	iomap->flags = 0;
	if (pblk) {
		iomap->type = IOMAP_MAPPED;
		iomap->addr = (u64)pblk << blkbits;
		return 0;
	}
	iomap->type = IOMAP_HOLE;
	iomap->addr = IOMAP_NULL_ADDR;
	ext2hole_iomap_cached(iomap, cached);
	return 0;
}

static const struct iomap_ops ext2hole_report_ops = {
	.iomap_begin	= ext2hole_report_begin,
};

/**
 * ext2hole_fiemap - FS_IOC_FIEMAP on a regular file
 * @inode: the file
 * @fieinfo: the request
 * @start: first byte
 * @len: bytes
 *
 * Extents are maximal runs of blocks contiguous on disk; dirty pages, and
 * pages under writeback, over holes are FIEMAP_EXTENT_DELALLOC (FIEMAP_FLAG_SYNC writes them back
 * first).  i_rwsem is held shared, so the size and the map do not change.
 *
 * Return: 0 or a negative errno.
 */
int ext2hole_fiemap(struct inode *inode, struct fiemap_extent_info *fieinfo,
		    u64 start, u64 len)
{
	loff_t size;
	int ret;

	inode_lock_shared(inode);
	size = i_size_read(inode);
	if (start >= size) {
		/* validate the request; there is nothing to report */
		ret = fiemap_prep(inode, fieinfo, start, &len, 0);
	} else {
		len = min_t(u64, len, size - start);
		ret = iomap_fiemap(inode, fieinfo, start, len,
				   &ext2hole_report_ops);
	}
	inode_unlock_shared(inode);
	return ret;
}

/**
 * ext2hole_llseek - lseek(2), with SEEK_HOLE and SEEK_DATA from the map
 * @file: the file
 * @offset: the offset
 * @whence: SEEK_SET ... SEEK_HOLE
 *
 * Return: the new position or a negative errno (-ENXIO past the data).
 */
loff_t ext2hole_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file->f_mapping->host;

	switch (whence) {
	case SEEK_HOLE:
		inode_lock_shared(inode);
		offset = iomap_seek_hole(inode, offset, &ext2hole_report_ops);
		inode_unlock_shared(inode);
		break;
	case SEEK_DATA:
		inode_lock_shared(inode);
		offset = iomap_seek_data(inode, offset, &ext2hole_report_ops);
		inode_unlock_shared(inode);
		break;
	default:
		return generic_file_llseek(file, offset, whence);
	}
	if (offset < 0)
		return offset;
	return vfs_setpos(file, offset, inode->i_sb->s_maxbytes);
}
