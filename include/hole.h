/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hole layer (docs/design.md, "The hole API"): the semantics of Jan
 * Kara's "better mmaps when blocksize < pagesize" series, for the 6.1 API.
 * Its names carry the prefix hole_, as fs/buffer.c names its own block_*;
 * the filesystem's wrappers around it keep the ext2hole_ prefix.
 *
 * It knows nothing of the on-disk format nor of the filesystem's in-memory
 * state: callers hand it a get_block, and the filesystem registers once,
 * at hole_init(), the few callbacks the layer needs (struct
 * hole_operations).
 */
#ifndef _EXT2HOLE_HOLE_H
#define _EXT2HOLE_HOLE_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/buffer_head.h>
#include <linux/writeback.h>

/**
 * struct hole_stats - per-superblock counters of the hole layer
 *
 * Kept by the filesystem (one per superblock, found through
 * hole_operations.stats) and shown in /sys/fs/ext2hole/<dev>/.  All are
 * monotonic since mount.
 */
struct hole_stats {
	atomic64_t holes_prepared;	/* hole_prepare*() calls that zeroed something */
	atomic64_t pages_wrprotected;	/* pages hole_finish() write-protected */
	atomic64_t mkwrite_alloc;	/* page_mkwrite calls, alloc policy */
	atomic64_t mkwrite_noalloc;	/* page_mkwrite calls, noalloc policy */
	atomic64_t mkwrite_run_blocks;	/* blocks alloc's page_mkwrite mapped in runs */
	atomic64_t mkwrite_enospc;	/* page_mkwrite failures by errno */
	atomic64_t mkwrite_edquot;
	atomic64_t mkwrite_eio;
	atomic64_t mkwrite_other;
	atomic64_t pages_written;	/* pages submitted by writeback */
	atomic64_t delayed_mapped;	/* delayed buffers mapped at writeback */
	atomic64_t writeback_errors;	/* writeback errors, per page */
	atomic64_t bios_submitted;	/* write bios of writeback, every path */
	atomic64_t pages_bio;		/* folios written whole, in runs */
};

/**
 * struct hole_operations - what the filesystem provides to the hole layer
 * @stats: the counters of the superblock @sb.  Called once per call of
 *	an entry point (a fault, a hole prepared or finished, a writeback
 *	call); must not sleep.
 * @written: the write bio of @bh, a buffer of a page under writeback,
 *	completed without error, so its block now holds the file's data.
 *	Called from bio completion (any context, interrupts included)
 *	before the buffer's b_end_io, so the page is still under writeback:
 *	its mapping and inode are stable.
 * @write_failed: the write bio of @bh, as above, failed.  True when the
 *	filesystem keeps the block's contents: @bh is then completed as
 *	written (uptodate), the filesystem having kept it dirty and recorded
 *	the error itself; false for the kernel's handling (the buffer
 *	!uptodate, write_io_error, the mapping's errseq).  Any context, like
 *	@written.
 * @delay_cancel: delayed blocks [@first, @end) of @inode will not be
 *	allocated for the page cache after all (the fault that delayed them
 *	failed, or they lie beyond EOF at writeback): give back what
 *	page_mkwrite's get_block reserved for them.  Blocks without a
 *	reservation are skipped.  May sleep; called with no lock of the
 *	block map held (a page of the file may be locked).
 *
 * All four are mandatory.  The layer keeps a copy, made at hole_init().
 */
struct hole_operations {
	struct hole_stats *(*stats)(struct super_block *sb);
	void (*written)(struct buffer_head *bh);
	bool (*write_failed)(struct buffer_head *bh);
	void (*delay_cancel)(struct inode *inode, sector_t first, sector_t end);
};

int hole_init(const struct hole_operations *ops);
void hole_exit(void);
int hole_prepare(struct inode *inode, loff_t from, loff_t to,
		 get_block_t *get_block);
int hole_zero_block(struct inode *inode, loff_t from, loff_t to,
		    get_block_t *get_block);
struct buffer_head *hole_folio_block(struct inode *inode, struct folio *folio,
				     loff_t pos, get_block_t *get_block);
int hole_prepare_folio(struct inode *inode, struct folio *folio,
		       loff_t from, loff_t to, get_block_t *get_block);
bool hole_wrprotect(struct inode *inode, loff_t pos);
void hole_finish(struct inode *inode, loff_t from, loff_t to);
vm_fault_t hole_noalloc_page_mkwrite(struct vm_fault *vmf,
				     get_block_t *get_block);
vm_fault_t hole_alloc_page_mkwrite(struct vm_fault *vmf,
				   get_block_t *get_block);
int hole_write_full_page(struct folio *folio, get_block_t *get_block,
			 struct writeback_control *wbc);
int hole_writepages(struct address_space *mapping,
		    struct writeback_control *wbc, get_block_t *get_block);

#endif /* _EXT2HOLE_HOLE_H */
