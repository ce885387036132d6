// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: the hole layer, the module-private hole API (docs/design.md,
 * "The hole API").
 *
 * This is Jan Kara's 2009 "better mmaps when blocksize < pagesize" series
 * (block_prepare_hole, block_finish_hole, noalloc_page_mkwrite and the
 * new-style block_write_full_page), rewritten for the 6.1 API and kept
 * private to the module, under names of its own (hole_*).  It knows nothing
 * of the on-disk format nor of the filesystem's in-memory state: every
 * entry point that needs the block map takes the filesystem's get_block,
 * and what else it needs from the filesystem (the counters, the end of a
 * block's write, the release of a delayed block) goes through the
 * callbacks registered at hole_init() (include/hole.h).
 * The guarantees named below (no silent loss, re-fault after growth,
 * new-style writeback) are those of docs/design.md, "Guarantees".
 *
 * Lock order (docs/design.md, "Lock order"):
 *
 *   i_rwsem -> invalidate_lock -> page lock -> get_block's map lock -> buffer lock
 *
 * Two page locks of one file are taken only in index order: a write that
 * starts beyond EOF holds the old EOF page while it locks the page it
 * writes to.
 *
 * Faults (page_mkwrite):
 *
 *   mmap_lock -> sb_start_pagefault -> invalidate_lock (shared) -> page lock
 *
 * A store must not land in what becomes a hole.  An extending truncate
 * holds i_rwsem and the invalidate lock exclusive around hole_prepare(),
 * i_size_write() and hole_finish(), and page_mkwrite takes the invalidate
 * lock shared.  A write beyond EOF keeps the old EOF page locked from
 * hole_prepare_folio() until i_size covers its data, and page_mkwrite needs
 * the page lock.  Either way a store that needs page_mkwrite lands before
 * the page is write-protected and zeroed (and is zeroed), or runs after
 * the new i_size is visible (and allocates, or delays, the newly valid
 * blocks).
 */
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/writeback.h>
#include <linux/buffer_head.h>
#include <linux/mempool.h>
#include "compat.h"
#include "hole.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* The filesystem's callbacks, copied once by hole_init(). */
static struct hole_operations hole_ops __ro_after_init;

/* The buffer of @folio (which has buffers) holding byte @off of it. */
static struct buffer_head *hole_folio_buffer(struct folio *folio, size_t off)
{
	struct buffer_head *bh = folio_buffers(folio);
	size_t bstart;

	for (bstart = bh->b_size; bstart <= off; bstart += bh->b_size)
		bh = bh->b_this_page;
	return bh;
}

/**
 * hole_folio_block - the buffer of a locked folio that holds a byte
 * @inode: the file
 * @folio: the locked folio holding @pos
 * @pos: a byte of the file
 * @get_block: the filesystem's block mapping function (a lookup only)
 *
 * Gives @folio buffers if it has none and returns the one holding @pos,
 * mapped when its block is allocated and then uptodate (read from disk
 * unless the whole folio is uptodate), so that zeroing part of it and
 * marking it dirty writes the rest of the block back as it was.  A hole
 * comes back neither mapped nor delayed.
 *
 * Return: the buffer, or an ERR_PTR of -EIO or of @get_block's error.
 */
struct buffer_head *hole_folio_block(struct inode *inode, struct folio *folio,
				     loff_t pos, get_block_t *get_block)
{
	unsigned int bsize = i_blocksize(inode);
	size_t offset = offset_in_folio(folio, pos);
	struct buffer_head *bh;
	int err;

	if (!folio_buffers(folio))
		ext2hole_create_empty_buffers(folio, bsize, 0);
	bh = hole_folio_buffer(folio, offset);

	if (!buffer_mapped(bh) && !buffer_delay(bh)) {
		err = get_block(inode, pos >> inode->i_blkbits, bh, 0);
		if (err)
			return ERR_PTR(err);
	}
	if (buffer_mapped(bh) && !buffer_uptodate(bh)) {
		if (folio_test_uptodate(folio))
			set_buffer_uptodate(bh);
		else if (bh_read(bh, 0) < 0)
			return ERR_PTR(-EIO);
	}
	return bh;
}

/*
 * The folio holding @pos, locked, to zero part of the block at @pos: the
 * cached one, or a new one when none is cached and that block is mapped
 * (it has bytes on disk to zero).  NULL when no folio is cached and the
 * block is a hole: nothing to zero.  The caller holds the invalidate lock
 * exclusive, so no fault creates the folio meanwhile.
 */
static struct folio *hole_block_folio(struct inode *inode, loff_t pos,
				      get_block_t *get_block)
{
	struct address_space *mapping = inode->i_mapping;
	struct buffer_head map_bh = { .b_size = i_blocksize(inode) };
	struct folio *folio;
	struct page *page;
	int err;

	folio = ext2hole_lock_folio(mapping, pos >> PAGE_SHIFT);
	if (folio)
		return folio;
	err = get_block(inode, pos >> inode->i_blkbits, &map_bh, 0);
	if (err)
		return ERR_PTR(err);
	if (!buffer_mapped(&map_bh))
		return NULL;
	page = grab_cache_page(mapping, pos >> PAGE_SHIFT);
	return page ? page_folio(page) : ERR_PTR(-ENOMEM);
}

/**
 * hole_zero_block - zero part of one block, in the page cache and on disk
 * @inode: the file; i_rwsem and the invalidate lock held exclusive
 * @from: the first byte to zero
 * @to: the end, in the block holding @from
 * @get_block: the filesystem's block mapping function (a lookup only)
 *
 * For a shrinking truncate (the tail of the new EOF block) and for punch
 * and zero range (the partial blocks at either end).  The buffer holding
 * @from is found in its folio by the folio's own position, whatever the
 * folio's size: 6.12's block_truncate_page() counts the block from the
 * page's index instead and maps another block of the file when the page
 * is not its large folio's first.  When the block is mapped or delayed
 * the buffer is read if needed, zeroed in part and marked dirty; a hole
 * that is not cached needs nothing.
 *
 * Return: 0, -ENOMEM, -EIO, or the error of @get_block.
 */
int hole_zero_block(struct inode *inode, loff_t from, loff_t to,
		    get_block_t *get_block)
{
	struct buffer_head *bh;
	struct folio *folio;
	int err = 0;

	if (from >= to)
		return 0;
	folio = hole_block_folio(inode, from, get_block);
	if (IS_ERR_OR_NULL(folio))
		return PTR_ERR_OR_ZERO(folio);
	folio_wait_writeback(folio);
	bh = hole_folio_block(inode, folio, from, get_block);
	if (IS_ERR(bh)) {
		err = PTR_ERR(bh);
		goto out;
	}
	folio_zero_range(folio, offset_in_folio(folio, from), to - from);
	if (buffer_mapped(bh) || buffer_delay(bh))
		mark_buffer_dirty(bh);
out:
	folio_unlock(folio);
	folio_put(folio);
	return err;
}

/**
 * hole_prepare_folio - zero the hole's part of a locked folio
 * @inode: the inode whose size grows
 * @folio: the locked folio straddling @from; it may be new and not uptodate
 * @from: the old size: the hole starts here
 * @to: the new size (or the start of the data written beyond @from)
 * @get_block: the filesystem's block mapping function
 *
 * The folio is first write-protected, so that no store through a PTE made
 * writable while @from was EOF can land after the zeroing: the next store
 * faults into page_mkwrite, which needs the folio lock and so sees the new
 * i_size if the caller keeps the folio locked (the write path) or holds the
 * invalidate lock exclusive (setsize) until i_size has grown.  Then the
 * folio is zeroed from @from up to min(folio end, @to).  The block straddling
 * @from is zeroed on disk too: it is read first when it is mapped and not
 * uptodate, and marked dirty, because new-style writeback writes whole
 * buffers and its tail on disk may hold bytes stored through a mapping
 * beyond EOF.  A page-aligned @from leaves nothing to do.
 *
 * Return: 0, -EIO, or the error of @get_block; any error must abort the
 * size change.
 */
int hole_prepare_folio(struct inode *inode, struct folio *folio,
		       loff_t from, loff_t to, get_block_t *get_block)
{
	unsigned int bsize = i_blocksize(inode);
	size_t offset = offset_in_folio(folio, from);
	struct buffer_head *bh = NULL;
	size_t len;
	int err = 0;

	lockdep_assert_held(&inode->i_rwsem);
	if (from >= to || !offset_in_page(from))
		return 0;

	if (folio_mkclean(folio))
		folio_mark_dirty(folio);
	folio_wait_stable(folio);

	if (from & (bsize - 1)) {
		bh = hole_folio_block(inode, folio, from, get_block);
		if (IS_ERR(bh)) {
			err = PTR_ERR(bh);
			bh = NULL;
			goto out;
		}
		/* A hole: nothing on disk to fix, the page cache is zeroed. */
		if (!buffer_mapped(bh) && !buffer_delay(bh))
			bh = NULL;
	}

	len = min_t(loff_t, folio_size(folio) - offset, to - from);
	folio_zero_range(folio, offset, len);
	if (bh)
		mark_buffer_dirty(bh);
	atomic64_inc(&hole_ops.stats(inode->i_sb)->holes_prepared);
out:
	trace_ext2hole_prepare_hole(inode, from, to, bh && !err, err);
	return err;
}

/**
 * hole_prepare - zero the tail of the old EOF page before growth
 * @inode: the inode whose size grows
 * @from: the old size: the hole starts here
 * @to: the new size
 * @get_block: the filesystem's block mapping function
 *
 * For an extending truncate: called before i_size grows from @from to @to,
 * with i_rwsem and the invalidate lock held exclusive, which keeps both
 * page_mkwrite and the creation of pages by faults away until i_size has
 * grown.  So when the page straddling @from is not cached and the block
 * straddling @from is a hole, there is nothing to zero; otherwise see
 * hole_prepare_folio().
 *
 * Return: 0, -ENOMEM, -EIO, or the error of @get_block.
 */
int hole_prepare(struct inode *inode, loff_t from, loff_t to,
		 get_block_t *get_block)
{
	struct folio *folio;
	int err;

	if (from >= to || !offset_in_page(from))
		return 0;

	/* not cached and block-aligned: no byte of the EOF block to zero */
	if (!(from & (i_blocksize(inode) - 1)))
		folio = ext2hole_lock_folio(inode->i_mapping,
					    from >> PAGE_SHIFT);
	else
		folio = hole_block_folio(inode, from, get_block);
	if (IS_ERR_OR_NULL(folio))
		return PTR_ERR_OR_ZERO(folio);
	err = hole_prepare_folio(inode, folio, from, to, get_block);
	folio_unlock(folio);
	folio_put(folio);
	return err;
}

/**
 * hole_wrprotect - write-protect the cached page holding a byte
 * @inode: the file
 * @pos: a byte of the file
 *
 * The page holding @pos, when it is cached, is write-protected
 * (folio_mkclean) under its lock, and re-dirtied if a PTE was dirty (as
 * clear_page_dirty_for_io() does), so that the next store through any
 * mapping faults into page_mkwrite.
 *
 * Return: true when the page was cached, and so write-protected.
 */
bool hole_wrprotect(struct inode *inode, loff_t pos)
{
	struct folio *folio = ext2hole_lock_folio(inode->i_mapping,
						  pos >> PAGE_SHIFT);

	if (!folio)
		return false;
	if (folio_mkclean(folio))
		folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
	return true;
}

/**
 * hole_finish - write-protect the old EOF page after growth
 * @inode: the inode whose size grew
 * @from: the old size
 * @to: the new size
 *
 * Called after i_size_write().  When the growth makes further blocks of the
 * page straddling @from valid, that page is write-protected (and re-dirtied
 * if a PTE was dirty), so that the next store through any mapping faults
 * into page_mkwrite, which allocates (or delays) the newly valid blocks
 * (re-fault after growth).  Nothing to do when the block size is the page
 * size, or when no block of that page after the one holding @from becomes
 * valid.
 */
void hole_finish(struct inode *inode, loff_t from, loff_t to)
{
	unsigned int bsize = i_blocksize(inode);
	loff_t rounded_from;

	if (from >= to || bsize == PAGE_SIZE)
		return;
	rounded_from = round_up(from, bsize);
	if (to <= rounded_from || !offset_in_page(rounded_from))
		return;

	if (!hole_wrprotect(inode, from))
		return;
	atomic64_inc(&hole_ops.stats(inode->i_sb)->pages_wrprotected);
	trace_ext2hole_finish_hole(inode, from, to, true);
}

static void hole_count_mkwrite_error(struct hole_stats *st, int err)
{
	switch (err) {
	case -ENOSPC:
		atomic64_inc(&st->mkwrite_enospc);
		break;
	case -EDQUOT:
		atomic64_inc(&st->mkwrite_edquot);
		break;
	case -EIO:
		atomic64_inc(&st->mkwrite_eio);
		break;
	default:
		atomic64_inc(&st->mkwrite_other);
		break;
	}
}

/*
 * Common entry of both page_mkwrite policies: freeze protection, the
 * invalidate lock (shared: size changes hold it exclusive), time update
 * and the folio lock.  The times are stamped under the lock, so that a size
 * change or setattr, which stamp them holding it exclusive, never writes
 * them at the same time.  Returns the folio locked, with *@from and *@to
 * the bytes of it that the faulting page covers inside i_size (the store
 * needs those blocks, and only those: the other pages of a large folio
 * fault on their own), or false when the folio was truncated or the page
 * lies wholly beyond EOF; then everything is dropped again.
 */
static bool hole_mkwrite_begin(struct vm_fault *vmf, struct folio *folio,
			       loff_t *size, size_t *from, size_t *to)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	loff_t pos;

	sb_start_pagefault(inode->i_sb);
	filemap_invalidate_lock_shared(inode->i_mapping);
	file_update_time(vmf->vma->vm_file);
	folio_lock(folio);
	*size = i_size_read(inode);
	/* not page_offset(): a tail page's index is not the file's */
	pos = (loff_t)vmf->pgoff << PAGE_SHIFT;
	if (folio->mapping != inode->i_mapping ||
	    page_folio(vmf->page) != folio || pos >= *size) {
		folio_unlock(folio);
		return false;
	}
	*from = pos - folio_pos(folio);
	*to = *from + min_t(loff_t, *size - pos, PAGE_SIZE);
	return true;
}

/*
 * The fault's outcome, for both policies, with the folio locked: on success
 * it stays locked, dirty and stable for the store; on @err it is unlocked
 * and the error counted.  Returns what page_mkwrite returns.
 */
static vm_fault_t hole_mkwrite_done(struct folio *folio,
				    struct hole_stats *st, int err,
				    size_t from, size_t to)
{
	struct buffer_head *bh;
	size_t off;

	if (err) {
		folio_unlock(folio);
		hole_count_mkwrite_error(st, err);
		return vmf_fs_error(err);
	}
	/*
	 * The faulting page's buffers and the folio, not every buffer of
	 * the folio as folio_mark_dirty()'s block_dirty_folio() and
	 * block_commit_write() do: on a large folio that is a walk of
	 * thousands of buffers at each fault, and writeback of blocks no
	 * store reached.  What block_commit_write() did for the page's
	 * buffers is done here (the folio is uptodate: it is mapped).  The
	 * folio lock keeps the buffers attached.
	 */
	bh = hole_folio_buffer(folio, from);
	for (off = from; off < to; off += bh->b_size, bh = bh->b_this_page) {
		set_buffer_uptodate(bh);
		clear_buffer_new(bh);
		set_buffer_dirty(bh);
	}
	filemap_dirty_folio(folio->mapping, folio);
	folio_wait_stable(folio);
	return VM_FAULT_LOCKED;
}

static void hole_mkwrite_end(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);

	filemap_invalidate_unlock_shared(inode->i_mapping);
	sb_end_pagefault(inode->i_sb);
}

/*
 * Map the @n buffers of a folio from @bh on (logical blocks from @block)
 * with one get_block(create=1) call, through a buffer that stands for
 * them: b_page set, b_size their bytes (ext2hole_get_block() fills up to
 * that many holes of one pointer array from one allocation).  get_block
 * may map fewer, down to the first; those it maps are set on the folio's
 * buffers, new when the run is.  Returns how many (at least 1), or
 * get_block's error.
 */
static int hole_map_run(struct inode *inode, struct buffer_head *bh,
			sector_t block, int n, get_block_t *get_block)
{
	struct buffer_head run, *b;
	int got, i, err;

	memset(&run, 0, sizeof(run));
	run.b_page = bh->b_page;
	run.b_size = (size_t)n << inode->i_blkbits;
	err = get_block(inode, block, &run, 1);
	if (err)
		return err;
	if (!buffer_mapped(&run))
		return -EIO;	/* create=1 maps, or fails */
	got = min_t(unsigned long, n, run.b_size >> inode->i_blkbits);
	for (b = bh, i = 0; i < got; i++, b = b->b_this_page) {
		map_bh(b, inode->i_sb, run.b_blocknr + i);
		if (buffer_new(&run))
			set_buffer_new(b);
	}
	return got;
}

/*
 * Allocate the first run of holes among @folio's blocks in [@from, @end)
 * with one get_block call (hole_map_run()), instead of one call (one lock, one
 * bitmap search, one quota charge) per block.  The buffers it maps are
 * made uptodate and dirty, as __block_write_begin() leaves the new
 * buffers of an uptodate folio, so that they are written whatever happens
 * next; any hole left, and any error, is __block_write_begin()'s, which
 * maps and reports block by block.  A delayed buffer ends the run: its
 * block is writeback's to allocate.
 */
static void hole_alloc_run(struct inode *inode, struct folio *folio,
			   size_t from, size_t end, get_block_t *get_block)
{
	unsigned int bits = inode->i_blkbits;
	struct buffer_head *bh, *first = NULL;
	size_t off, start = 0;
	int n = 0, got, i;

	if (!folio_test_uptodate(folio))
		return;
	if (!folio_buffers(folio))
		ext2hole_create_empty_buffers(folio, i_blocksize(inode), 0);
	bh = hole_folio_buffer(folio, from);
	for (off = from; off < end; off += bh->b_size, bh = bh->b_this_page) {
		bool hole = !buffer_mapped(bh) && !buffer_delay(bh);

		if (first && !hole)
			break;
		if (!first && hole) {
			first = bh;
			start = off;
		}
		n += !!first;
	}
	if (n < 2)
		return;
	got = hole_map_run(inode, first, (folio_pos(folio) + start) >> bits,
			   n, get_block);
	if (got <= 0)
		return;
	atomic64_add(got, &hole_ops.stats(inode->i_sb)->mkwrite_run_blocks);
	for (bh = first, i = 0; i < got; i++, bh = bh->b_this_page) {
		clear_buffer_new(bh);
		set_buffer_uptodate(bh);
		mark_buffer_dirty(bh);
	}
}

/**
 * hole_alloc_page_mkwrite - page_mkwrite that allocates (mkwrite=alloc)
 * @vmf: the fault
 * @get_block: the filesystem's block mapping function
 *
 * Maps, allocating where needed, every block of the faulting page inside
 * i_size, so a store either has its blocks or fails here: ENOSPC, EDQUOT and EIO
 * raise SIGBUS at the fault instead of losing the data at writeback (no
 * silent loss).
 *
 * Return: VM_FAULT_LOCKED with the folio locked and dirty,
 * VM_FAULT_NOPAGE when the folio was truncated meanwhile, or the fault
 * code of the error.
 */
vm_fault_t hole_alloc_page_mkwrite(struct vm_fault *vmf,
				   get_block_t *get_block)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct hole_stats *st = hole_ops.stats(inode->i_sb);
	struct folio *folio = page_folio(vmf->page);
	size_t from, to;
	vm_fault_t ret;
	loff_t size;
	int err = 0;

	atomic64_inc(&st->mkwrite_alloc);
	if (!hole_mkwrite_begin(vmf, folio, &size, &from, &to)) {
		ret = VM_FAULT_NOPAGE;
		goto out;
	}

	hole_alloc_run(inode, folio, from, to, get_block);
	err = __block_write_begin(ext2hole_folio_wb(folio),
				  folio_pos(folio) + from, to - from,
				  get_block);
	ret = hole_mkwrite_done(folio, st, err, from, to);
out:
	hole_mkwrite_end(vmf);
	trace_ext2hole_page_mkwrite(inode, vmf->pgoff, true, err, ret);
	return ret;
}

/**
 * hole_noalloc_page_mkwrite - page_mkwrite that delays (mkwrite=noalloc)
 * @vmf: the fault
 * @get_block: the filesystem's get_block for delaying: maps a buffer whose
 *	block exists, otherwise reserves what allocating it at writeback
 *	will take (the disk quota) and marks it delayed, or fails (-EDQUOT)
 *
 * The series' noalloc_page_mkwrite: allocates nothing, but passes every
 * buffer of the faulting page inside i_size that is neither mapped nor
 * delayed to
 * @get_block, so that writeback maps the delayed ones with
 * get_block(create=1).  Whatever @get_block could reserve here cannot
 * fail there; what it does not reserve (free blocks: there is no count of
 * them for delayed blocks) can, and such a failure (ENOSPC ...) is
 * recorded in the mapping and returned by the next fsync/msync.  When
 * @get_block fails for a buffer, the buffers this fault delayed are given
 * back (hole_operations.delay_cancel) and the fault fails: EDQUOT raises
 * SIGBUS at the store, as under mkwrite=alloc (no silent loss).
 *
 * Return: VM_FAULT_LOCKED with the folio locked and dirty,
 * VM_FAULT_NOPAGE when the folio was truncated meanwhile, VM_FAULT_OOM, or
 * the fault code of the error.
 */
vm_fault_t hole_noalloc_page_mkwrite(struct vm_fault *vmf,
				     get_block_t *get_block)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct hole_stats *st = hole_ops.stats(inode->i_sb);
	struct folio *folio = page_folio(vmf->page);
	DECLARE_BITMAP(delayed, MAX_BUF_PER_PAGE);
	struct buffer_head *first, *bh;
	size_t from, to;
	sector_t block;
	vm_fault_t ret;
	loff_t size;
	int err = 0, i, nr;

	atomic64_inc(&st->mkwrite_noalloc);
	if (!hole_mkwrite_begin(vmf, folio, &size, &from, &to)) {
		ret = VM_FAULT_NOPAGE;
		goto out;
	}

	/*
	 * The faulting page's buffers only: at most MAX_BUF_PER_PAGE
	 * whatever the folio's size.  @delayed records those this fault
	 * delays, to give back if a later one fails.
	 */
	bitmap_zero(delayed, MAX_BUF_PER_PAGE);
	if (!folio_buffers(folio))
		ext2hole_create_empty_buffers(folio, i_blocksize(inode), 0);
	block = (folio_pos(folio) + from) >> inode->i_blkbits;
	nr = DIV_ROUND_UP(to - from, i_blocksize(inode));
	bh = first = hole_folio_buffer(folio, from);
	for (i = 0; i < nr; i++, bh = bh->b_this_page) {
		/* BH_Delay fits: the allocation really is delayed until writeout */
		if (buffer_mapped(bh) || buffer_delay(bh))
			continue;
		err = get_block(inode, block + i, bh, 1);
		if (err)
			break;
		if (buffer_delay(bh))
			__set_bit(i, delayed);
	}
	if (err) {
		for (bh = first, i = 0; i < nr; i++, bh = bh->b_this_page) {
			if (!test_bit(i, delayed))
				continue;
			clear_buffer_delay(bh);
			hole_ops.delay_cancel(inode, block + i, block + i + 1);
		}
	}
	ret = hole_mkwrite_done(folio, st, err, from, to);
out:
	hole_mkwrite_end(vmf);
	trace_ext2hole_page_mkwrite(inode, vmf->pgoff, false, err, ret);
	return ret;
}

/*
 * A dirty buffer inside i_size that is neither mapped nor delayed did not
 * pass through page_mkwrite's or write_begin's get_block: its block was
 * never looked up (the page was read without buffers), or it is a hole
 * that a growth made valid and hole_prepare() zeroed.  A lookup without
 * allocation decides: a hole stays a hole (writeback allocates only what
 * passed through get_block) and the buffer is cleaned.
 */
static int hole_wb_lookup(struct inode *inode, struct buffer_head *bh,
			  sector_t block, get_block_t *get_block)
{
	int err;

	err = get_block(inode, block, bh, 0);
	if (!err && !buffer_mapped(bh))
		clear_buffer_dirty(bh);
	return err;
}

/*
 * Pages for the zero-tailed copies of EOF blocks.  Writeback must not fail
 * for want of memory, and must not fall back to writing the tail as it is:
 * with a reserve, mempool_alloc() waits (at worst) for an earlier copy's
 * I/O to complete, which never depends on the writer.
 */
#define HOLE_BOUNCE_RESERVE	4
static mempool_t *hole_bounce_pool;

/**
 * hole_init - set the hole layer up, at module load
 * @ops: the filesystem's callbacks (all mandatory); the layer keeps a copy
 *
 * Return: 0 or -ENOMEM.
 */
int __init hole_init(const struct hole_operations *ops)
{
	hole_ops = *ops;
	hole_bounce_pool = mempool_create_page_pool(HOLE_BOUNCE_RESERVE, 0);
	return hole_bounce_pool ? 0 : -ENOMEM;
}

void hole_exit(void)
{
	mempool_destroy(hole_bounce_pool);
}

/*
 * Completion of a one-buffer write bio: what the kernel's submit_bh() does,
 * after telling the filesystem that the block holds its data now.
 */
static void hole_bh_end_io(struct bio *bio)
{
	struct buffer_head *bh = bio->bi_private;
	int uptodate = !bio->bi_status;

	if (unlikely(bio_flagged(bio, BIO_QUIET)))
		set_bit(BH_Quiet, &bh->b_state);
	if (uptodate)
		hole_ops.written(bh);
	else if (hole_ops.write_failed(bh))
		uptodate = 1;	/* kept dirty in memory by the filesystem */
	bh->b_end_io(bh, uptodate);
	bio_put(bio);
}

static void hole_eof_end_io(struct bio *bio)
{
	mempool_free(bio_first_page_all(bio), hole_bounce_pool);
	hole_bh_end_io(bio);
}

/*
 * Submit a buffer locked and marked for async write, as one bio attributed
 * to @wbc's cgroup writeback (wbc_init_bio(), and the page's owner
 * accounted), as the kernel's block_write_full_page() does through
 * submit_bh_wbc().  The buffer that straddles @i_size is written from a
 * copy whose bytes past EOF are zero: the page keeps what was stored there
 * through a mapping (writeback zeroes no mapped memory), but the disk keeps
 * ext2's invariant that the tail of the last block is zero, which the
 * kernel's ext2 and ext4 drivers rely on when they extend the file, and a
 * later read of the page shows zeros past EOF.  The copy comes from a
 * mempool, so it is never skipped.
 */
static void hole_submit_bh(struct buffer_head *bh, blk_opf_t opf,
			   loff_t i_size, struct writeback_control *wbc)
{
	struct folio *folio = ext2hole_bh_folio(bh);
	loff_t start = folio_pos(folio) + bh_offset(bh);
	size_t offset = bh_offset(bh);
	bio_end_io_t *end_io = hole_bh_end_io;
	struct page *page = NULL;
	struct bio *bio;

	if (i_size > start && i_size < start + bh->b_size) {
		size_t valid = i_size - start;
		char *dst;

		/* GFP_NOIO may sleep: mempool_alloc() then never returns NULL */
		page = mempool_alloc(hole_bounce_pool, GFP_NOIO);
		end_io = hole_eof_end_io;
		dst = kmap_local_page(page);
		/* a buffer lies within one page of its folio */
		memcpy_from_page(dst, folio_page(folio, offset >> PAGE_SHIFT),
				 offset_in_page(offset), valid);
		memset(dst + valid, 0, bh->b_size - valid);
		kunmap_local(dst);
	}

	if (test_set_buffer_req(bh))
		clear_buffer_write_io_error(bh);
	/* GFP_NOIO may sleep: the bioset's mempool never returns NULL */
	bio = bio_alloc(bh->b_bdev, 1, opf, GFP_NOIO);
	bio->bi_iter.bi_sector = bh->b_blocknr * (bh->b_size >> 9);
	/* a fresh 1-vec bio: the zero-tailed copy, or the buffer in place */
	if (page)
		__bio_add_page(bio, page, bh->b_size, 0);
	else
		ext2hole_bio_add_folio(bio, folio, bh->b_size, offset);
	bio->bi_end_io = end_io;
	bio->bi_private = bh;
	wbc_init_bio(wbc, bio);
	ext2hole_wbc_account(wbc, &folio->page, bh->b_size);
	submit_bio(bio);
}

/*
 * Writeback context.  @bio is a write bio being built: runs of buffers
 * whose blocks are consecutive on disk, appended while each run's first
 * block follows the previous run's last one.  It is submitted when the
 * next run does not follow, when it is full, before an EOF block's own
 * bio (so the order of submission stays the order of the blocks) and at
 * the end of the writeback.
 */
struct hole_wb_ctx {
	get_block_t *get_block;
	struct hole_stats *st;
	struct bio *bio;
	sector_t next_sector;	/* where a run must start to join @bio */
};

/*
 * Completion of a multi-block bio: every buffer of every folio ends as if
 * it had been written by its own bio, through its b_end_io
 * (end_buffer_async_write): uptodate or write_io_error and the errseq of
 * the mapping, the buffer unlocked, and the folio's writeback ended by its
 * last buffer, after which the folio and its buffers may be freed.  So
 * each buffer's successor is read before the buffer completes, the
 * folio's size before its first buffer does, and the folios are found
 * from the bio's vectors alone (not bio_for_each_folio_all(), which reads
 * a folio to step past it), never from a folio whose writeback has ended.
 */
static void hole_wb_end_io(struct bio *bio)
{
	int uptodate = !bio->bi_status;
	unsigned short i;

	for (i = 0; i < bio->bi_vcnt; i++) {
		struct bio_vec *bv = &bio->bi_io_vec[i];
		size_t off, size;

		/*
		 * Runs of whole buffers (hole_wb_add_run()); a vector may
		 * hold the end of one folio's run and the start of the next
		 * folio's when their memory is contiguous.
		 */
		for (off = 0; off < bv->bv_len; off += size) {
			size_t pos = bv->bv_offset + off;
			struct page *page = nth_page(bv->bv_page,
						     pos >> PAGE_SHIFT);
			struct folio *folio = page_folio(page);
			size_t start = ((page_to_pfn(page) - folio_pfn(folio))
					<< PAGE_SHIFT) + offset_in_page(pos);
			struct buffer_head *bh, *next;
			size_t n;

			size = min_t(size_t, bv->bv_len - off,
				     folio_size(folio) - start);
			bh = folio_buffers(folio);
			for (n = 0; n + bh->b_size <= start; n += bh->b_size)
				bh = bh->b_this_page;
			for (n = size / bh->b_size; n; n--, bh = next) {
				int ok = uptodate;

				next = bh->b_this_page;
				/* before b_end_io: the folio is under writeback */
				if (ok)
					hole_ops.written(bh);
				else if (hole_ops.write_failed(bh))
					ok = 1;	/* kept dirty by the filesystem */
				bh->b_end_io(bh, ok);
			}
		}
	}
	bio_put(bio);
}

static void hole_wb_submit(struct hole_wb_ctx *ctx)
{
	if (!ctx->bio)
		return;
	submit_bio(ctx->bio);
	ctx->bio = NULL;
	atomic64_inc(&ctx->st->bios_submitted);
}

/*
 * Append @len bytes of @folio from @off, the buffers of a run of blocks
 * consecutive on disk from @sector, to the context's bio, starting a new
 * one when the run does not follow the bio on disk or does not fit; each
 * bio and folio is attributed to @wbc's cgroup writeback.
 */
static void hole_wb_add_run(struct hole_wb_ctx *ctx, struct folio *folio,
			    size_t off, size_t len, sector_t sector,
			    struct block_device *bdev, blk_opf_t opf,
			    struct writeback_control *wbc)
{
	if (ctx->bio) {
		if (ctx->next_sector == sector && ctx->bio->bi_bdev == bdev &&
		    ctx->bio->bi_opf == opf &&
		    ext2hole_bio_add_folio(ctx->bio, folio, len, off))
			goto added;
		hole_wb_submit(ctx);
	}
	/* GFP_NOIO may sleep: the bioset's mempool never returns NULL */
	ctx->bio = bio_alloc(bdev, BIO_MAX_VECS, opf, GFP_NOIO);
	ctx->bio->bi_iter.bi_sector = sector;
	ctx->bio->bi_end_io = hole_wb_end_io;
	wbc_init_bio(wbc, ctx->bio);
	/* a fresh bio: the run fits */
	ext2hole_bio_add_folio(ctx->bio, folio, len, off);
added:
	ext2hole_wbc_account(wbc, &folio->page, len);
	ctx->next_sector = sector + (len >> 9);
}

/*
 * Allocate the delayed dirty buffer @bh (logical @block, at file offset
 * @off) together with the delayed dirty buffers after it inside @i_size,
 * up to the folio's end, in one get_block call (hole_map_run()); what it
 * does not map stays delayed for the caller's next steps.  Returns how
 * many buffers were mapped (at least 1), or the error for @bh.
 */
static int hole_wb_map_delayed(struct inode *inode, struct buffer_head *bh,
			       sector_t block, loff_t off, loff_t i_size,
			       get_block_t *get_block)
{
	struct buffer_head *head = folio_buffers(ext2hole_bh_folio(bh));
	struct buffer_head *b = bh;
	int n = 0, i;

	do {
		if (!buffer_dirty(b) || buffer_mapped(b) || !buffer_delay(b) ||
		    off + ((loff_t)n << inode->i_blkbits) >= i_size)
			break;
		n++;
		b = b->b_this_page;
	} while (b != head);

	n = hole_map_run(inode, bh, block, n, get_block);
	for (b = bh, i = 0; i < n; i++, b = b->b_this_page) {
		clear_buffer_delay(b);
		if (buffer_new(b)) {
			clear_buffer_new(b);
			clean_bdev_bh_alias(b);
		}
	}
	return n;
}

/*
 * Give every dirty buffer of @folio inside @i_size a block: a delayed one
 * is allocated (counted in *@nr_delayed), several at a time where they
 * follow each other (hole_wb_map_delayed()), another looked up.  A buffer
 * beyond EOF (stored through a mapping, never written) is cleaned.  A
 * folio without buffers (which page_mkwrite and write_begin never leave
 * dirty) gets them, delayed inside i_size with nothing reserved: get_block
 * charges them as it allocates.  After the first failure the remaining
 * buffers stay dirty for the next attempt (*@redirty).  Returns 0 or the
 * error.
 */
static int hole_wb_map_buffers(struct folio *folio, struct hole_wb_ctx *ctx,
			       loff_t i_size, int *nr_delayed, bool *redirty)
{
	struct inode *inode = folio->mapping->host;
	unsigned int bsize = i_blocksize(inode);
	loff_t off = folio_pos(folio);
	sector_t block = off >> inode->i_blkbits;
	struct buffer_head *head, *bh;
	int err = 0, ret;

	if (!folio_buffers(folio)) {
		bh = head = ext2hole_create_empty_buffers(folio, bsize,
							  BIT(BH_Dirty) |
							  BIT(BH_Uptodate));
		do {
			if (off < i_size)
				set_buffer_delay(bh);
			off += bsize;
			bh = bh->b_this_page;
		} while (bh != head);
		off = folio_pos(folio);
	}

	bh = head = folio_buffers(folio);
	do {
		if (!buffer_dirty(bh) || buffer_mapped(bh)) {
			/* clean, or ready to write */
		} else if (off >= i_size) {
			/* stored through a mapping beyond EOF: never written */
			if (buffer_delay(bh)) {
				clear_buffer_delay(bh);
				hole_ops.delay_cancel(inode, block, block + 1);
			}
			clear_buffer_dirty(bh);
		} else if (err) {
			/* after a failure: keep it dirty for the next attempt */
			*redirty = true;
		} else if (buffer_delay(bh)) {
			/* the buffers it maps after @bh are ready to write */
			ret = hole_wb_map_delayed(inode, bh, block, off, i_size,
						  ctx->get_block);
			if (ret < 0) {
				err = ret;
				*redirty = true;
			} else {
				*nr_delayed += ret;
			}
		} else {
			ret = hole_wb_lookup(inode, bh, block, ctx->get_block);
			if (ret) {
				err = ret;
				*redirty = true;
			}
		}
		block++;
		off += bsize;
		bh = bh->b_this_page;
	} while (bh != head);
	return err;
}

/*
 * Lock every mapped dirty buffer of @folio and mark it for async write.  A
 * non-blocking writeback that cannot lock a buffer leaves it and redirties
 * the folio (*@redirty), as the kernel's writeback does.
 */
static void hole_wb_lock_buffers(struct folio *folio,
				 struct writeback_control *wbc, bool *redirty)
{
	struct buffer_head *head = folio_buffers(folio), *bh = head;

	do {
		if (!buffer_mapped(bh) || !buffer_dirty(bh))
			continue;
		if (wbc->sync_mode != WB_SYNC_NONE) {
			lock_buffer(bh);
		} else if (!trylock_buffer(bh)) {
			*redirty = true;
			continue;
		}
		if (test_clear_buffer_dirty(bh))
			mark_buffer_async_write(bh);
		else
			unlock_buffer(bh);
	} while ((bh = bh->b_this_page) != head);
}

/*
 * Send the buffers of @folio marked for async write, the folio under
 * writeback.  Each run of them whose blocks are consecutive on disk joins
 * @ctx's bio as one segment (hole_wb_add_run()), so a large folio goes out
 * in as many segments as its data has pieces on disk, and a folio whose
 * blocks follow the previous one's extends the same bio.  The buffer
 * straddling EOF gets a bio of its own (hole_submit_bh(): a zero-tailed
 * copy), after the context's bio, so that the order of submission stays
 * the order of the blocks.  Returns the buffers sent.
 */
static int hole_wb_send_folio(struct folio *folio,
			      struct writeback_control *wbc,
			      struct hole_wb_ctx *ctx, loff_t i_size,
			      bool redirty)
{
	blk_opf_t write_flags = REQ_OP_WRITE | wbc_to_write_flags(wbc);
	struct buffer_head *head = folio_buffers(folio), *bh = head;
	loff_t pos = folio_pos(folio);
	size_t off = 0, bsize = head->b_size;
	int nr_underway = 0;
	bool whole = !redirty;

	do {
		struct buffer_head *first = bh;
		size_t start = off;
		sector_t next;

		if (!buffer_async_write(bh)) {
			whole = false;
			bh = bh->b_this_page;
			off += bsize;
			continue;
		}
		if (pos + off + bsize > i_size) {
			/* the EOF block */
			whole = false;
			hole_wb_submit(ctx);
			bh = bh->b_this_page;
			off += bsize;
			hole_submit_bh(first, write_flags, i_size, wbc);
			atomic64_inc(&ctx->st->bios_submitted);
			nr_underway++;
			continue;
		}
		/* a run: consecutive on disk, on one device, inside EOF */
		next = first->b_blocknr;
		do {
			if (test_set_buffer_req(bh))
				clear_buffer_write_io_error(bh);
			next++;
			off += bsize;
			nr_underway++;
			bh = bh->b_this_page;
		} while (bh != head && buffer_async_write(bh) &&
			 bh->b_blocknr == next && bh->b_bdev == first->b_bdev &&
			 pos + off + bsize <= i_size);
		hole_wb_add_run(ctx, folio, start, off - start,
				first->b_blocknr * (bsize >> 9), first->b_bdev,
				write_flags, wbc);
	} while (bh != head);
	if (whole)
		atomic64_inc(&ctx->st->pages_bio);
	return nr_underway;
}

/*
 * hole_write_folio - hole_write_full_page() within a writeback
 * context: the folio's buffers that go to disk join @ctx's bio in runs
 * (submitted later by the caller; hole_wb_send_folio()).
 */
static int hole_write_folio(struct folio *folio,
			    struct writeback_control *wbc,
			    struct hole_wb_ctx *ctx)
{
	struct inode *inode = folio->mapping->host;
	loff_t i_size = i_size_read(inode);
	pgoff_t index = folio->index;	/* the folio may go once unlocked */
	int nr_delayed = 0, nr_underway = 0;
	bool redirty = false;
	int err = 0;

	if (folio_pos(folio) >= i_size) {
		folio_unlock(folio);
		goto out;
	}

	err = hole_wb_map_buffers(folio, ctx, i_size, &nr_delayed, &redirty);
	if (nr_delayed)
		atomic64_add(nr_delayed, &ctx->st->delayed_mapped);
	if (err) {
		mapping_set_error(folio->mapping, err);
		atomic64_inc(&ctx->st->writeback_errors);
	}
	hole_wb_lock_buffers(folio, wbc, &redirty);
	if (redirty)
		folio_redirty_for_writepage(wbc, folio);

	/* From here the writeback flag protects the folio and its buffers. */
	folio_start_writeback(folio);
	nr_underway = hole_wb_send_folio(folio, wbc, ctx, i_size, redirty);
	folio_unlock(folio);

	/*
	 * Dirty folio, clean buffers: someone wrote them already.  Nothing is
	 * in flight, so end the writeback here; the folio may go away after.
	 */
	if (nr_underway == 0)
		folio_end_writeback(folio);
	else
		atomic64_inc(&ctx->st->pages_written);
out:
	trace_ext2hole_write_full_page(inode, index, nr_underway, nr_delayed,
				       err);
	return err;
}

/**
 * hole_write_full_page - new-style writeback of one locked folio
 * @folio: the locked folio, its dirty bit already cleared for I/O
 * @get_block: the filesystem's block mapping function
 * @wbc: the writeback control
 *
 * Unlike the kernel's block_write_full_page(), every buffer of the folio
 * is considered whatever i_size is, and nothing past EOF is zeroed: dirty
 * delayed buffers are mapped with get_block(create=1), dirty mapped buffers
 * are written, and nothing that did not pass through get_block (in
 * write_begin or page_mkwrite) is ever allocated.  A folio wholly beyond
 * i_size (truncate in progress) is just unlocked.  The buffer straddling
 * EOF goes to disk from a copy with a zeroed tail (hole_submit_bh).
 *
 * When get_block fails (ENOSPC, EDQUOT, EIO), every mapped dirty buffer of
 * the folio is still written, those mapped a moment earlier included, so
 * that no block enters the file without its data.  The buffers that could
 * not be mapped keep their dirty and delay bits and the folio is
 * redirtied: their data is never cleaned away while it is not on disk,
 * the error goes to the mapping for fsync/msync, and a later writeback
 * tries again (after space was freed, say).
 *
 * How the buffers go to disk: when all of them were dirty, are mapped,
 * could be locked and lie on consecutive blocks, and the folio is wholly
 * inside i_size, the folio is one segment of a bio (which
 * hole_writepages() extends over the following folios while they
 * follow on disk); otherwise each buffer written is a bio of its own.
 * Either way each buffer is locked, its dirty bit cleared, marked for
 * async write and completed through its b_end_io, so buffer and folio
 * state, write errors (write_io_error, the mapping's errseq) and the end
 * of the folio's writeback are the same on both paths.
 *
 * Return: 0 or the first error of @get_block.
 */
int hole_write_full_page(struct folio *folio, get_block_t *get_block,
			 struct writeback_control *wbc)
{
	struct hole_wb_ctx ctx = {
		.get_block = get_block,
		.st = hole_ops.stats(folio->mapping->host->i_sb),
	};
	int ret;

	ret = hole_write_folio(folio, wbc, &ctx);
	hole_wb_submit(&ctx);
	return ret;
}

static int hole_writepage_cb(EXT2HOLE_WCP_PAGE *page,
			     struct writeback_control *wbc, void *data)
{
	return hole_write_folio(ext2hole_wcp_folio(page), wbc, data);
}

/**
 * hole_writepages - write back dirty pages of a mapping, new style
 * @mapping: the address space
 * @wbc: the writeback control
 * @get_block: the filesystem's block mapping function
 *
 * write_cache_pages() with hole_write_full_page() for every page,
 * through a context that carries a bio from page to page while the pages
 * follow each other on disk, so that a sequential file goes out in bios of
 * up to BIO_MAX_VECS pages rather than one per buffer.  mpage_writepages()
 * is not usable: its fallback for pages it cannot write as one bio is the
 * kernel's block_write_full_page(), which zeroes past EOF and skips
 * buffers beyond it: not new-style writeback.
 *
 * Return: 0 or the first error.
 */
int hole_writepages(struct address_space *mapping,
		    struct writeback_control *wbc, get_block_t *get_block)
{
	struct hole_wb_ctx ctx = {
		.get_block = get_block,
		.st = hole_ops.stats(mapping->host->i_sb),
	};
	struct blk_plug plug;
	int ret;

	blk_start_plug(&plug);
	ret = write_cache_pages(mapping, wbc, hole_writepage_cb, &ctx);
	hole_wb_submit(&ctx);
	blk_finish_plug(&plug);
	return ret;
}
