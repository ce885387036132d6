// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: address space operations of regular files, directories and
 * slow symlinks.  Reads go through mpage; writeback is the new-style one
 * of src/hole.c (never mpage_writepages(), whose fallback zeroes past EOF);
 * write_begin/write_end bracket growth with the hole API.
 */
#include <linux/fs.h>
#include <linux/buffer_head.h>
#include <linux/mpage.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/uio.h>
#include "ext2hole.h"

static int ext2hole_read_folio(struct file *file, struct folio *folio)
{
	return mpage_read_folio(folio, ext2hole_get_block);
}

static void ext2hole_readahead(struct readahead_control *rac)
{
	mpage_readahead(rac, ext2hole_get_block);
}

static int ext2hole_writepage(struct page *page, struct writeback_control *wbc)
{
	return ext2hole_write_full_page(page, ext2hole_get_block, wbc);
}

static int ext2hole_aops_writepages(struct address_space *mapping,
				    struct writeback_control *wbc)
{
	return ext2hole_writepages(mapping, wbc, ext2hole_get_block);
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

/*
 * A write starting beyond EOF creates a hole: prepare it first.  For
 * regular files write_iter has already grown i_size to pos under the
 * invalidate lock (see file.c), so this only defends other callers.
 */
static int ext2hole_write_begin(struct file *file,
				struct address_space *mapping, loff_t pos,
				unsigned int len, struct page **pagep,
				void **fsdata)
{
	struct inode *inode = mapping->host;
	loff_t size = i_size_read(inode);
	int err;

	if (pos > size) {
		err = ext2hole_prepare_hole(inode, size, pos,
					    ext2hole_get_block);
		if (err)
			return err;
	}
	err = block_write_begin(mapping, pos, len, pagep, ext2hole_get_block);
	if (err < 0)
		ext2hole_write_failed(mapping, pos + len);
	return err;
}

static int ext2hole_write_end(struct file *file, struct address_space *mapping,
			      loff_t pos, unsigned int len, unsigned int copied,
			      struct page *page, void *fsdata)
{
	struct inode *inode = mapping->host;
	loff_t old_size = inode->i_size;
	int ret;

	ret = generic_write_end(file, mapping, pos, len, copied, page, fsdata);
	/*
	 * Only a write that started beyond the old EOF made blocks of the old
	 * EOF page valid without mapping them (the seed's condition).  A write
	 * from inside the file mapped every block it made valid in
	 * write_begin, so an append pays no page lookup or rmap walk here.
	 */
	if (old_size < pos)
		ext2hole_finish_hole(inode, old_size, pos);
	if (ret < len)
		ext2hole_write_failed(mapping, pos + len);
	return ret;
}

static sector_t ext2hole_bmap(struct address_space *mapping, sector_t block)
{
	return generic_block_bmap(mapping, block, ext2hole_get_block);
}

/*
 * Direct I/O keeps G2: a direct write beyond EOF is preceded by the same
 * extension as a buffered one (file.c's write_iter grows i_size through
 * ext2hole_setsize first), and blocks inside i_size that are holes are not
 * allocated by direct I/O (DIO_SKIP_HOLES): such writes fall back to the
 * buffered path.
 */
static ssize_t ext2hole_direct_IO(struct kiocb *iocb, struct iov_iter *iter)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;
	size_t count = iov_iter_count(iter);
	loff_t offset = iocb->ki_pos;
	ssize_t ret;

	ret = blockdev_direct_IO(iocb, mapping->host, iter, ext2hole_get_block);
	if (ret < 0 && iov_iter_rw(iter) == WRITE)
		ext2hole_write_failed(mapping, offset + count);
	return ret;
}

const struct address_space_operations ext2hole_aops = {
	.dirty_folio		= block_dirty_folio,
	.invalidate_folio	= block_invalidate_folio,
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
	.error_remove_page	= generic_error_remove_page,
};
