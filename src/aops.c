// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: address space operations of regular files, directories and
 * slow symlinks.  Reads are src/read.c's; writeback is the new-style one
 * of src/hole.c (never mpage_writepages(), whose fallback zeroes past EOF);
 * write_begin/write_end bracket growth with the hole API.
 */
#include <linux/fs.h>
#include <linux/buffer_head.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/uio.h>
#include "ext2hole.h"

static int ext2hole_writepage(struct page *page, struct writeback_control *wbc)
{
	return hole_write_full_page(page_folio(page), ext2hole_get_block, wbc);
}

static int ext2hole_aops_writepages(struct address_space *mapping,
				    struct writeback_control *wbc)
{
	return hole_writepages(mapping, wbc, ext2hole_get_block);
}

/*
 * A write, direct write or directory append that failed may have
 * allocated blocks beyond i_size: drop the page cache there and free them,
 * under the invalidate lock like every other change of the block map
 * beyond the page cache.  Called with i_rwsem held and no page locked.
 */
void ext2hole_write_failed(struct address_space *mapping, loff_t to)
{
	struct inode *inode = mapping->host;

	if (to > inode->i_size) {
		filemap_invalidate_lock(mapping);
		truncate_pagecache(inode, inode->i_size);
		ext2hole_truncate_blocks(inode, inode->i_size);
		filemap_invalidate_unlock(mapping);
	}
}

/**
 * ext2hole_write_begin - prepare a folio for a buffered write
 * @file: the file (unused)
 * @mapping: the file's mapping
 * @pos: where the write starts
 * @len: bytes to write; the folio takes those that fit in it
 * @pagep: out: the locked folio (a page on 6.1)
 * @fsdata: out: the old EOF folio, kept locked until write_end, or NULL
 *
 * A write starting beyond EOF creates a hole from the old size to @pos:
 * hole_prepare_folio() write-protects the page straddling the old
 * size (the old EOF page) and zeroes it from there, here in
 * write_begin.  The old EOF page stays locked until write_end has grown
 * i_size, so the size grows only together with the data (a failed or
 * short write leaves it as it was), and a store through a mapping of that
 * page cannot land in what becomes the hole: its page_mkwrite needs the
 * page lock and so sees the new i_size.  Folios are locked in index order
 * (the old EOF one first; once when a large folio holds both), and the
 * write's copy from user memory runs with page faults disabled between
 * write_begin and write_end.
 *
 * Return: 0 or a negative errno.
 */
static int ext2hole_write_begin(struct file *file,
				struct address_space *mapping, loff_t pos,
				unsigned int len, EXT2HOLE_WB_PAGE **pagep,
				void **fsdata)
{
	struct inode *inode = mapping->host;
	loff_t size = inode->i_size;
	struct folio *eof = NULL, *folio = NULL;
	bool hole = pos > size && offset_in_page(size);
	size_t room;
	int err;

	*fsdata = NULL;
	if (hole && size >> PAGE_SHIFT != pos >> PAGE_SHIFT) {
		eof = ext2hole_write_folio(mapping, size, 0);
		if (!eof)
			return -ENOMEM;
		if (folio_contains(eof, pos >> PAGE_SHIFT)) {
			/* a large folio holds both: the hole starts in it */
			folio = eof;
			eof = NULL;
		} else {
			err = hole_prepare_folio(inode, eof, size, pos,
						 ext2hole_get_block);
			if (err)
				goto out_eof;
			hole = false;
		}
	}

	if (!folio) {
		folio = ext2hole_write_folio(mapping, pos, len);
		if (!folio) {
			err = -ENOMEM;
			goto out_eof;
		}
		/* new: neither read nor written yet */
		if (folio_test_large(folio) && !folio_buffers(folio) &&
		    !folio_test_uptodate(folio))
			atomic64_inc(&EXT2HOLE_SB(inode->i_sb)->s_large_folios);
	}
	/*
	 * generic_perform_write() offers up to the largest folio's worth
	 * of bytes; this folio takes what fits in it, and it copies that.
	 */
	room = folio_size(folio) - offset_in_folio(folio, pos);
	if (len > room)
		len = room;
	if (hole) {
		/* the hole starts in the folio written to */
		err = hole_prepare_folio(inode, folio, size, pos,
					 ext2hole_get_block);
		if (err)
			goto out_folio;
	}
	err = __block_write_begin(ext2hole_folio_wb(folio), pos, len,
				  ext2hole_get_block);
	if (err)
		goto out_folio;
	*pagep = ext2hole_folio_wb(folio);
	*fsdata = eof;
	return 0;

out_folio:
	folio_unlock(folio);
	folio_put(folio);
out_eof:
	if (eof) {
		folio_unlock(eof);
		folio_put(eof);
	}
	ext2hole_write_failed(mapping, pos + len);
	return err;
}

/*
 * i_size grows while the written page, and the old EOF page of a write
 * that started beyond EOF, are still locked.  Both were write-protected
 * before anything was zeroed or copied and no store could reach them
 * since, so no further write-protection is needed (hole_finish()'s job in
 * setsize): the next store faults into page_mkwrite with the new size.
 */
static int ext2hole_write_end(struct file *file, struct address_space *mapping,
			      loff_t pos, unsigned int len, unsigned int copied,
			      EXT2HOLE_WB_PAGE *wb_page, void *fsdata)
{
	struct inode *inode = mapping->host;
	struct folio *folio = page_folio(ext2hole_wb_page(wb_page));
	struct folio *eof = fsdata;
	bool grown = false;
	int ret;

	ret = block_write_end(file, mapping, pos, len, copied, wb_page, fsdata);
	if (pos + ret > inode->i_size) {
		i_size_write(inode, pos + ret);
		grown = true;
	}
	folio_unlock(folio);
	folio_put(folio);
	if (eof) {
		folio_unlock(eof);
		folio_put(eof);
	}
	if (grown)
		mark_inode_dirty(inode);
	if (ret < len)
		ext2hole_write_failed(mapping, pos + len);
	return ret;
}

/*
 * Buffers wholly inside [@offset, @offset + @length) of the folio are
 * discarded (truncate, punch, eviction, a failed write, memory failure):
 * the quota page_mkwrite reserved for the delayed ones goes back first.
 */
static void ext2hole_invalidate_folio(struct folio *folio, size_t offset,
				      size_t length)
{
	struct inode *inode = folio->mapping->host;
	unsigned int bits = inode->i_blkbits;
	loff_t first = folio_pos(folio) + round_up(offset, 1U << bits);
	loff_t stop = folio_pos(folio) + round_down(offset + length, 1U << bits);

	if (first < stop)
		ext2hole_delay_cancel(inode, first >> bits, stop >> bits);
	block_invalidate_folio(folio, offset, length);
}

/*
 * FIBMAP: under mkwrite=noalloc a delayed buffer has no block yet, so the
 * answer would be a hole that later gets data.  Write the file back first,
 * as the kernel's delayed-allocation filesystems do, so swap files and
 * boot loaders never see such a hole.
 */
static sector_t ext2hole_bmap(struct address_space *mapping, sector_t block)
{
	if (mapping_tagged(mapping, PAGECACHE_TAG_DIRTY))
		filemap_write_and_wait(mapping);
	return generic_block_bmap(mapping, block, ext2hole_get_block);
}

/**
 * ext2hole_direct_IO - direct reads and writes
 * @iocb: the I/O control block
 * @iter: the data
 *
 * Every growth of i_size must go through the hole API (holes read as
 * zeros, re-fault after growth: docs/design.md, "Guarantees").  A direct
 * write that ends beyond EOF while EOF lies inside a page would grow the
 * file over the old EOF page from outside the page cache: a store through
 * a mapping of that page, made writable under the old size, could then be
 * written back over the new data, or over the hole.  Such a write returns
 * 0 here, and the VFS does it through the page cache (write_begin above)
 * and writes it back before returning, as it does for direct writes into
 * holes (DIO_SKIP_HOLES).  Direct writes from a page-aligned EOF, and
 * writes inside i_size, stay direct: no page straddles the old EOF.
 * Growth by direct I/O never waits for other direct I/O.
 *
 * Reads map through ext2hole_get_block_dio_read(): a block allocated for
 * data that is still only in the page cache (page_mkwrite under
 * mkwrite=alloc, write_begin, delayed allocation at writeback) reads as
 * the hole it was, never as what the disk holds there.
 *
 * Return: bytes done, 0 to fall back to buffered I/O, or a negative errno.
 */
static ssize_t ext2hole_direct_IO(struct kiocb *iocb, struct iov_iter *iter)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;
	struct inode *inode = mapping->host;
	size_t count = iov_iter_count(iter);
	loff_t offset = iocb->ki_pos;
	loff_t size = i_size_read(inode);
	ssize_t ret;

	if (iov_iter_rw(iter) == WRITE && offset + count > size &&
	    offset_in_page(size)) {
		if (iocb->ki_flags & IOCB_NOWAIT)
			return -EAGAIN;
		return 0;
	}
	ret = blockdev_direct_IO(iocb, inode, iter,
				 iov_iter_rw(iter) == READ ?
				 ext2hole_get_block_dio_read :
				 ext2hole_get_block);
	if (ret < 0 && iov_iter_rw(iter) == WRITE)
		ext2hole_write_failed(mapping, offset + count);
	return ret;
}

const struct address_space_operations ext2hole_aops = {
	.dirty_folio		= block_dirty_folio,
	.invalidate_folio	= ext2hole_invalidate_folio,
	.read_folio		= ext2hole_read_folio,
	.readahead		= ext2hole_readahead,
	.writepage		= ext2hole_writepage,
	.writepages		= ext2hole_aops_writepages,
	.write_begin		= ext2hole_write_begin,
	.write_end		= ext2hole_write_end,
	.bmap			= ext2hole_bmap,
	.direct_IO		= ext2hole_direct_IO,
	.migrate_folio		= buffer_migrate_folio,
	.is_partially_uptodate	= block_is_partially_uptodate,
	EXT2HOLE_AOPS_ERROR_REMOVE,
};
