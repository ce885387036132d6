/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module-private hole API (docs/design.md, "The hole API"): the
 * semantics of Jan Kara's "better mmaps when blocksize < pagesize" series,
 * for the 6.1 API.
 * It knows nothing of the on-disk format: callers hand it a get_block.
 */
#ifndef _EXT2HOLE_HOLE_H
#define _EXT2HOLE_HOLE_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/buffer_head.h>
#include <linux/writeback.h>

/**
 * enum ext2hole_mkwrite_policy - what page_mkwrite does (mount option mkwrite=)
 * @EXT2HOLE_MKWRITE_ALLOC: allocate the blocks under the page at the fault (default)
 * @EXT2HOLE_MKWRITE_NOALLOC: mark unmapped buffers delayed; allocate at writeback
 */
enum ext2hole_mkwrite_policy {
	EXT2HOLE_MKWRITE_ALLOC = 0,
	EXT2HOLE_MKWRITE_NOALLOC = 1,
};

/**
 * struct ext2hole_hole_stats - per-superblock counters of the hole API
 *
 * Shown in /sys/fs/ext2hole/<dev>/.  All are monotonic since mount.
 */
struct ext2hole_hole_stats {
	atomic64_t holes_prepared;	/* prepare_hole calls that zeroed something */
	atomic64_t pages_wrprotected;	/* finish_hole folio_mkclean calls */
	atomic64_t mkwrite_alloc;	/* page_mkwrite calls, alloc policy */
	atomic64_t mkwrite_noalloc;	/* page_mkwrite calls, noalloc policy */
	atomic64_t mkwrite_enospc;	/* page_mkwrite failures by errno */
	atomic64_t mkwrite_edquot;
	atomic64_t mkwrite_eio;
	atomic64_t mkwrite_other;
	atomic64_t pages_written;	/* pages submitted by write_full_page */
	atomic64_t delayed_mapped;	/* delayed buffers mapped at writeback */
	atomic64_t writeback_errors;	/* write_full_page errors */
	atomic64_t bios_submitted;	/* write bios of writeback, every path */
	atomic64_t pages_bio;		/* pages written whole, in a multi-block bio */
	atomic64_t dio_pending;		/* O_DIRECT read mappings cut at a block whose data is not on disk yet */
};

/* hole.c */
int ext2hole_hole_init(void);
void ext2hole_hole_exit(void);
int ext2hole_prepare_hole(struct inode *inode, loff_t from, loff_t to,
			  get_block_t *get_block);
struct buffer_head *ext2hole_page_block(struct inode *inode, struct page *page,
					loff_t pos, get_block_t *get_block);
int ext2hole_prepare_hole_page(struct inode *inode, struct page *page,
			       loff_t from, loff_t to, get_block_t *get_block);
void ext2hole_finish_hole(struct inode *inode, loff_t from, loff_t to);
vm_fault_t ext2hole_noalloc_page_mkwrite(struct vm_fault *vmf,
					 get_block_t *get_block);
vm_fault_t ext2hole_alloc_page_mkwrite(struct vm_fault *vmf,
				       get_block_t *get_block);
int ext2hole_write_full_page(struct page *page, get_block_t *get_block,
			     struct writeback_control *wbc);
int ext2hole_writepages(struct address_space *mapping,
			struct writeback_control *wbc, get_block_t *get_block);

/*
 * Provided by the filesystem (super.c): the counters of the superblock
 * an inode lives on, so that the hole API needs no knowledge of sb_info.
 */
struct ext2hole_hole_stats *ext2hole_hole_stats(struct super_block *sb);

/*
 * Provided by the filesystem (inode.c): the write bio of @bh, a buffer of
 * a page under writeback, completed without error, so its block now holds
 * the file's data.  Called from bio completion (any context, interrupts
 * included) before the buffer's b_end_io, so the page is still under
 * writeback: its mapping and inode are stable.
 */
void ext2hole_hole_written(struct buffer_head *bh);

/*
 * Provided by the filesystem (meta.c): the write bio of @bh, as above,
 * failed.  True when the filesystem keeps the block's contents: @bh is
 * then completed as written (uptodate), the filesystem having kept it
 * dirty and recorded the error itself; false for the kernel's handling
 * (the buffer !uptodate, write_io_error, the mapping's errseq).  Any
 * context, like ext2hole_hole_written().
 */
bool ext2hole_hole_write_failed(struct buffer_head *bh);

/*
 * Provided by the filesystem (inode.c): delayed blocks [@first, @end) of
 * @inode will not be allocated for the page cache after all (their page
 * is dropped, the fault that delayed them failed, or they lie beyond
 * EOF): give back what page_mkwrite's get_block reserved for them.
 * Blocks without a reservation are skipped.  May sleep; called with no
 * lock of the block map held (a page of the file may be locked).
 */
void ext2hole_delay_cancel(struct inode *inode, sector_t first, sector_t end);

#endif /* _EXT2HOLE_HOLE_H */
