// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole directories: blocks, entries, the linear lookup and readdir.
 *
 * A directory's blocks live in its own page cache, mapped through
 * ext2hole_aops and ext2hole_get_block like a regular file's.  A block
 * holds a chain of entries whose rec_len fields add up to the block size
 * exactly; an entry with inode 0 is unused space.  Every page is validated
 * once, when it is first read (PageChecked); after that only this file
 * changes it, under the directory's i_rwsem and the page lock, and always
 * leaves it valid: src/index.c writes through ext2hole_write_entry() and
 * ext2hole_dir_write_block().
 *
 * A directory's page cache never uses highmem (inode_nohighmem() where the
 * inode is set up), so page_address() is its mapping: an entry pointer
 * handed out by ext2hole_find_entry() or ext2hole_dotdot() stays valid for
 * as long as the caller holds the page, until ext2hole_put_dir_page().
 *
 * Indexed (dir_index, "htree") directories are src/index.c's: a lookup
 * or an add goes through the index when there is a usable one, and falls
 * back to the linear walk here when ext2hole_dx_find() or
 * ext2hole_dx_add_link() says so.  To a linear reader the index blocks
 * look like '.', '..' and single unused entries, so rmdir's emptiness
 * check and a directory whose index is found inconsistent use the linear
 * walk.  An entry placed by the linear scan in an indexed directory (its
 * index full or unusable) clears EXT2HOLE_INDEX_FL: the directory is
 * linear from then on, which e2fsck accepts (e2fsck -fD re-indexes).  A
 * linear directory of one block with no room left for a new name is
 * indexed first (ext2hole_dx_make_indexed()).  readdir goes in hash order
 * where the index code says so (ext2hole_rd_hashed()), by byte offsets
 * otherwise (ext2hole_readdir_linear()).
 *
 * Locking: the directory's i_rwsem (exclusive for a change, shared for
 * a lookup or readdir) -> one directory page lock at a time (a change)
 * -> i_map_mutex (get_block, under ext2hole_prepare_chunk()).
 */
#include <linux/highmem.h>
#include <linux/iversion.h>
#include <linux/pagemap.h>
#include "ext2hole.h"
#include "dir.h"

/*
 * Offset in page @n of @dir just past its last byte (i_size clipped to the
 * page).  Only called for pages that start at or below i_size.
 */
unsigned int ext2hole_last_byte(struct inode *dir, unsigned long n)
{
	loff_t last = dir->i_size - ((loff_t)n << PAGE_SHIFT);

	if (last > PAGE_SIZE)
		return PAGE_SIZE;
	return last < 0 ? 0 : last;
}

/**
 * ext2hole_dir_npages - number of page cache pages a directory spans
 * @dir: the directory
 * @npages: where to store it
 *
 * A directory has no holes, so its size is covered by its i_blocks; a size
 * beyond that is corruption and is refused here, before a huge i_size makes
 * a lookup walk millions of empty pages.
 *
 * Return: 0 or -EFSCORRUPTED.
 */
int ext2hole_dir_npages(struct inode *dir, unsigned long *npages)
{
	u64 covered = (u64)dir->i_blocks << 9;

	if (dir->i_size < 0 || (u64)dir->i_size > covered) {
		ext2hole_error(dir->i_sb,
			       "directory #%lu: size %lld exceeds its %llu blocks",
			       dir->i_ino, dir->i_size,
			       (unsigned long long)dir->i_blocks);
		*npages = 0;
		return -EFSCORRUPTED;
	}
	*npages = dir_pages(dir);
	return 0;
}

/*
 * ext2hole_check_block - validate the entries of one directory block
 * @dir: the directory
 * @kaddr: the mapped page
 * @start: offset of the block in the page
 * @pos: byte position of the page in the directory
 * @quiet: do not report what is wrong
 *
 * Return: true when every entry is sound.
 */
bool ext2hole_check_block(struct inode *dir, char *kaddr, unsigned int start,
			  loff_t pos, bool quiet)
{
	struct super_block *sb = dir->i_sb;
	unsigned int end = start + ext2hole_chunk_size(dir);
	u32 max_ino = EXT2HOLE_SB(sb)->s_inodes_count;
	bool filetype = ext2hole_has_filetype(sb);
	struct ext2hole_dir_entry *de = NULL;
	unsigned int offs, rec_len = 0;
	const char *what;

	for (offs = start; offs < end; offs += rec_len) {
		de = (struct ext2hole_dir_entry *)(kaddr + offs);
		rec_len = ext2hole_rec_len(de);

		if (unlikely(rec_len < EXT2HOLE_DIR_REC_LEN(1))) {
			what = "rec_len is smaller than minimal";
			goto bad;
		}
		if (unlikely(rec_len & 3)) {
			what = "unaligned directory entry";
			goto bad;
		}
		if (unlikely(!filetype && de->file_type)) {
			what = "name_len is too large";
			goto bad;
		}
		if (unlikely(rec_len < EXT2HOLE_DIR_REC_LEN(de->name_len))) {
			what = "rec_len is too small for name_len";
			goto bad;
		}
		if (unlikely(rec_len > end - offs)) {
			what = "directory entry across blocks";
			goto bad;
		}
		/* The next entry, if any, must have room for its header. */
		if (unlikely(rec_len != end - offs &&
			     end - offs - rec_len < EXT2HOLE_DIR_REC_LEN(1))) {
			what = "block does not end with an entry";
			goto bad;
		}
		if (unlikely(le32_to_cpu(de->inode) > max_ino)) {
			what = "inode out of bounds";
			goto bad;
		}
		if (de->inode &&
		    unlikely(!de->name_len ||
			     memchr(de->name, '/', de->name_len) ||
			     memchr(de->name, '\0', de->name_len))) {
			what = "illegal name";
			goto bad;
		}
	}
	return true;

bad:
	if (!quiet)
		ext2hole_error(sb,
			       "bad entry in directory #%lu: %s - offset=%llu, inode=%u, rec_len=%d, name_len=%d",
			       dir->i_ino, what, (unsigned long long)(pos + offs),
			       le32_to_cpu(de->inode), rec_len, de->name_len);
	return false;
}

/*
 * ext2hole_check_page - validate every block of a freshly read page
 *
 * Sets PageChecked when the page is sound.  A corrupt page is checked (and
 * reported) again on its next use, as ext2 does: PG_error is gone in 6.12.
 */
static bool ext2hole_check_page(struct page *page, char *kaddr)
{
	struct inode *dir = page->mapping->host;
	unsigned int chunk = ext2hole_chunk_size(dir);
	loff_t pos = page_offset(page);
	unsigned int limit = PAGE_SIZE;
	unsigned int offs;

	if ((dir->i_size >> PAGE_SHIFT) == page->index) {
		limit = dir->i_size & ~PAGE_MASK;
		if (limit & (chunk - 1)) {
			ext2hole_error(dir->i_sb,
				       "size of directory #%lu is not a multiple of the block size (%lld)",
				       dir->i_ino, dir->i_size);
			return false;
		}
	}
	for (offs = 0; offs < limit; offs += chunk)
		if (!ext2hole_check_block(dir, kaddr, offs, pos, false))
			return false;
	SetPageChecked(page);
	return true;
}

/**
 * ext2hole_put_dir_page - release a page from ext2hole_find_entry() & co.
 * @page: the page (referenced)
 */
void ext2hole_put_dir_page(struct page *page)
{
	put_page(page);
}

/*
 * ext2hole_read_dir_page - read page @n of @dir, map it and validate it
 *
 * Returns the page even when it is corrupt: *@ok says whether it is sound.
 */
struct page *ext2hole_read_dir_page(struct inode *dir, unsigned long n,
				    bool *ok)
{
	struct page *page = read_mapping_page(dir->i_mapping, n, NULL);

	if (IS_ERR(page))
		return page;
	*ok = true;
	if (unlikely(!PageChecked(page)))
		*ok = ext2hole_check_page(page, page_address(page));
	return page;
}

/* Page @n of @dir, mapped; -EFSCORRUPTED when it is not sound. */
static struct page *ext2hole_get_dir_page(struct inode *dir, unsigned long n)
{
	struct page *page;
	bool ok;

	page = ext2hole_read_dir_page(dir, n, &ok);
	if (!IS_ERR(page) && !ok) {
		ext2hole_put_dir_page(page);
		return ERR_PTR(-EFSCORRUPTED);
	}
	return page;
}

static int ext2hole_prepare_chunk(struct page *page, loff_t pos,
				  unsigned int len)
{
	return __block_write_begin(ext2hole_page_wb(page), pos, len,
				   ext2hole_get_block);
}

/*
 * Prepare the chunk a new entry or a whole block goes to, in the locked
 * page @page; on failure unlock and release the page and, for an @append
 * at i_size, free what the failed allocation (ENOSPC...) left past it.
 */
static int ext2hole_prepare_fill(struct inode *dir, struct page *page,
				 loff_t pos, unsigned int len, bool append)
{
	int err = ext2hole_prepare_chunk(page, pos, len);

	if (err) {
		unlock_page(page);
		ext2hole_put_dir_page(page);
		if (append)
			ext2hole_write_failed(dir->i_mapping, pos + len);
	}
	return err;
}

/*
 * ext2hole_commit_chunk - finish a change made after ext2hole_prepare_chunk()
 *
 * Dirties the buffers, grows i_size when the chunk was appended and
 * unlocks the page.  Nothing is written here, not even in a DIRSYNC
 * directory: a namespace operation makes all its changes first and then
 * calls ext2hole_dir_sync(), so that a failed write never leaves it half
 * done in memory.
 */
static void ext2hole_commit_chunk(struct page *page, loff_t pos,
				  unsigned int len)
{
	struct address_space *mapping = page->mapping;
	struct inode *dir = mapping->host;

	inode_inc_iversion(dir);
	block_write_end(NULL, mapping, pos, len, len,
			ext2hole_page_wb(page), NULL);
	if (pos + len > dir->i_size) {
		i_size_write(dir, pos + len);
		mark_inode_dirty(dir);
	}
	unlock_page(page);
}

/**
 * ext2hole_dir_sync - the DIRSYNC write at the end of a namespace change
 * @dir: a directory the operation changed
 *
 * In a DIRSYNC directory, writes its pages and its inode and waits for
 * them.  The operation is complete in memory by then and stands whatever
 * the write gives: a directory block whose write fails stays dirty in
 * memory, is written again and is reported as a filesystem error
 * (ext2hole_hole_write_failed()).  Failing the operation instead would
 * leave memory, the later retry and the link counts disagreeing: a name
 * added, its inode freed.  The ext4 driver likewise does not fail a
 * namespace operation whose DIRSYNC journal commit fails.
 */
void ext2hole_dir_sync(struct inode *dir)
{
	if (!IS_DIRSYNC(dir))
		return;
	if (!filemap_write_and_wait(dir->i_mapping))
		sync_inode_metadata(dir, 1);
}

/*
 * Stamp a changed directory.  @keep_index: the change left a dir_index
 * index valid (an entry removed or retargeted, or added to the leaf the
 * index selects for its hash); otherwise, or when the index was found
 * inconsistent, the index flag is cleared and the directory is linear
 * from now on.
 */
static void ext2hole_dir_changed(struct inode *dir, bool update_times,
				 bool keep_index)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	if (update_times)
		inode_set_mtime_to_ts(dir, inode_set_ctime_current(dir));
	if (!keep_index || test_bit(EXT2HOLE_DIR_DX_BAD, &ei->i_dir_state))
		ei->i_flags &= ~EXT2HOLE_INDEX_FL;
	mark_inode_dirty(dir);
}

/* The on-disk file types are the VFS's FT_* values, which came from ext2. */
static_assert(FT_REG_FILE == EXT2HOLE_FT_REG_FILE && FT_DIR == EXT2HOLE_FT_DIR &&
	      FT_CHRDEV == EXT2HOLE_FT_CHRDEV && FT_BLKDEV == EXT2HOLE_FT_BLKDEV &&
	      FT_FIFO == EXT2HOLE_FT_FIFO && FT_SOCK == EXT2HOLE_FT_SOCK &&
	      FT_SYMLINK == EXT2HOLE_FT_SYMLINK && FT_MAX == EXT2HOLE_FT_MAX);

static void ext2hole_set_de_type(struct super_block *sb,
				 struct ext2hole_dir_entry *de,
				 struct inode *inode)
{
	if (ext2hole_has_filetype(sb))
		de->file_type = fs_umode_to_ftype(inode->i_mode);
	else
		de->file_type = 0;	/* high byte of a 16-bit name_len */
}

/*
 * Offset, inside its block, of the first entry that starts at or after
 * @offset: a readdir position that may not point at an entry any more.
 */
static unsigned int ext2hole_validate_entry(char *kaddr, unsigned int offset,
					    unsigned int chunk)
{
	unsigned int offs = offset & ~(chunk - 1);
	struct ext2hole_dir_entry *de;

	while (offs < offset) {
		de = (struct ext2hole_dir_entry *)(kaddr + offs);
		if (!ext2hole_rec_len(de))
			break;
		offs += ext2hole_rec_len(de);
	}
	return offs;
}

/* readdir of a directory whose positions are byte offsets. */
static int ext2hole_readdir_linear(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct super_block *sb = dir->i_sb;
	unsigned int chunk = ext2hole_chunk_size(dir);
	bool filetype = ext2hole_has_filetype(sb);
	unsigned int offset, blk, last, end;
	unsigned long n, npages;
	bool ok;
	int err;

	if (ctx->pos < 0 || ctx->pos > dir->i_size - EXT2HOLE_DIR_REC_LEN(1))
		return 0;
	err = ext2hole_dir_npages(dir, &npages);
	if (err)
		return err;

	/*
	 * A position kept across calls may fall inside an entry after a
	 * change (or an lseek): the first block re-finds the entry boundary.
	 * That walk is at most one block long, so it is done on every call,
	 * not only when the directory changed (no f_version cookie needed).
	 */
	offset = ctx->pos & ~PAGE_MASK;
	for (n = ctx->pos >> PAGE_SHIFT; n < npages; n++, offset = 0) {
		struct page *page = ext2hole_read_dir_page(dir, n, &ok);
		loff_t page_pos = (loff_t)n << PAGE_SHIFT;
		char *kaddr;

		if (IS_ERR(page)) {
			ext2hole_msg(sb, KERN_ERR,
				     "directory #%lu: cannot read page %lu",
				     dir->i_ino, n);
			ctx->pos = page_pos + PAGE_SIZE;
			return PTR_ERR(page);
		}
		kaddr = page_address(page);
		last = ext2hole_last_byte(dir, n);

		for (blk = offset & ~(chunk - 1); blk + chunk <= last;
		     blk += chunk, offset = blk) {
			/* A corrupt page: list the sound blocks it holds. */
			if (!ok && !ext2hole_check_block(dir, kaddr, blk,
							 page_pos, true)) {
				ctx->pos = page_pos + blk + chunk;
				continue;
			}
			if (offset != blk) {
				offset = ext2hole_validate_entry(kaddr, offset,
								 chunk);
				ctx->pos = page_pos + offset;
			}
			end = blk + chunk;
			while (offset < end) {
				struct ext2hole_dir_entry *de =
					(struct ext2hole_dir_entry *)(kaddr + offset);
				unsigned int rec_len = ext2hole_rec_len(de);

				if (unlikely(!rec_len || offset + rec_len > end)) {
					ext2hole_error(sb,
						       "directory #%lu: bad rec_len at %llu",
						       dir->i_ino,
						       (unsigned long long)ctx->pos);
					ext2hole_put_dir_page(page);
					return -EFSCORRUPTED;
				}
				if (de->inode) {
					unsigned char d_type = DT_UNKNOWN;

					if (filetype)
						d_type = fs_ftype_to_dtype(de->file_type);
					if (!dir_emit(ctx, de->name, de->name_len,
						      le32_to_cpu(de->inode),
						      d_type)) {
						ext2hole_put_dir_page(page);
						return 0;
					}
				}
				offset += rec_len;
				ctx->pos += rec_len;
			}
		}
		ext2hole_put_dir_page(page);
		ctx->pos = min_t(loff_t, page_pos + PAGE_SIZE, dir->i_size);
	}
	return 0;
}

/**
 * ext2hole_find_entry - find a name in a directory
 * @dir: the directory
 * @child: the name
 * @res_page: where the page holding the entry is returned
 *
 * The search starts at the page where the previous one succeeded.  The
 * corrupt blocks of a page are skipped, so that names in the sound ones
 * can still be found (and removed); a name that is not found then yields
 * the corruption error rather than -ENOENT.
 *
 * Return: the entry, inside *@res_page (release it with
 * ext2hole_put_dir_page()), or an ERR_PTR: -ENOENT, -EFSCORRUPTED, -EIO...
 */
struct ext2hole_dir_entry *ext2hole_find_entry(struct inode *dir,
					       const struct qstr *child,
					       struct page **res_page)
{
	unsigned int reclen = EXT2HOLE_DIR_REC_LEN(child->len);
	unsigned int chunk = ext2hole_chunk_size(dir);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);
	struct ext2hole_dir_entry *de;
	unsigned long start, n, npages;
	int err;

	*res_page = NULL;
	err = ext2hole_dir_npages(dir, &npages);
	if (err)
		return ERR_PTR(err);
	if (!npages || child->len > EXT2HOLE_NAME_LEN)
		return ERR_PTR(-ENOENT);

	de = ext2hole_dx_find(dir, child, res_page);
	if (!IS_ERR(de) || PTR_ERR(de) != -EAGAIN)
		return de;

	atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.linear_lookups);
	err = -ENOENT;
	start = ei->i_dir_start_lookup;
	if (start >= npages)
		start = 0;
	n = start;
	do {
		bool ok;
		struct page *page = ext2hole_read_dir_page(dir, n, &ok);
		unsigned int blk, last;
		char *kaddr;

		if (IS_ERR(page)) {
			err = PTR_ERR(page);
			goto next;
		}
		if (!ok)
			err = -EFSCORRUPTED;
		kaddr = page_address(page);
		last = ext2hole_last_byte(dir, n);
		for (blk = 0; blk + chunk <= last; blk += chunk) {
			char *end = kaddr + blk + chunk;

			atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.linear_blocks);

			/* In a corrupt page, search the sound blocks. */
			if (!ok && !ext2hole_check_block(dir, kaddr, blk,
							 page_offset(page),
							 true))
				continue;
			de = (void *)(kaddr + blk);
			while ((char *)de + reclen <= end) {
				if (ext2hole_match(child->len, child->name, de)) {
					ei->i_dir_start_lookup = n;
					*res_page = page;
					return de;
				}
				de = ext2hole_next_entry(de);
			}
		}
		ext2hole_put_dir_page(page);
next:
		if (++n >= npages)
			n = 0;
		cond_resched();
	} while (n != start);
	return ERR_PTR(err);
}

/**
 * ext2hole_inode_by_name - the inode number a name refers to
 * @dir: the directory
 * @child: the name
 * @ino: where the number is stored
 *
 * Return: 0, -ENOENT or another error from ext2hole_find_entry().
 */
int ext2hole_inode_by_name(struct inode *dir, const struct qstr *child,
			   ino_t *ino)
{
	struct ext2hole_dir_entry *de;
	struct page *page;

	de = ext2hole_find_entry(dir, child, &page);
	if (IS_ERR(de))
		return PTR_ERR(de);
	*ino = le32_to_cpu(de->inode);
	ext2hole_put_dir_page(page);
	return 0;
}

/*
 * ext2hole_write_entry - fill the room found for a new entry
 * @dir: the directory
 * @page: the locked page holding @de; unlocked and released here
 * @de: an unused entry, a live one with slack, or a block to append
 * @rec_len: @de's record length (the block size when appending)
 * @name_len: the space the live entry @de itself needs
 * @append: @de starts a new block at i_size
 * @child: the new name
 * @inode: the inode it names
 * @keep_index: the entry goes where the dir_index index expects it
 *
 * Return: 0 or an error; a failed append frees what it allocated.
 */
int ext2hole_write_entry(struct inode *dir, struct page *page,
			 struct ext2hole_dir_entry *de, unsigned int rec_len,
			 unsigned int name_len, bool append,
			 const struct qstr *child, struct inode *inode,
			 bool keep_index)
{
	unsigned int chunk = ext2hole_chunk_size(dir);
	loff_t pos = page_offset(page) +
		     ((char *)de - (char *)page_address(page));
	int err;

	err = ext2hole_prepare_fill(dir, page, pos, rec_len, append);
	if (err)
		return err;
	if (append) {
		memset(de, 0, chunk);
		de->rec_len = cpu_to_le16(chunk);
	} else if (de->inode) {
		struct ext2hole_dir_entry *de1 = (void *)((char *)de + name_len);

		de1->rec_len = cpu_to_le16(rec_len - name_len);
		de->rec_len = cpu_to_le16(name_len);
		de = de1;
	}
	de->name_len = child->len;
	memcpy(de->name, child->name, child->len);
	de->inode = cpu_to_le32(inode->i_ino);
	ext2hole_set_de_type(dir->i_sb, de, inode);
	ext2hole_commit_chunk(page, pos, rec_len);
	ext2hole_dir_changed(dir, true, keep_index);
	ext2hole_put_dir_page(page);
	return 0;
}

/*
 * Rewrite directory block @block with the @bs bytes at @src (or, when
 * @block is the directory's size in blocks, append it): one chunk
 * through prepare/commit, as every other change here.
 */
int ext2hole_dir_write_block(struct inode *dir, u32 block, const void *src)
{
	unsigned int bs = ext2hole_chunk_size(dir);
	loff_t pos = (loff_t)block << dir->i_blkbits;
	bool append = pos >= dir->i_size;
	struct page *page;
	int err;

	page = ext2hole_get_dir_page(dir, pos >> PAGE_SHIFT);
	if (IS_ERR(page))
		return PTR_ERR(page);
	lock_page(page);
	err = ext2hole_prepare_fill(dir, page, pos, bs, append);
	if (err)
		return err;
	memcpy((char *)page_address(page) + (pos & ~PAGE_MASK), src, bs);
	ext2hole_commit_chunk(page, pos, bs);
	ext2hole_put_dir_page(page);
	return 0;
}

/**
 * ext2hole_add_link - add an entry for @inode named after @dentry
 * @dentry: the new name, in its parent directory
 * @inode: the inode it names
 *
 * In an indexed directory the entry goes into the leaf the index selects
 * for its hash when that leaf has room, and the index stays valid.
 * Otherwise reuses an unused entry or the slack after a live one when one
 * is big enough, or appends a block holding a single entry; that clears
 * the index flag of an indexed directory.  The caller holds the parent's
 * i_rwsem and accounts the link count.
 *
 * Return: 0, -EEXIST, -EFSCORRUPTED, -ENOSPC...
 */
int ext2hole_add_link(struct dentry *dentry, struct inode *inode)
{
	struct inode *dir = d_inode(dentry->d_parent);
	const char *name = dentry->d_name.name;
	int namelen = dentry->d_name.len;
	unsigned int chunk = ext2hole_chunk_size(dir);
	unsigned int reclen = EXT2HOLE_DIR_REC_LEN(namelen);
	struct ext2hole_dir_entry *de = NULL;
	unsigned int rec_len = 0, name_len = 0;
	unsigned long n, npages;
	struct page *page = NULL;
	bool append = false, indexed = false;
	char *kaddr = NULL;
	int err;

	if (namelen > EXT2HOLE_NAME_LEN)
		return -ENAMETOOLONG;
again:
	err = ext2hole_dir_npages(dir, &npages);
	if (err)
		return err;

	err = ext2hole_dx_add_link(dir, &dentry->d_name, inode);
	if (err <= 0)
		return err;

	/* Page npages is past i_size: the scan hits i_size there at once. */
	for (n = 0; n <= npages; n++) {
		char *dir_end, *limit;

		page = ext2hole_get_dir_page(dir, n);
		if (IS_ERR(page))
			return PTR_ERR(page);
		lock_page(page);
		kaddr = page_address(page);
		dir_end = kaddr + ext2hole_last_byte(dir, n);
		limit = kaddr + PAGE_SIZE - reclen;
		de = (struct ext2hole_dir_entry *)kaddr;
		while ((char *)de <= limit) {
			if ((char *)de == dir_end) {
				if (!indexed && ext2hole_dx_indexable(dir)) {
					unlock_page(page);
					ext2hole_put_dir_page(page);
					indexed = true;
					err = ext2hole_dx_make_indexed(dir);
					if (err < 0)
						return err;
					goto again;
				}
				append = true;
				rec_len = chunk;
				goto got_it;
			}
			if (unlikely(!ext2hole_rec_len(de))) {
				ext2hole_error(dir->i_sb,
					       "directory #%lu: zero-length entry",
					       dir->i_ino);
				err = -EFSCORRUPTED;
				goto out_unlock;
			}
			if (ext2hole_match(namelen, name, de)) {
				err = -EEXIST;
				goto out_unlock;
			}
			name_len = EXT2HOLE_DIR_REC_LEN(de->name_len);
			rec_len = ext2hole_rec_len(de);
			if (!de->inode && rec_len >= reclen)
				goto got_it;
			if (de->inode && rec_len >= name_len + reclen)
				goto got_it;
			de = ext2hole_next_entry(de);
		}
		unlock_page(page);
		ext2hole_put_dir_page(page);
	}
	ext2hole_error(dir->i_sb, "directory #%lu: no room found past its end",
		       dir->i_ino);
	return -EFSCORRUPTED;

got_it:
	return ext2hole_write_entry(dir, page, de, rec_len, name_len, append,
				    &dentry->d_name, inode, false);

out_unlock:
	unlock_page(page);
	ext2hole_put_dir_page(page);
	return err;
}

/**
 * ext2hole_delete_entry - remove an entry found by ext2hole_find_entry()
 * @de: the entry
 * @page: its page; the caller still releases it afterwards
 *
 * The entry is merged into the previous one of its block, or, when it is
 * the first of its block, left in place with inode 0.
 *
 * Return: 0 or an error.
 */
int ext2hole_delete_entry(struct ext2hole_dir_entry *de, struct page *page)
{
	struct inode *dir = page->mapping->host;
	char *kaddr = page_address(page);
	unsigned int chunk = ext2hole_chunk_size(dir);
	unsigned int from = ((char *)de - kaddr) & ~(chunk - 1);
	unsigned int to = ((char *)de - kaddr) + ext2hole_rec_len(de);
	struct ext2hole_dir_entry *pde = NULL;
	struct ext2hole_dir_entry *p = (void *)(kaddr + from);
	loff_t pos;
	int err;

	while (p < de) {
		if (unlikely(!ext2hole_rec_len(p)))
			break;
		pde = p;
		p = ext2hole_next_entry(p);
	}
	if (unlikely(p != de)) {
		ext2hole_error(dir->i_sb,
			       "directory #%lu: entry at %llu is not in its block's chain",
			       dir->i_ino,
			       (unsigned long long)(page_offset(page) +
						    ((char *)de - kaddr)));
		return -EFSCORRUPTED;
	}
	if (pde)
		from = (char *)pde - kaddr;
	pos = page_offset(page) + from;

	lock_page(page);
	err = ext2hole_prepare_chunk(page, pos, to - from);
	if (err) {
		unlock_page(page);
		return err;
	}
	if (pde)
		pde->rec_len = cpu_to_le16(to - from);
	de->inode = 0;
	ext2hole_commit_chunk(page, pos, to - from);
	ext2hole_dir_changed(dir, true, true);
	return 0;
}

/**
 * ext2hole_make_empty - write the first block of a new directory
 * @inode: the new directory
 * @parent: its parent
 *
 * Return: 0 or an error (-ENOSPC, -ENOMEM, -EIO...).
 */
int ext2hole_make_empty(struct inode *inode, struct inode *parent)
{
	unsigned int chunk = ext2hole_chunk_size(inode);
	struct ext2hole_dir_entry *de;
	struct page *page;
	char *kaddr;
	int err;

	page = grab_cache_page(inode->i_mapping, 0);
	if (!page)
		return -ENOMEM;
	err = ext2hole_prepare_chunk(page, 0, chunk);
	if (err) {
		unlock_page(page);
		goto out;
	}
	kaddr = kmap_local_page(page);
	memset(kaddr, 0, chunk);

	de = (struct ext2hole_dir_entry *)kaddr;
	de->inode = cpu_to_le32(inode->i_ino);
	de->rec_len = cpu_to_le16(EXT2HOLE_DIR_REC_LEN(1));
	de->name_len = 1;
	memcpy(de->name, ".\0\0", 4);
	ext2hole_set_de_type(inode->i_sb, de, inode);

	de = (struct ext2hole_dir_entry *)(kaddr + EXT2HOLE_DIR_REC_LEN(1));
	de->inode = cpu_to_le32(parent->i_ino);
	de->rec_len = cpu_to_le16(chunk - EXT2HOLE_DIR_REC_LEN(1));
	de->name_len = 2;
	memcpy(de->name, "..\0", 4);
	ext2hole_set_de_type(inode->i_sb, de, inode);
	kunmap_local(kaddr);

	ext2hole_commit_chunk(page, 0, chunk);
out:
	put_page(page);
	return err;
}

/**
 * ext2hole_empty_dir - does a directory hold nothing but '.' and '..'?
 * @inode: the directory
 *
 * Return: 1 when empty, 0 when not, or a negative error (a corrupt
 * directory is never called empty).
 */
int ext2hole_empty_dir(struct inode *inode)
{
	unsigned long n, npages;
	struct page *page;
	int err;

	err = ext2hole_dir_npages(inode, &npages);
	if (err)
		return err;
	for (n = 0; n < npages; n++) {
		char *kaddr, *limit;
		struct ext2hole_dir_entry *de;

		page = ext2hole_get_dir_page(inode, n);
		if (IS_ERR(page))
			return PTR_ERR(page);
		kaddr = page_address(page);
		limit = kaddr + ext2hole_last_byte(inode, n);
		de = (struct ext2hole_dir_entry *)kaddr;
		while ((char *)de + EXT2HOLE_DIR_REC_LEN(1) <= limit) {
			if (de->inode) {
				if (de->name[0] != '.' || de->name_len > 2)
					goto not_empty;
				if (de->name_len == 1 &&
				    le32_to_cpu(de->inode) != inode->i_ino)
					goto not_empty;
				if (de->name_len == 2 && de->name[1] != '.')
					goto not_empty;
			}
			de = ext2hole_next_entry(de);
		}
		ext2hole_put_dir_page(page);
	}
	return 1;

not_empty:
	ext2hole_put_dir_page(page);
	return 0;
}

/**
 * ext2hole_dotdot - the '..' entry of a directory
 * @dir: the directory
 * @p: where its page is returned (release it with ext2hole_put_dir_page())
 *
 * Return: the entry, or ERR_PTR(-EFSCORRUPTED) when the first block does
 * not start with '.' and '..', or another read error.
 */
struct ext2hole_dir_entry *ext2hole_dotdot(struct inode *dir, struct page **p)
{
	struct ext2hole_dir_entry *de, *de2;
	struct page *page;
	unsigned int chunk = ext2hole_chunk_size(dir);
	unsigned long npages;
	int err;

	*p = NULL;
	err = ext2hole_dir_npages(dir, &npages);
	if (err)
		return ERR_PTR(err);
	if (!npages)
		goto bad_noput;
	page = ext2hole_get_dir_page(dir, 0);
	if (IS_ERR(page))
		return ERR_CAST(page);
	de = page_address(page);
	if (de->name_len != 1 || de->name[0] != '.' ||
	    ext2hole_rec_len(de) + EXT2HOLE_DIR_REC_LEN(2) > chunk)
		goto bad;
	de2 = ext2hole_next_entry(de);
	if (de2->name_len != 2 || memcmp(de2->name, "..", 2) || !de2->inode)
		goto bad;
	*p = page;
	return de2;

bad:
	ext2hole_put_dir_page(page);
bad_noput:
	ext2hole_error(dir->i_sb, "directory #%lu: no '.' and '..' entries",
		       dir->i_ino);
	return ERR_PTR(-EFSCORRUPTED);
}

/**
 * ext2hole_set_link - point an existing entry at another inode
 * @dir: the directory holding @de
 * @de: the entry
 * @page: its page (not released here)
 * @inode: the new target
 * @update_times: stamp mtime/ctime of @dir (not for a moved dir's '..')
 *
 * Return: 0 or an error.
 */
int ext2hole_set_link(struct inode *dir, struct ext2hole_dir_entry *de,
		      struct page *page, struct inode *inode,
		      bool update_times)
{
	loff_t pos = page_offset(page) + ((char *)de - (char *)page_address(page));
	unsigned int len = ext2hole_rec_len(de);
	int err;

	lock_page(page);
	err = ext2hole_prepare_chunk(page, pos, len);
	if (err) {
		unlock_page(page);
		return err;
	}
	de->inode = cpu_to_le32(inode->i_ino);
	ext2hole_set_de_type(dir->i_sb, de, inode);
	ext2hole_commit_chunk(page, pos, len);
	ext2hole_dir_changed(dir, update_times, true);
	return 0;
}

static int ext2hole_readdir(struct file *file, struct dir_context *ctx)
{
	if (ext2hole_rd_hashed(file))
		return ext2hole_readdir_hashed(file, ctx);
	return ext2hole_readdir_linear(file, ctx);
}

/*
 * As the ext4 driver's: hash cookies go up to the end-of-directory
 * position, byte offsets as a file's.  The next readdir sees the new
 * position (not the one it left) and fetches from there.
 */
static loff_t ext2hole_dir_llseek(struct file *file, loff_t offset, int whence)
{
	loff_t eof;

	if (ext2hole_rd_hashed(file)) {
		eof = ext2hole_rd_eof(file);
		return generic_file_llseek_size(file, offset, whence, eof, eof);
	}
	return generic_file_llseek(file, offset, whence);
}

const struct file_operations ext2hole_dir_operations = {
	.open		= ext2hole_dir_open,
	.release	= ext2hole_dir_release,
	.llseek		= ext2hole_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= ext2hole_readdir,
	.fsync		= generic_file_fsync,
	.unlocked_ioctl	= ext2hole_ioctl,
	.compat_ioctl	= ext2hole_compat_ioctl,
};
