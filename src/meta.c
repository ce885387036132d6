// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: metadata buffers held until their write is known to be done
 * (docs/design.md, "Metadata whose write failed").
 *
 * Bitmaps, group descriptors, the inode table, indirect blocks, xattr
 * blocks and the quota files' blocks live in buffers of the block device's
 * page cache.  When the write of such a buffer fails, the block layer
 * leaves it clean and !uptodate: memory holds the newest contents, the
 * disk an older copy.  A clean buffer that nobody references can be
 * dropped at any time (invalidate_bdev() in quotaoff, BLKFLSBUF,
 * drop_caches, reclaim), and the next read would bring back the old copy:
 * a bitmap that hands out blocks in use, a block map without its newest
 * pointers.  The write's completion is the block layer's, so the failure
 * cannot be caught as it happens; instead every metadata buffer the
 * filesystem dirties (ext2hole_dirty_meta*()) is pinned (one reference,
 * get_bh(), kept in s_meta_pins by block number) until a pass sees it
 * written, and ext2hole_bread() takes a buffer whose write failed from
 * memory instead of reading the older copy back:
 *
 *   - ext2hole_meta_sync() (->sync_fs with wait) releases the buffers
 *     written without error and dirties again, after
 *     ext2hole_buffer_revalidate(), those whose write failed, so that the
 *     device sync that follows retries them;
 *   - ext2hole_meta_reap() (the superblock shrinker) releases written
 *     buffers under memory pressure, so that pins never hold more than the
 *     metadata dirtied and not yet written, plus what failed;
 *   - ext2hole_meta_forget()/_forget_range() release the buffers of
 *     blocks that are freed, before the bitmap lets them go, so that a
 *     retry never writes over the block's next owner;
 *   - ext2hole_meta_flush() at unmount retries what failed one last time
 *     and releases everything.
 *
 * A referenced buffer keeps its page: try_to_free_buffers() refuses a page
 * with a busy buffer (b_count), so invalidate_mapping_pages() (quotaoff,
 * BLKFLSBUF, drop_caches) and reclaim leave it, on 6.1 and 6.12 alike.
 *
 * Lock order: buffer lock -> s_meta_pins' xa_lock (a spinlock, innermost).
 * A pin is taken after the buffer was marked dirty and a pass releases
 * one only when, under xa_lock, the buffer is clean, uptodate and without
 * a write error; so a buffer dirtied again after a pass looked at it is
 * pinned again before anyone can find it clean.
 */
#include <linux/blkdev.h>
#include <linux/writeback.h>
#include "ext2hole.h"

/*
 * s_meta_pins gets a lockdep class of its own: xa_init() gives every
 * xarray initialised in one file the same class, and the inodes' arrays
 * (src/super.c) are taken in other contexts.
 */
static struct lock_class_key ext2hole_meta_pins_key;

static void ext2hole_dirblk_retry(struct work_struct *work);

/**
 * ext2hole_meta_init - the pins and the retry work of a new superblock
 * @sb: the filesystem being mounted; its ext2hole_sb_info is zeroed
 *
 * Called before anything can be dirtied or freed, so that
 * ext2hole_meta_destroy() may run on every failure of the mount.
 */
void ext2hole_meta_init(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	xa_init(&sbi->s_meta_pins);
	lockdep_set_class(&sbi->s_meta_pins.xa_lock, &ext2hole_meta_pins_key);
	sbi->s_sb = sb;
	INIT_WORK(&sbi->s_dirblk_retry, ext2hole_dirblk_retry);
	ratelimit_state_init(&sbi->s_dirblk_rs, 30 * HZ, 1);
	ratelimit_set_flags(&sbi->s_dirblk_rs, RATELIMIT_MSG_ON_RELEASE);
}

/*
 * A metadata buffer after a failed write.  The block layer leaves such a
 * buffer clean and !uptodate, but memory still holds its newest contents
 * and the disk older ones: reading it again would bring back a stale
 * bitmap or block map (and hand out allocated blocks and inodes twice), and
 * dirtying it again, which rewrites and so repairs it, would WARN.  Keep
 * using the memory copy, as ext4 does (the error stays recorded in the
 * buffer and in the block device's mapping for sync/fsync).  The buffer is
 * pinned from the moment it was dirtied, so the copy stays.
 */
static void ext2hole_buffer_revalidate(struct buffer_head *bh)
{
	if (unlikely(buffer_write_io_error(bh)) && !buffer_uptodate(bh))
		set_buffer_uptodate(bh);
}

/**
 * ext2hole_bread - sb_bread() for metadata that may have failed a write
 * @sb: the filesystem
 * @block: the block number
 *
 * Like sb_bread(), but a buffer whose last write failed is taken from
 * memory instead of being read back stale (see ext2hole_buffer_revalidate).
 *
 * Return: the buffer, uptodate, or NULL on a read error.
 */
struct buffer_head *ext2hole_bread(struct super_block *sb, sector_t block)
{
	struct buffer_head *bh = sb_getblk(sb, block);

	if (unlikely(!bh))
		return NULL;
	ext2hole_buffer_revalidate(bh);
	if (bh_read(bh, 0) < 0) {
		brelse(bh);
		return NULL;
	}
	return bh;
}

/*
 * Take (or keep) the pin of @bh, which the caller marked dirty and holds
 * a reference to.  Never fails: losing a pin would lose the buffer on a
 * later write error, so the xarray node (a small slab object) is
 * allocated __GFP_NOFAIL.
 */
static void ext2hole_meta_pin(struct super_block *sb, struct buffer_head *bh)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	int err;

	get_bh(bh);
	xa_lock(&sbi->s_meta_pins);
	err = __xa_insert(&sbi->s_meta_pins, bh->b_blocknr, bh,
			  GFP_NOFS | __GFP_NOFAIL);
	if (!err)
		sbi->s_meta_pinned++;
	xa_unlock(&sbi->s_meta_pins);
	if (err)
		put_bh(bh);	/* -EBUSY: already pinned */
}

/**
 * ext2hole_dirty_meta - dirty a metadata buffer and pin it
 * @sb: the filesystem
 * @bh: the buffer, which the caller holds (referenced, not locked)
 *
 * The buffer stays pinned in memory until a write of it is seen to
 * succeed.  It is dirtied under its lock, which a write in flight holds
 * until its completion: a write that fails clears the buffer's uptodate
 * bit, and one failing between ext2hole_buffer_revalidate() and
 * mark_buffer_dirty() would leave a dirty !uptodate buffer (and a WARN in
 * mark_buffer_dirty()); waiting for it closes that window.  May sleep.
 */
void ext2hole_dirty_meta(struct super_block *sb, struct buffer_head *bh)
{
	lock_buffer(bh);
	ext2hole_buffer_revalidate(bh);
	mark_buffer_dirty(bh);
	unlock_buffer(bh);
	ext2hole_meta_pin(sb, bh);
}

/**
 * ext2hole_dirty_meta_inode - ext2hole_dirty_meta() for a block of @inode's
 * @bh: the buffer, which the caller holds
 * @inode: the inode whose fsync must write it (an indirect block, the
 *	inode's table block, its xattr block, a quota file's block)
 */
void ext2hole_dirty_meta_inode(struct buffer_head *bh, struct inode *inode)
{
	lock_buffer(bh);
	ext2hole_buffer_revalidate(bh);
	mark_buffer_dirty_inode(bh, inode);
	unlock_buffer(bh);
	ext2hole_meta_pin(inode->i_sb, bh);
}

/*
 * Drop the pin of @bh if it is pinned; true when it was (the caller then
 * owns the pin's reference).  Under xa_lock.
 */
static bool ext2hole_meta_unpin_locked(struct ext2hole_sb_info *sbi,
				       struct buffer_head *bh)
{
	if (xa_load(&sbi->s_meta_pins, bh->b_blocknr) != bh)
		return false;
	__xa_erase(&sbi->s_meta_pins, bh->b_blocknr);
	sbi->s_meta_pinned--;
	return true;
}

/*
 * Written without error and not dirtied again since: the pin may go.  The
 * caller holds the buffer lock (no write in flight) and xa_lock.
 */
static bool ext2hole_meta_written(struct buffer_head *bh)
{
	return !buffer_dirty(bh) && buffer_uptodate(bh) &&
	       !buffer_write_io_error(bh);
}

/* Forget a buffer whose pin the caller owns now; see ext2hole_forget_meta(). */
static void ext2hole_meta_forget_unpinned(struct buffer_head *bh)
{
	/* under the buffer lock: the retry tests and dirties under it */
	lock_buffer(bh);
	clear_buffer_write_io_error(bh);
	unlock_buffer(bh);
	bforget(bh);	/* clears dirty, drops the pin's reference */
}

/**
 * ext2hole_forget_meta - a metadata block leaves the filesystem
 * @sb: the filesystem
 * @bh: its buffer (may be NULL); the caller's reference is dropped
 *
 * The block is freed, or was never spliced in: its buffer loses its dirty
 * state, the mark of a failed write and its pin, so that nothing writes it
 * over the block's next owner.  The caller must not hold the buffer lock.
 */
void ext2hole_forget_meta(struct super_block *sb, struct buffer_head *bh)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	bool pinned;

	if (!bh)
		return;
	xa_lock(&sbi->s_meta_pins);
	pinned = ext2hole_meta_unpin_locked(sbi, bh);
	xa_unlock(&sbi->s_meta_pins);
	if (pinned)
		put_bh(bh);	/* the caller's reference keeps it */
	ext2hole_meta_forget_unpinned(bh);
}

/**
 * ext2hole_meta_forget_range - blocks are being freed: forget their buffers
 * @sb: the filesystem
 * @block: first block
 * @count: number of blocks
 *
 * Called by ext2hole_free_blocks() before the bitmap lets the blocks go,
 * for every freed block, whatever held it: an indirect block (already
 * forgotten by ext2hole_free_range()), an xattr block, or a data block of
 * a quota file, which ext2hole_quota_write() wrote through the block
 * device.  Only pinned buffers are looked at.
 */
void ext2hole_meta_forget_range(struct super_block *sb, unsigned long block,
				unsigned long count)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long index = block;
	struct buffer_head *bh;

	if (!count || !READ_ONCE(sbi->s_meta_pinned))
		return;
	for (;;) {
		xa_lock(&sbi->s_meta_pins);
		bh = xa_find(&sbi->s_meta_pins, &index, block + count - 1,
			     XA_PRESENT);
		if (bh)
			ext2hole_meta_unpin_locked(sbi, bh);
		xa_unlock(&sbi->s_meta_pins);
		if (!bh)
			break;
		ext2hole_meta_forget_unpinned(bh);
		index++;
	}
}

/*
 * The next pinned buffer at or after *@index, with a reference of the
 * caller's own, or NULL.  *@index is left at its block.
 */
static struct buffer_head *ext2hole_meta_next(struct ext2hole_sb_info *sbi,
					      unsigned long *index)
{
	struct buffer_head *bh;

	xa_lock(&sbi->s_meta_pins);
	bh = xa_find(&sbi->s_meta_pins, index, ULONG_MAX, XA_PRESENT);
	if (bh)
		get_bh(bh);
	xa_unlock(&sbi->s_meta_pins);
	return bh;
}

/*
 * Release @bh's pin if it has been written.  The caller holds the buffer
 * lock and a reference.  Returns true when the pin went.
 */
static bool ext2hole_meta_release_written(struct ext2hole_sb_info *sbi,
					  struct buffer_head *bh)
{
	bool pinned = false;

	xa_lock(&sbi->s_meta_pins);
	if (ext2hole_meta_written(bh))
		pinned = ext2hole_meta_unpin_locked(sbi, bh);
	xa_unlock(&sbi->s_meta_pins);
	if (pinned)
		put_bh(bh);
	return pinned;
}

/**
 * ext2hole_meta_sync - release written metadata, retry what failed
 * @sb: the filesystem
 *
 * ->sync_fs(wait) calls it before the block device sync (in sync(2),
 * syncfs(2), quotaoff, freeze, remount and umount).  Every pinned buffer
 * is looked at under its lock (waiting for a write in flight): written
 * without error, it is released; its write failed, it is made uptodate
 * from memory and dirtied again (unless a later change dirtied it
 * already), so the device sync retries it.  A write
 * error the device recorded since the last pass and seen here is a
 * filesystem error, handled by errors= (as the ext4 driver does without a
 * journal): the on-disk metadata is older than memory's until the retry
 * succeeds, and e2fsck must check it if that never happens.
 */
void ext2hole_meta_sync(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct address_space *mapping = ext2hole_bdev_mapping(sb);
	unsigned long index = 0, requeued = 0;
	struct buffer_head *bh;
	int err;

	spin_lock(&sbi->s_lock);
	err = errseq_check_and_advance(&mapping->wb_err, &sbi->s_meta_wb_err);
	spin_unlock(&sbi->s_lock);

	while ((bh = ext2hole_meta_next(sbi, &index))) {
		lock_buffer(bh);
		if (buffer_write_io_error(bh) &&
		    xa_load(&sbi->s_meta_pins, index) == bh) {
			/*
			 * forget takes the buffer lock too: still ours.  A
			 * buffer dirtied again since its write failed (another
			 * change to the block) is queued already; it counts as
			 * a failure found all the same.
			 */
			set_buffer_uptodate(bh);
			clear_buffer_write_io_error(bh);
			if (!buffer_dirty(bh))
				mark_buffer_dirty(bh);
			requeued++;
		} else {
			ext2hole_meta_release_written(sbi, bh);
		}
		unlock_buffer(bh);
		put_bh(bh);
		index++;
		cond_resched();
	}
	if (!requeued)
		return;
	if (err)
		ext2hole_error(sb, "%lu metadata block(s) failed to write: kept in memory, queued to be written again",
			       requeued);
	else
		ext2hole_msg(sb, KERN_WARNING,
			     "%lu metadata block(s) whose write failed queued to be written again",
			     requeued);
}

/**
 * ext2hole_meta_count - pinned metadata buffers (->nr_cached_objects)
 * @sb: the filesystem
 */
long ext2hole_meta_count(struct super_block *sb)
{
	return READ_ONCE(EXT2HOLE_SB(sb)->s_meta_pinned);
}

/**
 * ext2hole_meta_reap - release written metadata (->free_cached_objects)
 * @sb: the filesystem
 * @nr: buffers to look at
 *
 * Called by the superblock shrinker under memory pressure.  Looks at up to
 * @nr pinned buffers from where the last call stopped, without sleeping
 * (a locked buffer is being written or changed: left for later), and
 * releases those written without error, whose pages reclaim may then
 * take.  Buffers whose write failed keep their pins.
 *
 * Return: the buffers released.
 */
long ext2hole_meta_reap(struct super_block *sb, long nr)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long index = sbi->s_meta_reap_next;
	struct buffer_head *bh;
	long freed = 0;
	bool wrapped = false;

	while (nr-- > 0) {
		bool pinned = false;

		xa_lock(&sbi->s_meta_pins);
		bh = xa_find(&sbi->s_meta_pins, &index, ULONG_MAX, XA_PRESENT);
		if (bh && trylock_buffer(bh)) {
			if (ext2hole_meta_written(bh))
				pinned = ext2hole_meta_unpin_locked(sbi, bh);
			unlock_buffer(bh);
		}
		xa_unlock(&sbi->s_meta_pins);
		if (pinned) {
			put_bh(bh);
			freed++;
		}
		if (!bh) {
			if (wrapped || !index)
				break;
			wrapped = true;
			index = 0;
			continue;
		}
		index++;
	}
	sbi->s_meta_reap_next = index;
	return freed;
}

/**
 * ext2hole_meta_flush - unmount: last retry, then release every pin
 * @sb: the filesystem
 *
 * Dirties again what failed, writes the block device, and releases every
 * pinned buffer.  A buffer whose write still fails is lost: it is reported
 * and the filesystem is marked as having errors, for e2fsck.  Runs on a
 * read-only filesystem too (one that errors=remount-ro turned read-only
 * still holds the metadata whose write failed before).
 */
void ext2hole_meta_flush(struct super_block *sb)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	unsigned long index = 0, lost = 0;
	struct buffer_head *bh;

	if (!READ_ONCE(sbi->s_meta_pinned))
		return;
	while ((bh = ext2hole_meta_next(sbi, &index))) {
		lock_buffer(bh);
		if (!buffer_dirty(bh) && buffer_write_io_error(bh)) {
			set_buffer_uptodate(bh);
			clear_buffer_write_io_error(bh);
			mark_buffer_dirty(bh);
		}
		unlock_buffer(bh);
		put_bh(bh);
		index++;
	}
	sync_blockdev(sb->s_bdev);

	index = 0;
	while ((bh = ext2hole_meta_next(sbi, &index))) {
		bool pinned;

		lock_buffer(bh);
		if (buffer_write_io_error(bh) || !buffer_uptodate(bh)) {
			/* the memory copy goes: nothing may take it as newest */
			clear_buffer_write_io_error(bh);
			lost++;
		}
		xa_lock(&sbi->s_meta_pins);
		pinned = ext2hole_meta_unpin_locked(sbi, bh);
		xa_unlock(&sbi->s_meta_pins);
		unlock_buffer(bh);
		if (pinned)
			put_bh(bh);
		put_bh(bh);
		index++;
	}
	if (lost) {
		ext2hole_msg(sb, KERN_ERR,
			     "%lu metadata block(s) still failing to write at unmount, newest contents dropped: run e2fsck",
			     lost);
		spin_lock(&sbi->s_lock);
		sbi->s_mount_state |= EXT2HOLE_ERROR_FS;
		sbi->s_es->s_state |= cpu_to_le16(EXT2HOLE_ERROR_FS);
		spin_unlock(&sbi->s_lock);
	}
}

/**
 * ext2hole_meta_destroy - drop what is still pinned, without writing
 * @sbi: the in-memory superblock being freed
 *
 * After ext2hole_meta_flush() nothing is left; a failed mount never pinned
 * anything.  Kept as the last word so that no reference can leak.
 */
void ext2hole_meta_destroy(struct ext2hole_sb_info *sbi)
{
	struct buffer_head *bh;
	unsigned long index;

	xa_for_each(&sbi->s_meta_pins, index, bh)
		put_bh(bh);
	xa_destroy(&sbi->s_meta_pins);
	sbi->s_meta_pinned = 0;
}

/*
 * Directory and slow-symlink blocks whose write failed.
 *
 * These blocks live in their inode's own page cache, not in pinned
 * buffers.  The kernel's completion of a failed write
 * (end_buffer_async_write()) leaves the buffer clean and !uptodate and the
 * page clean: reclaim or drop_caches may then drop the page, and the next
 * read brings the block back as it was (an entry made since is lost, one
 * removed comes back naming a freed inode); a change to the page before
 * that would first read the !uptodate block from disk, over the newer
 * entries.  The hole layer's writeback (src/hole.c) asks
 * ext2hole_hole_write_failed(), its hole_operations.write_failed, before
 * it completes a failed write, and ext2hole_dirblk_retry() queues these
 * blocks again.
 */

/**
 * ext2hole_hole_write_failed - a block's write failed: keep it?
 * @bh: the buffer, locked and marked for async write, its page under
 *	writeback
 *
 * The hole layer's write_failed (include/hole.h), called from the
 * completion of a failed writeback bio before the buffer's b_end_io.
 * For a directory or slow symlink: yes.  The buffer stays uptodate (memory
 * holds the newest contents) and dirty: try_to_free_buffers() refuses a
 * page with a dirty buffer, so neither reclaim nor invalidation drops it.
 * The error goes to the mapping's and the filesystem's errseq (fsync,
 * syncfs), the inode is marked and the retry work queued: the page itself
 * cannot be dirtied from here (this may run in interrupt context).  A
 * regular file's block is left to the kernel's handling, as the kernel's
 * filesystems do.
 */
bool ext2hole_hole_write_failed(struct buffer_head *bh)
{
	struct inode *inode = bh->b_page->mapping->host;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(inode->i_sb);

	if (!S_ISDIR(inode->i_mode) && !S_ISLNK(inode->i_mode))
		return false;
	mark_buffer_write_io_error(bh);
	set_buffer_dirty(bh);
	set_bit(EXT2HOLE_DIR_WRITE_FAILED, &EXT2HOLE_I(inode)->i_dir_state);
	atomic_long_inc(&sbi->s_dirblk_failed);
	queue_work(system_wq, &sbi->s_dirblk_retry);
	return true;
}

/*
 * Dirty again the pages of @inode that hold a block whose write failed
 * (a dirty buffer on a clean page, see above), so that writeback retries
 * them.  Returns how many were.
 */
static unsigned long ext2hole_dirblk_requeue(struct inode *inode)
{
	struct address_space *mapping = inode->i_mapping;
	pgoff_t index, end = DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);
	unsigned long requeued = 0;

	for (index = 0; index < end; index++) {
		struct page *page = find_lock_page(mapping, index);
		struct buffer_head *head, *bh;
		bool failed = false;

		if (!page)
			continue;
		if (page_has_buffers(page) && !PageDirty(page) &&
		    !PageWriteback(page)) {
			head = bh = page_buffers(page);
			do {
				if (buffer_dirty(bh) &&
				    buffer_write_io_error(bh)) {
					clear_buffer_write_io_error(bh);
					failed = true;
				}
			} while ((bh = bh->b_this_page) != head);
		}
		if (failed) {
			/* the page only: its other buffers stay clean */
			filemap_dirty_folio(mapping, page_folio(page));
			requeued++;
		}
		unlock_page(page);
		put_page(page);
		cond_resched();
	}
	return requeued;
}

/**
 * ext2hole_dirblk_retry - queue again the directory blocks whose write
 * failed
 * @work: the filesystem's s_dirblk_retry
 *
 * Walks the filesystem's inodes for those marked by
 * ext2hole_hole_write_failed() and dirties their failed pages again; then
 * reports the failure as a filesystem error (ERROR_FS, then errors=), as
 * ext2hole_meta_sync() does for metadata, at most every 30 seconds while
 * the device keeps failing.  A page still failing when the
 * filesystem is unmounted is dropped with its inode; the error mark makes
 * e2fsck check the image.
 */
static void ext2hole_dirblk_retry(struct work_struct *work)
{
	struct ext2hole_sb_info *sbi = container_of(work, struct ext2hole_sb_info,
						    s_dirblk_retry);
	struct super_block *sb = sbi->s_sb;
	struct inode *inode, *put = NULL;
	unsigned long failed, requeued = 0;

	failed = atomic_long_xchg(&sbi->s_dirblk_failed, 0);
	if (!failed)
		return;
	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

		if (!test_bit(EXT2HOLE_DIR_WRITE_FAILED, &ei->i_dir_state))
			continue;
		/*
		 * A removed directory's blocks need no retry; skipping it also
		 * keeps this work from holding the last reference of an
		 * unlinked inode, whose eviction waits for a frozen
		 * filesystem (sb_start_intwrite) while sync_fs waits for
		 * this work.
		 */
		spin_lock(&inode->i_lock);
		if ((inode->i_state & (I_FREEING | I_WILL_FREE | I_NEW)) ||
		    !inode->i_nlink) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		__iget(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&sb->s_inode_list_lock);
		iput(put);
		put = inode;

		clear_bit(EXT2HOLE_DIR_WRITE_FAILED, &ei->i_dir_state);
		requeued += ext2hole_dirblk_requeue(inode);

		spin_lock(&sb->s_inode_list_lock);
	}
	spin_unlock(&sb->s_inode_list_lock);
	iput(put);

	/* the first report marks the filesystem; a failing device repeats */
	if (__ratelimit(&sbi->s_dirblk_rs))
		ext2hole_error(sb, "%lu directory or symlink block write(s) failed: %lu page(s) kept in memory, queued to be written again",
			       failed, requeued);
}

/**
 * ext2hole_dirblk_flush - run the retry work now, and wait for it
 * @sb: the filesystem
 *
 * ->sync_fs with wait (after the writeback it waited for, so that every
 * failure is counted) and ->put_super (nothing is left queued when the
 * filesystem goes).
 */
void ext2hole_dirblk_flush(struct super_block *sb)
{
	flush_work(&EXT2HOLE_SB(sb)->s_dirblk_retry);
}
