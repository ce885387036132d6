// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole directories.
 *
 * A directory's blocks live in its own page cache, mapped through
 * ext2hole_aops and ext2hole_get_block like a regular file's.  A block
 * holds a chain of entries whose rec_len fields add up to the block size
 * exactly; an entry with inode 0 is unused space.  Every page is validated
 * once, when it is first read (PageChecked); after that only this file
 * changes it, under the directory's i_rwsem and the page lock, and always
 * leaves it valid.
 *
 * A directory's page cache never uses highmem (inode_nohighmem() where the
 * inode is set up), so page_address() is its mapping: an entry pointer
 * handed out by ext2hole_find_entry() or ext2hole_dotdot() stays valid for
 * as long as the caller holds the page, until ext2hole_put_dir_page().
 *
 * Indexed (dir_index, "htree") directories, EXT2HOLE_INDEX_FL with the
 * superblock's dir_index feature, are looked up through their index (see
 * "Indexed directories" below): one or two index blocks and, normally,
 * one leaf per lookup.  To a linear reader the index blocks look like
 * '.', '..' and single unused entries, so rmdir's emptiness check and a
 * directory whose index is found inconsistent use the linear walk;
 * readdir goes in hash order (see "Readdir in hash order" below).
 * The index is kept valid: deleting or retargeting an entry leaves every
 * leaf in place, and a new entry goes into the leaf the index selects for
 * its hash; a full leaf is split into a block appended to the directory,
 * with a new entry in the index block above it.  When that index block is
 * full, the index grows first, as the ext4 driver's does without the
 * largedir feature (two levels at most): a full root of one level moves
 * its entries into a new dx_node and becomes a root of one entry over it
 * (indirect_levels 1); a full dx_node under a root with room is split in
 * two.  When the root and the dx_node are both full, or the index is not
 * usable, the entry goes wherever linear room is found, which may be the
 * index blocks themselves or a block appended past the indexed ones, and
 * EXT2HOLE_INDEX_FL is cleared: the directory is linear from then on,
 * which e2fsck accepts (e2fsck -fD re-indexes).  A linear directory of
 * one block with no room left for a new name is indexed first when the
 * superblock has dir_index, as the ext4 driver's make_indexed_dir():
 * its names go to two leaves split by hash and block 0 becomes the
 * dx_root (ext2hole_dx_make_indexed()).
 */
#include <linux/compat.h>
#include <linux/highmem.h>
#include <linux/iversion.h>
#include <linux/pagemap.h>
#include <linux/rbtree.h>
#include <linux/sort.h>
#include "ext2hole.h"

static inline unsigned int ext2hole_chunk_size(struct inode *inode)
{
	return inode->i_sb->s_blocksize;
}

static inline unsigned int ext2hole_rec_len(const struct ext2hole_dir_entry *de)
{
	return le16_to_cpu(de->rec_len);
}

static inline struct ext2hole_dir_entry *
ext2hole_next_entry(struct ext2hole_dir_entry *de)
{
	return (struct ext2hole_dir_entry *)((char *)de + ext2hole_rec_len(de));
}

static inline bool ext2hole_has_filetype(struct super_block *sb)
{
	return EXT2HOLE_SB(sb)->s_es->s_feature_incompat &
	       cpu_to_le32(EXT2HOLE_FEATURE_INCOMPAT_FILETYPE);
}

/*
 * Offset in page @n of @dir just past its last byte (i_size clipped to the
 * page).  Only called for pages that start at or below i_size.
 */
static unsigned int ext2hole_last_byte(struct inode *dir, unsigned long n)
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
static int ext2hole_dir_npages(struct inode *dir, unsigned long *npages)
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
static bool ext2hole_check_block(struct inode *dir, char *kaddr,
				 unsigned int start, loff_t pos, bool quiet)
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
static struct page *ext2hole_read_dir_page(struct inode *dir, unsigned long n,
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
 * ext2hole_commit_chunk - finish a change made after ext2hole_prepare_chunk()
 *
 * Dirties the buffers, grows i_size when the chunk was appended, unlocks
 * the page and, in a DIRSYNC directory, writes page and inode out.
 */
static int ext2hole_commit_chunk(struct page *page, loff_t pos,
				 unsigned int len)
{
	struct address_space *mapping = page->mapping;
	struct inode *dir = mapping->host;
	int err;

	inode_inc_iversion(dir);
	block_write_end(NULL, mapping, pos, len, len,
			ext2hole_page_wb(page), NULL);
	if (pos + len > dir->i_size) {
		i_size_write(dir, pos + len);
		mark_inode_dirty(dir);
	}
	unlock_page(page);

	if (!IS_DIRSYNC(dir))
		return 0;
	err = filemap_write_and_wait_range(mapping, pos, pos + len - 1);
	if (!err)
		err = sync_inode_metadata(dir, 1);
	return err;
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

static inline bool ext2hole_match(int len, const char *name,
				  struct ext2hole_dir_entry *de)
{
	if (len != de->name_len || !de->inode)
		return false;
	return !memcmp(name, de->name, len);
}

/*
 * Indexed directories (dir_index, "htree"; docs/design.md, "On-disk
 * decisions").
 *
 * A lookup hashes the name, searches the root's dx entries (and those of
 * one dx_node below it, with indirect_levels 1) for the last entry whose
 * hash is not above the name's, and searches the leaf block it points at;
 * when the next entry's hash, low bit ignored, equals the name's, the
 * names of that hash continue in the next leaf, which is searched too.
 * Every index block is checked before it is followed; an inconsistent
 * index is reported once (per in-memory inode) and not used again: the
 * directory is searched linearly, and the index flag is cleared at its
 * next change.
 */

/* ext2hole_dx_probe() found no usable index: search linearly. */
#define EXT2HOLE_DX_LINEAR	1
/* ext2hole_dx_add_link(): the leaf for the hash is full. */
#define EXT2HOLE_DX_FULL	2
/*
 * Rooms made for one insert before giving up: a level added or a dx_node
 * split, a leaf split, one more leaf split when the first left the name's
 * half full.
 */
#define EXT2HOLE_DX_TRIES	3

struct ext2hole_dx_frame {
	struct page *page;		/* holding the index block, referenced */
	char *addr;			/* the index block in it */
	u32 block;			/* its number in the directory */
	struct ext2hole_dx_entry *entries;
	struct ext2hole_dx_entry *at;	/* the entry followed */
	unsigned int count;
};

struct ext2hole_dx_path {
	u32 hash;
	unsigned int version;		/* EXT2HOLE_DX_HASH_*, unsigned included */
	unsigned int levels;		/* frames in use */
	struct ext2hole_dx_frame frame[EXT2HOLE_DX_MAX_LEVELS];
};

static inline unsigned int ext2hole_dx_count(struct ext2hole_dx_entry *e)
{
	return le16_to_cpu(((struct ext2hole_dx_countlimit *)e)->count);
}

static inline unsigned int ext2hole_dx_limit(struct ext2hole_dx_entry *e)
{
	return le16_to_cpu(((struct ext2hole_dx_countlimit *)e)->limit);
}

/* Logical block an entry points at (the top four bits are reserved). */
static inline u32 ext2hole_dx_block(struct ext2hole_dx_entry *e)
{
	return le32_to_cpu(e->block) & 0x0fffffff;
}

static bool ext2hole_dx_usable(struct inode *dir)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	return (ei->i_flags & EXT2HOLE_INDEX_FL) &&
	       (sbi->s_es->s_feature_compat &
		cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_DIR_INDEX)) &&
	       !test_bit(EXT2HOLE_DIR_DX_BAD, &ei->i_dir_state);
}

/*
 * Report an inconsistent index, once per in-memory inode, and stop using
 * it.  Returns EXT2HOLE_DX_LINEAR for the caller to pass on.
 */
static __printf(2, 3) int ext2hole_dx_bad(struct inode *dir,
					  const char *fmt, ...)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);
	struct va_format vaf;
	va_list args;

	if (test_and_set_bit(EXT2HOLE_DIR_DX_BAD, &ei->i_dir_state))
		return EXT2HOLE_DX_LINEAR;
	atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_errors);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	ext2hole_error(dir->i_sb, "directory #%lu: %pV (index not used)",
		       dir->i_ino, &vaf);
	va_end(args);
	return EXT2HOLE_DX_LINEAR;
}

static void ext2hole_dx_release(struct ext2hole_dx_path *path)
{
	unsigned int i;

	for (i = 0; i < path->levels; i++)
		ext2hole_put_dir_page(path->frame[i].page);
	path->levels = 0;
}

/*
 * Read directory block @block: the page holding it (referenced)
 * in *@pagep, the block's address returned.  *@ok tells whether the page
 * passed the entry checks.
 */
static char *ext2hole_dx_read_block(struct inode *dir, u32 block,
				    struct page **pagep, bool *ok)
{
	unsigned int bits = dir->i_blkbits;
	unsigned long n = (unsigned long)block >> (PAGE_SHIFT - bits);
	struct page *page = ext2hole_read_dir_page(dir, n, ok);

	if (IS_ERR(page))
		return ERR_CAST(page);
	*pagep = page;
	return (char *)page_address(page) +
	       (((loff_t)block << bits) & ~PAGE_MASK);
}

/*
 * Check the dx entry array of one index block and find the entry for
 * @hash in it, filling @frame (whose page the caller already set).
 */
static int ext2hole_dx_search(struct inode *dir, struct ext2hole_dx_frame *frame,
			      struct ext2hole_dx_entry *entries,
			      unsigned int want_limit, u32 block, u32 hash)
{
	u32 nblocks = dir->i_size >> dir->i_blkbits;
	unsigned int count = ext2hole_dx_count(entries);
	unsigned int limit = ext2hole_dx_limit(entries);
	struct ext2hole_dx_entry *p, *q, *m;
	unsigned int i;

	if (limit != want_limit)
		return ext2hole_dx_bad(dir,
				       "index block %u: limit %u, not %u for this block size",
				       block, limit, want_limit);
	if (!count || count > limit)
		return ext2hole_dx_bad(dir, "index block %u: count %u, limit %u",
				       block, count, limit);
	for (i = 0; i < count; i++) {
		u32 b = ext2hole_dx_block(&entries[i]);

		if (!b || b >= nblocks)
			return ext2hole_dx_bad(dir,
					       "index block %u: entry %u points at block %u, directory has %u",
					       block, i, b, nblocks);
	}
	p = entries + 1;
	q = entries + count - 1;
	while (p <= q) {
		m = p + (q - p) / 2;
		if (le32_to_cpu(m->hash) > hash)
			q = m - 1;
		else
			p = m + 1;
	}
	frame->block = block;
	frame->addr = (char *)entries -
		      (block ? EXT2HOLE_DX_NODE_ENTRIES_OFFS :
			       EXT2HOLE_DX_ROOT_ENTRIES_OFFS);
	frame->entries = entries;
	frame->at = p - 1;
	frame->count = count;
	return 0;
}

/* Read and check the dx_node @block as level @level of @path. */
static int ext2hole_dx_node(struct inode *dir, struct ext2hole_dx_path *path,
			    unsigned int level, u32 block, bool first)
{
	unsigned int bs = dir->i_sb->s_blocksize;
	struct ext2hole_dx_frame *frame = &path->frame[level];
	struct ext2hole_dir_entry *fake;
	char *addr;
	bool ok;
	int err;

	addr = ext2hole_dx_read_block(dir, block, &frame->page, &ok);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	path->levels = level + 1;
	fake = (struct ext2hole_dir_entry *)addr;
	if (fake->inode || ext2hole_rec_len(fake) != bs)
		return ext2hole_dx_bad(dir,
				       "index block %u: not a dx_node (inode %u, rec_len %u)",
				       block, le32_to_cpu(fake->inode),
				       ext2hole_rec_len(fake));
	err = ext2hole_dx_search(dir, frame,
				 (void *)(addr + EXT2HOLE_DX_NODE_ENTRIES_OFFS),
				 (bs - EXT2HOLE_DX_NODE_ENTRIES_OFFS) /
				 sizeof(struct ext2hole_dx_entry),
				 block, path->hash);
	if (!err && first)
		frame->at = frame->entries;
	return err;
}

/*
 * ext2hole_dx_probe - follow the index of @dir down to the leaf for @name
 *
 * With @name NULL, the leaf for the hash already in path->hash (readdir).
 *
 * Return: 0 with @path filled (release it with ext2hole_dx_release()),
 * EXT2HOLE_DX_LINEAR when the index cannot be used, or a negative error.
 * @path holds whatever pages it took in every case.
 */
static int ext2hole_dx_probe(struct inode *dir, const char *name, int len,
			     struct ext2hole_dx_path *path)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	unsigned int bs = dir->i_sb->s_blocksize;
	struct ext2hole_dir_entry *dot, *dotdot;
	struct ext2hole_dx_root_info *info;
	unsigned int version, levels;
	char *addr;
	bool ok;
	int err;

	path->levels = 0;
	if ((dir->i_size >> dir->i_blkbits) < 2)
		return ext2hole_dx_bad(dir, "indexed but only %lld bytes long",
				       dir->i_size);
	addr = ext2hole_dx_read_block(dir, 0, &path->frame[0].page, &ok);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	path->levels = 1;

	dot = (struct ext2hole_dir_entry *)addr;
	dotdot = (struct ext2hole_dir_entry *)(addr + EXT2HOLE_DIR_REC_LEN(1));
	if (dot->name_len != 1 || dot->name[0] != '.' ||
	    ext2hole_rec_len(dot) != EXT2HOLE_DIR_REC_LEN(1) ||
	    dotdot->name_len != 2 || memcmp(dotdot->name, "..", 2) ||
	    ext2hole_rec_len(dotdot) != bs - EXT2HOLE_DIR_REC_LEN(1))
		return ext2hole_dx_bad(dir, "dx_root: no '.' and '..' around the index");
	info = (struct ext2hole_dx_root_info *)(addr + EXT2HOLE_DX_ROOT_INFO_OFFS);
	if (info->reserved_zero)
		return ext2hole_dx_bad(dir, "dx_root: bad magic (reserved_zero %u)",
				       le32_to_cpu(info->reserved_zero));
	if (info->info_length != sizeof(*info))
		return ext2hole_dx_bad(dir, "dx_root: bad info_length %u",
				       info->info_length);
	if (info->unused_flags & EXT2HOLE_DX_HASH_FLAG_INCOMPAT)
		return ext2hole_dx_bad(dir, "dx_root: unsupported hash flags %#x",
				       info->unused_flags);
	version = info->hash_version;
	if (version > EXT2HOLE_DX_HASH_TEA)
		return ext2hole_dx_bad(dir, "dx_root: unknown hash version %u",
				       version);
	levels = info->indirect_levels;
	if (levels >= EXT2HOLE_DX_MAX_LEVELS)
		return ext2hole_dx_bad(dir,
				       "dx_root: %u indirect levels (at most %u without largedir)",
				       levels, EXT2HOLE_DX_MAX_LEVELS - 1);
	path->version = version + sbi->s_hash_unsigned;
	if (name && ext2hole_dx_hash(name, len, path->version,
				     sbi->s_hash_seed, &path->hash))
		return ext2hole_dx_bad(dir, "dx_root: unknown hash version %u",
				       version);

	err = ext2hole_dx_search(dir, &path->frame[0],
				 (void *)(addr + EXT2HOLE_DX_ROOT_ENTRIES_OFFS),
				 (bs - EXT2HOLE_DX_ROOT_ENTRIES_OFFS) /
				 sizeof(struct ext2hole_dx_entry),
				 0, path->hash);
	if (err || !levels)
		return err;
	return ext2hole_dx_node(dir, path, 1,
				ext2hole_dx_block(path->frame[0].at), false);
}

/*
 * Step @path to the next leaf when it continues the run of names hashing
 * to path->hash (a hash collision split across leaves), or, with @any,
 * to the next leaf whatever its hash (readdir); *@next_hash, when given,
 * gets the hash of the index entry of the next leaf, collision bit
 * included, when there is one.
 *
 * Return: 1 when stepped, 0 when there is no such leaf, -EAGAIN when
 * the index turned out inconsistent, or another negative error.
 */
static int ext2hole_dx_next_leaf(struct inode *dir, struct ext2hole_dx_path *path,
				 bool any, u32 *next_hash)
{
	int i = path->levels - 1;
	struct ext2hole_dx_frame *f;
	int err;

	while (i >= 0) {
		f = &path->frame[i];
		if (f->at + 1 < f->entries + f->count)
			break;
		i--;
	}
	if (i < 0)
		return 0;
	f = &path->frame[i];
	f->at++;
	if (next_hash)
		*next_hash = le32_to_cpu(f->at->hash);
	if (!any && (le32_to_cpu(f->at->hash) & ~1U) != path->hash)
		return 0;
	while (++i < (int)path->levels) {
		/* Descend into the first entry of the next dx_node. */
		ext2hole_put_dir_page(path->frame[i].page);
		path->levels = i;
		err = ext2hole_dx_node(dir, path, i,
				       ext2hole_dx_block(path->frame[i - 1].at),
				       true);
		if (err)
			return err > 0 ? -EAGAIN : err;
	}
	return 1;
}

/*
 * Search leaf @block for @child.  Return: the entry (its page, referenced
 * and referenced, in *@res_page), NULL when it is not there, or an
 * ERR_PTR.
 */
static struct ext2hole_dir_entry *
ext2hole_dx_search_leaf(struct inode *dir, u32 block, const struct qstr *child,
			struct page **res_page)
{
	unsigned int reclen = EXT2HOLE_DIR_REC_LEN(child->len);
	unsigned int bs = dir->i_sb->s_blocksize;
	struct ext2hole_dir_entry *de;
	struct page *page;
	char *addr, *end;
	bool ok;

	atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_blocks);
	addr = ext2hole_dx_read_block(dir, block, &page, &ok);
	if (IS_ERR(addr))
		return ERR_CAST(addr);
	if (!ok && !ext2hole_check_block(dir, page_address(page),
					 addr - (char *)page_address(page),
					 page_offset(page), true)) {
		ext2hole_put_dir_page(page);
		return ERR_PTR(-EFSCORRUPTED);
	}
	end = addr + bs;
	de = (struct ext2hole_dir_entry *)addr;
	while ((char *)de + reclen <= end) {
		if (ext2hole_match(child->len, child->name, de)) {
			*res_page = page;
			return de;
		}
		de = ext2hole_next_entry(de);
	}
	ext2hole_put_dir_page(page);
	return NULL;
}

/* '.' and '..' live in block 0, outside every leaf. */
static bool ext2hole_dx_name(const struct qstr *child)
{
	return !(child->name[0] == '.' &&
		 (child->len == 1 || (child->len == 2 && child->name[1] == '.')));
}

/*
 * ext2hole_dx_find - look @child up through the index of @dir
 *
 * Return: as ext2hole_find_entry(), or ERR_PTR(-EAGAIN) when the index
 * cannot be used (search linearly).
 */
static struct ext2hole_dir_entry *
ext2hole_dx_find(struct inode *dir, const struct qstr *child,
		 struct page **res_page)
{
	struct ext2hole_dx_path path;
	struct ext2hole_dir_entry *de;
	int err;

	err = ext2hole_dx_probe(dir, child->name, child->len, &path);
	if (err) {
		ext2hole_dx_release(&path);
		return ERR_PTR(err > 0 ? -EAGAIN : err);
	}
	atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_lookups);
	for (;;) {
		de = ext2hole_dx_search_leaf(dir,
				ext2hole_dx_block(path.frame[path.levels - 1].at),
				child, res_page);
		if (de)
			break;
		err = ext2hole_dx_next_leaf(dir, &path, false, NULL);
		if (err <= 0) {
			de = ERR_PTR(err ? err : -ENOENT);
			break;
		}
	}
	ext2hole_dx_release(&path);
	return de;
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
	unsigned long start, n, npages;
	int err;

	*res_page = NULL;
	err = ext2hole_dir_npages(dir, &npages);
	if (err)
		return ERR_PTR(err);
	if (!npages || child->len > EXT2HOLE_NAME_LEN)
		return ERR_PTR(-ENOENT);

	if (ext2hole_dx_usable(dir) && ext2hole_dx_name(child)) {
		struct ext2hole_dir_entry *de;

		de = ext2hole_dx_find(dir, child, res_page);
		if (!IS_ERR(de) || PTR_ERR(de) != -EAGAIN)
			return de;
	}

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
			struct ext2hole_dir_entry *de = (void *)(kaddr + blk);
			char *end = kaddr + blk + chunk;

			atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.linear_blocks);

			/* In a corrupt page, search the sound blocks. */
			if (!ok && !ext2hole_check_block(dir, kaddr, blk,
							 page_offset(page),
							 true))
				continue;
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
static int ext2hole_write_entry(struct inode *dir, struct page *page,
				struct ext2hole_dir_entry *de,
				unsigned int rec_len, unsigned int name_len,
				bool append, const struct qstr *child,
				struct inode *inode, bool keep_index)
{
	unsigned int chunk = ext2hole_chunk_size(dir);
	loff_t pos = page_offset(page) +
		     ((char *)de - (char *)page_address(page));
	int err;

	err = ext2hole_prepare_chunk(page, pos, rec_len);
	if (err) {
		unlock_page(page);
		ext2hole_put_dir_page(page);
		/* Free what a failed append (ENOSPC...) allocated past i_size. */
		if (append)
			ext2hole_write_failed(dir->i_mapping, pos + rec_len);
		return err;
	}
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
	err = ext2hole_commit_chunk(page, pos, rec_len);
	ext2hole_dir_changed(dir, true, keep_index);
	ext2hole_put_dir_page(page);
	return err;
}

/*
 * Insert @child into leaf @block when it has room.
 *
 * Return: 0, EXT2HOLE_DX_FULL or a negative error.
 */
static int ext2hole_dx_insert_leaf(struct inode *dir, u32 block,
				   const struct qstr *child, struct inode *inode)
{
	unsigned int reclen = EXT2HOLE_DIR_REC_LEN(child->len);
	struct ext2hole_dir_entry *de;
	unsigned int rec_len, name_len;
	struct page *page;
	char *addr, *end;
	bool ok;

	addr = ext2hole_dx_read_block(dir, block, &page, &ok);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	if (!ok) {
		ext2hole_put_dir_page(page);
		return -EFSCORRUPTED;
	}
	lock_page(page);
	end = addr + ext2hole_chunk_size(dir);
	for (de = (void *)addr; (char *)de < end; de = ext2hole_next_entry(de)) {
		rec_len = ext2hole_rec_len(de);
		name_len = EXT2HOLE_DIR_REC_LEN(de->name_len);
		if (ext2hole_match(child->len, child->name, de)) {
			unlock_page(page);
			ext2hole_put_dir_page(page);
			return -EEXIST;
		}
		if ((!de->inode && rec_len >= reclen) ||
		    (de->inode && rec_len >= name_len + reclen))
			return ext2hole_write_entry(dir, page, de, rec_len,
						    name_len, false, child,
						    inode, true);
	}
	unlock_page(page);
	ext2hole_put_dir_page(page);
	return EXT2HOLE_DX_FULL;
}

/*
 * Rewrite directory block @block with the @bs bytes at @src (or, when
 * @block is the directory's size in blocks, append it): one chunk
 * through prepare/commit, as every other change here.
 */
static int ext2hole_dir_write_block(struct inode *dir, u32 block,
				    const void *src)
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
	err = ext2hole_prepare_chunk(page, pos, bs);
	if (err) {
		unlock_page(page);
		ext2hole_put_dir_page(page);
		if (append)
			ext2hole_write_failed(dir->i_mapping, pos + bs);
		return err;
	}
	memcpy((char *)page_address(page) + (pos & ~PAGE_MASK), src, bs);
	err = ext2hole_commit_chunk(page, pos, bs);
	ext2hole_put_dir_page(page);
	return err;
}

/* A live entry of a leaf being split: its hash, where it is, its size. */
struct ext2hole_dx_map {
	u32 hash;
	u16 offs;
	u16 size;
};

static int ext2hole_dx_map_cmp(const void *a, const void *b)
{
	const struct ext2hole_dx_map *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->offs < y->offs ? -1 : x->offs > y->offs;
}

/* Pack the entries @map[0..@n) of @leaf into the block @to. */
static void ext2hole_dx_pack(const char *leaf, const struct ext2hole_dx_map *map,
			     unsigned int n, char *to, unsigned int bs)
{
	struct ext2hole_dir_entry *de = NULL;
	unsigned int i, offs = 0;

	for (i = 0; i < n; i++) {
		de = (struct ext2hole_dir_entry *)(to + offs);
		memcpy(de, leaf + map[i].offs, map[i].size);
		de->rec_len = cpu_to_le16(map[i].size);
		offs += map[i].size;
	}
	/* The last entry covers the rest of the block. */
	de->rec_len = cpu_to_le16(bs - offs + map[n - 1].size);
}

/*
 * Where to cut the @n (at least 2) entries of @map, sorted by hash: half
 * the names, the cut moved to a change of hash near the middle.  *@hash
 * is the hash of the index entry for the upper part: the hash of its
 * first entry, with the collision bit when that hash continues from the
 * lower part.
 */
static unsigned int ext2hole_dx_split_point(const struct ext2hole_dx_map *map,
					    unsigned int n, u32 *hash)
{
	unsigned int split = n / 2, i;

	for (i = 0; i < n / 2; i++) {
		if (split + i < n && map[split + i].hash != map[split + i - 1].hash) {
			split += i;
			break;
		}
		if (split - i > 0 && map[split - i].hash != map[split - i - 1].hash) {
			split -= i;
			break;
		}
	}
	*hash = map[split].hash;
	if (map[split - 1].hash == *hash)
		*hash |= 1;	/* the same hash continues in the upper part */
	return split;
}

/*
 * ext2hole_dx_split - split the full leaf @path points at
 * @dir: the directory
 * @path: from ext2hole_dx_probe(), still held
 *
 * The upper half of the leaf's entries by hash moves to a block appended
 * to the directory, and a dx entry for it goes right after the one for the
 * leaf in the last index block: the hash of its first entry, with the
 * collision bit when the leaf keeps names of that same hash.  The order of
 * the writes keeps every name reachable at each step: the new block
 * (holding copies), then the index entry, then the old leaf without the
 * moved names.  The caller makes sure the last index block has room
 * (ext2hole_dx_make_room()); when the leaf holds a single name nothing
 * is done.
 *
 * Return: 0, EXT2HOLE_DX_FULL, or a negative error.
 */
static int ext2hole_dx_split(struct inode *dir, struct ext2hole_dx_path *path)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct ext2hole_dx_frame *frame = &path->frame[path->levels - 1];
	unsigned int bs = ext2hole_chunk_size(dir);
	u32 leaf = ext2hole_dx_block(frame->at);
	u32 newblk = dir->i_size >> dir->i_blkbits;
	struct ext2hole_dx_entry *e;
	struct ext2hole_dx_map *map;
	unsigned int n = 0, split, at, offs;
	struct ext2hole_dir_entry *de;
	struct ext2hole_dx_countlimit *cl;
	struct page *page;
	char *buf, *addr;
	u32 hash;
	bool ok;
	int err;

	buf = kmalloc(3 * bs, GFP_NOFS);
	map = kmalloc_array(bs / EXT2HOLE_DIR_REC_LEN(1), sizeof(*map),
			    GFP_NOFS);
	err = -ENOMEM;
	if (!buf || !map)
		goto out;

	addr = ext2hole_dx_read_block(dir, leaf, &page, &ok);
	if (IS_ERR(addr)) {
		err = PTR_ERR(addr);
		goto out;
	}
	memcpy(buf, addr, bs);
	ext2hole_put_dir_page(page);
	err = -EFSCORRUPTED;
	if (!ok)
		goto out;
	for (offs = 0; offs < bs; offs += ext2hole_rec_len(de)) {
		de = (struct ext2hole_dir_entry *)(buf + offs);
		if (!de->inode)
			continue;
		map[n].offs = offs;
		map[n].size = EXT2HOLE_DIR_REC_LEN(de->name_len);
		if (ext2hole_dx_hash(de->name, de->name_len, path->version,
				     sbi->s_hash_seed, &map[n].hash))
			goto out;
		n++;
	}
	err = EXT2HOLE_DX_FULL;
	if (n < 2)
		goto out;
	sort(map, n, sizeof(*map), ext2hole_dx_map_cmp, NULL);

	split = ext2hole_dx_split_point(map, n, &hash);

	/* The new leaf, appended: the moved names are still in the old one. */
	memset(buf + bs, 0, 2 * bs);
	ext2hole_dx_pack(buf, map + split, n - split, buf + bs, bs);
	err = ext2hole_dir_write_block(dir, newblk, buf + bs);
	if (err == -ENOSPC || err == -EDQUOT) {
		err = EXT2HOLE_DX_FULL;	/* linear room may still be found */
		goto out;
	}
	if (err)
		goto out;

	/* The index entry, after the old leaf's. */
	memcpy(buf + bs, frame->addr, bs);
	e = (struct ext2hole_dx_entry *)(buf + bs + ((char *)frame->entries -
						     frame->addr));
	at = frame->at - frame->entries;
	memmove(&e[at + 2], &e[at + 1], (frame->count - at - 1) * sizeof(*e));
	e[at + 1].hash = cpu_to_le32(hash);
	e[at + 1].block = cpu_to_le32(newblk);
	cl = (struct ext2hole_dx_countlimit *)e;
	cl->count = cpu_to_le16(frame->count + 1);
	err = ext2hole_dir_write_block(dir, frame->block, buf + bs);
	if (err)
		goto out;

	/* The old leaf, with the names that stay. */
	memset(buf + bs, 0, bs);
	ext2hole_dx_pack(buf, map, split, buf + bs, bs);
	err = ext2hole_dir_write_block(dir, leaf, buf + bs);
	if (!err)
		atomic64_inc(&sbi->s_dir_stats.dx_splits);
out:
	kfree(map);
	kfree(buf);
	return err;
}

/* Entries that fit in a dx_node of @dir. */
static inline unsigned int ext2hole_dx_node_limit(struct inode *dir)
{
	return (ext2hole_chunk_size(dir) - EXT2HOLE_DX_NODE_ENTRIES_OFFS) /
	       sizeof(struct ext2hole_dx_entry);
}

/* Set the count of the dx entry array @e (its limit stays). */
static inline void ext2hole_dx_set_count(struct ext2hole_dx_entry *e,
					 unsigned int count)
{
	((struct ext2hole_dx_countlimit *)e)->count = cpu_to_le16(count);
}

/*
 * Append a dx_node to @dir holding the @count dx entries at @src (the
 * first one's hash is implied by the entry above, its hash field takes
 * the count and limit), built in the block-sized buffer @buf.
 *
 * Return: its block number or a negative error (-ENOSPC, -EDQUOT...).
 */
static long ext2hole_dx_append_node(struct inode *dir,
				    const struct ext2hole_dx_entry *src,
				    unsigned int count, char *buf)
{
	unsigned int bs = ext2hole_chunk_size(dir);
	u32 block = dir->i_size >> dir->i_blkbits;
	struct ext2hole_dir_entry *fake = (struct ext2hole_dir_entry *)buf;
	struct ext2hole_dx_entry *e;
	struct ext2hole_dx_countlimit *cl;
	int err;

	memset(buf, 0, bs);
	fake->rec_len = cpu_to_le16(bs);
	e = (struct ext2hole_dx_entry *)(buf + EXT2HOLE_DX_NODE_ENTRIES_OFFS);
	memcpy(e, src, count * sizeof(*e));
	cl = (struct ext2hole_dx_countlimit *)e;
	cl->limit = cpu_to_le16(ext2hole_dx_node_limit(dir));
	cl->count = cpu_to_le16(count);
	err = ext2hole_dir_write_block(dir, block, buf);
	return err ? err : block;
}

/*
 * ext2hole_dx_add_level - move a full dx_root's entries into a new dx_node
 *
 * The entries go to a dx_node appended to the directory (written first),
 * then the root is rewritten with a single entry pointing at it and
 * indirect_levels 1.  As the ext4 driver without largedir, the index has
 * at most two levels: only a root with indirect_levels 0 gets here.
 *
 * Return: 0, EXT2HOLE_DX_FULL (no room on the device) or a negative error.
 */
static int ext2hole_dx_add_level(struct inode *dir,
				 struct ext2hole_dx_path *path, char *buf)
{
	struct ext2hole_dx_frame *root = &path->frame[0];
	unsigned int bs = ext2hole_chunk_size(dir);
	struct ext2hole_dx_root_info *info;
	struct ext2hole_dx_entry *e;
	unsigned int limit;
	long node;
	int err;

	node = ext2hole_dx_append_node(dir, root->entries, root->count, buf);
	if (node == -ENOSPC || node == -EDQUOT)
		return EXT2HOLE_DX_FULL;
	if (node < 0)
		return node;

	memcpy(buf, root->addr, bs);
	info = (struct ext2hole_dx_root_info *)(buf + EXT2HOLE_DX_ROOT_INFO_OFFS);
	info->indirect_levels = 1;
	e = (struct ext2hole_dx_entry *)(buf + EXT2HOLE_DX_ROOT_ENTRIES_OFFS);
	limit = ext2hole_dx_limit(e);
	memset(&e[1], 0, (limit - 1) * sizeof(*e));
	ext2hole_dx_set_count(e, 1);
	e[0].block = cpu_to_le32(node);
	err = ext2hole_dir_write_block(dir, 0, buf);
	if (!err)
		atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_levels);
	return err;
}

/*
 * ext2hole_dx_split_node - split the full dx_node @path went through
 *
 * The upper half of its entries goes to a dx_node appended to the
 * directory (written first), then a root entry for it (the hash of its
 * first entry, collision bit included) is inserted after the old node's,
 * then the old node is rewritten without them.  A lookup of a hash whose
 * names continue past the old node's last leaf steps into the new node
 * through that root entry (ext2hole_dx_next_leaf()).
 *
 * Return: 0, EXT2HOLE_DX_FULL (the root is full too, or no room on the
 * device) or a negative error.
 */
static int ext2hole_dx_split_node(struct inode *dir,
				  struct ext2hole_dx_path *path, char *buf)
{
	struct ext2hole_dx_frame *root = &path->frame[0];
	struct ext2hole_dx_frame *node = &path->frame[1];
	unsigned int bs = ext2hole_chunk_size(dir);
	unsigned int keep = node->count / 2, moved = node->count - keep, at;
	struct ext2hole_dx_entry *e;
	long newblk;
	u32 hash;
	int err;

	if (root->count >= ext2hole_dx_limit(root->entries))
		return EXT2HOLE_DX_FULL;
	hash = le32_to_cpu(node->entries[keep].hash);
	newblk = ext2hole_dx_append_node(dir, node->entries + keep, moved, buf);
	if (newblk == -ENOSPC || newblk == -EDQUOT)
		return EXT2HOLE_DX_FULL;
	if (newblk < 0)
		return newblk;

	/* The root entry, after the old node's. */
	memcpy(buf, root->addr, bs);
	e = (struct ext2hole_dx_entry *)(buf + EXT2HOLE_DX_ROOT_ENTRIES_OFFS);
	at = root->at - root->entries;
	memmove(&e[at + 2], &e[at + 1], (root->count - at - 1) * sizeof(*e));
	e[at + 1].hash = cpu_to_le32(hash);
	e[at + 1].block = cpu_to_le32(newblk);
	ext2hole_dx_set_count(e, root->count + 1);
	err = ext2hole_dir_write_block(dir, 0, buf);
	if (err)
		return err;

	/* The old node, without the moved entries. */
	memcpy(buf, node->addr, bs);
	e = (struct ext2hole_dx_entry *)(buf + EXT2HOLE_DX_NODE_ENTRIES_OFFS);
	memset(&e[keep], 0, moved * sizeof(*e));
	ext2hole_dx_set_count(e, keep);
	err = ext2hole_dir_write_block(dir, node->block, buf);
	if (!err)
		atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_node_splits);
	return err;
}

/*
 * ext2hole_dx_make_room - make room for an entry whose leaf is full
 * @dir: the directory
 * @path: from ext2hole_dx_probe(), still held
 *
 * Splits the leaf when the index block above it has room; otherwise
 * grows the index as the ext4 driver does without largedir: a full root
 * of one level moves into a new dx_node (a second level), a full dx_node
 * under a root with room is split.  The caller probes again afterwards.
 *
 * Return: 0, EXT2HOLE_DX_FULL when the index cannot grow (both levels
 * full, no room on the device, a leaf of a single name), or a negative
 * error.
 */
static int ext2hole_dx_make_room(struct inode *dir,
				 struct ext2hole_dx_path *path)
{
	struct ext2hole_dx_frame *frame = &path->frame[path->levels - 1];
	char *buf;
	int err;

	if (frame->count < ext2hole_dx_limit(frame->entries))
		return ext2hole_dx_split(dir, path);
	buf = kmalloc(ext2hole_chunk_size(dir), GFP_NOFS);
	if (!buf)
		return -ENOMEM;
	if (path->levels == 1)
		err = ext2hole_dx_add_level(dir, path, buf);
	else
		err = ext2hole_dx_split_node(dir, path, buf);
	kfree(buf);
	return err;
}

/*
 * Whether a linear directory with no room left in its one block is to be
 * indexed, as the ext4 driver does: the superblock has dir_index, the
 * directory is exactly one block long, has no index flag and no index
 * found bad.
 */
static bool ext2hole_dx_indexable(struct inode *dir)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	return (sbi->s_es->s_feature_compat &
		cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_DIR_INDEX)) &&
	       !(ei->i_flags & EXT2HOLE_INDEX_FL) &&
	       !test_bit(EXT2HOLE_DIR_DX_BAD, &ei->i_dir_state) &&
	       dir->i_size == ext2hole_chunk_size(dir);
}

/*
 * ext2hole_dx_make_indexed - index a one-block directory that is full
 * @dir: the directory (ext2hole_dx_indexable())
 *
 * As the ext4 driver's make_indexed_dir(): the names of block 0 after '.'
 * and '..' are sorted by hash (the superblock's s_def_hash_version, with
 * its unsigned-hash flag) and cut in two leaves, appended to the
 * directory as blocks 1 and 2; block 0 is then rewritten as a dx_root
 * ('.', '..' covering the rest of the block, the root info and two
 * entries) and the index flag set.  The leaves are written before the
 * root that points at them: until then they are duplicates a linear
 * reader does not see under the directory's lock (after a crash, e2fsck
 * removes them).
 *
 * Return: 0 when indexed, 1 when the directory is left linear (an
 * unknown default hash, a block 0 not starting with '.' and '..', fewer
 * than two names, no room on the device), or a negative error.
 */
static int ext2hole_dx_make_indexed(struct inode *dir)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	unsigned int version = sbi->s_es->s_def_hash_version;
	unsigned int bs = ext2hole_chunk_size(dir);
	struct ext2hole_dir_entry *dot, *dotdot, *de;
	struct ext2hole_dx_root_info *info;
	struct ext2hole_dx_countlimit *cl;
	struct ext2hole_dx_entry *e;
	struct ext2hole_dx_map *map = NULL;
	unsigned int n = 0, split, offs;
	struct page *page;
	char *buf, *addr;
	u32 hash;
	bool ok;
	int err;

	if (version > EXT2HOLE_DX_HASH_TEA)
		return 1;
	buf = kmalloc(2 * bs, GFP_NOFS);
	map = kmalloc_array(bs / EXT2HOLE_DIR_REC_LEN(1), sizeof(*map),
			    GFP_NOFS);
	err = -ENOMEM;
	if (!buf || !map)
		goto out;
	addr = ext2hole_dx_read_block(dir, 0, &page, &ok);
	if (IS_ERR(addr)) {
		err = PTR_ERR(addr);
		goto out;
	}
	memcpy(buf, addr, bs);
	ext2hole_put_dir_page(page);
	err = -EFSCORRUPTED;
	if (!ok)
		goto out;

	err = 1;
	dot = (struct ext2hole_dir_entry *)buf;
	if (dot->name_len != 1 || dot->name[0] != '.' || !dot->inode ||
	    ext2hole_rec_len(dot) >= bs)
		goto out;
	dotdot = ext2hole_next_entry(dot);
	if (dotdot->name_len != 2 || memcmp(dotdot->name, "..", 2) ||
	    !dotdot->inode)
		goto out;
	for (offs = (char *)ext2hole_next_entry(dotdot) - buf; offs < bs;
	     offs += ext2hole_rec_len(de)) {
		de = (struct ext2hole_dir_entry *)(buf + offs);
		if (!de->inode)
			continue;
		map[n].offs = offs;
		map[n].size = EXT2HOLE_DIR_REC_LEN(de->name_len);
		if (ext2hole_dx_hash(de->name, de->name_len,
				     version + sbi->s_hash_unsigned,
				     sbi->s_hash_seed, &map[n].hash))
			goto out;
		n++;
	}
	if (n < 2)
		goto out;
	sort(map, n, sizeof(*map), ext2hole_dx_map_cmp, NULL);
	split = ext2hole_dx_split_point(map, n, &hash);

	/* The two leaves, appended as blocks 1 and 2. */
	memset(buf + bs, 0, bs);
	ext2hole_dx_pack(buf, map, split, buf + bs, bs);
	err = ext2hole_dir_write_block(dir, 1, buf + bs);
	if (!err) {
		memset(buf + bs, 0, bs);
		ext2hole_dx_pack(buf, map + split, n - split, buf + bs, bs);
		err = ext2hole_dir_write_block(dir, 2, buf + bs);
	}
	if (err) {
		/* Give back what was appended: block 0 is untouched. */
		loff_t end = dir->i_size;

		if (end > bs) {
			i_size_write(dir, bs);
			mark_inode_dirty(dir);
			ext2hole_write_failed(dir->i_mapping, end);
		}
		if (err == -ENOSPC || err == -EDQUOT)
			err = 1;
		goto out;
	}

	/* The root: '.', '..' over the rest of the block, info, entries. */
	dotdot = (struct ext2hole_dir_entry *)(buf + bs + EXT2HOLE_DIR_REC_LEN(1));
	memset(buf + bs, 0, bs);
	memcpy(buf + bs, dot, EXT2HOLE_DIR_REC_LEN(1));
	((struct ext2hole_dir_entry *)(buf + bs))->rec_len =
		cpu_to_le16(EXT2HOLE_DIR_REC_LEN(1));
	memcpy(dotdot, ext2hole_next_entry(dot), EXT2HOLE_DIR_REC_LEN(2));
	dotdot->rec_len = cpu_to_le16(bs - EXT2HOLE_DIR_REC_LEN(1));
	info = (struct ext2hole_dx_root_info *)(buf + bs +
						 EXT2HOLE_DX_ROOT_INFO_OFFS);
	info->hash_version = version;
	info->info_length = sizeof(*info);
	e = (struct ext2hole_dx_entry *)(buf + bs + EXT2HOLE_DX_ROOT_ENTRIES_OFFS);
	cl = (struct ext2hole_dx_countlimit *)e;
	cl->limit = cpu_to_le16((bs - EXT2HOLE_DX_ROOT_ENTRIES_OFFS) /
				sizeof(*e));
	cl->count = cpu_to_le16(2);
	e[0].block = cpu_to_le32(1);
	e[1].hash = cpu_to_le32(hash);
	e[1].block = cpu_to_le32(2);
	err = ext2hole_dir_write_block(dir, 0, buf + bs);
	if (err)
		goto out;
	EXT2HOLE_I(dir)->i_flags |= EXT2HOLE_INDEX_FL;
	mark_inode_dirty(dir);
	atomic64_inc(&sbi->s_dir_stats.dx_indexed);
out:
	kfree(map);
	kfree(buf);
	return err;
}

/*
 * ext2hole_dx_add_link - add an entry to the leaf the index selects
 *
 * The index stays valid: the leaf covers the name's hash.  When the leaf
 * is full, room is made (ext2hole_dx_make_room(): the leaf split, or
 * first the index grown) and the insert tried again, a few times at most.
 *
 * Return: 0, EXT2HOLE_DX_FULL when there is no room that keeps the index,
 * EXT2HOLE_DX_LINEAR when the index cannot be used, or a negative error.
 */
static int ext2hole_dx_add_link(struct inode *dir, const struct qstr *child,
				struct inode *inode)
{
	struct ext2hole_dx_path path;
	int tries, err;

	for (tries = 0;; tries++) {
		err = ext2hole_dx_probe(dir, child->name, child->len, &path);
		if (!err)
			err = ext2hole_dx_insert_leaf(dir,
					ext2hole_dx_block(path.frame[path.levels - 1].at),
					child, inode);
		if (err != EXT2HOLE_DX_FULL || tries >= EXT2HOLE_DX_TRIES) {
			ext2hole_dx_release(&path);
			break;
		}
		err = ext2hole_dx_make_room(dir, &path);
		ext2hole_dx_release(&path);
		if (err)
			break;
	}
	if (!err)
		atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_inserts);
	return err;
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

	if (ext2hole_dx_usable(dir)) {
		err = ext2hole_dx_add_link(dir, &dentry->d_name, inode);
		if (err <= 0)
			return err;
		/* No room that keeps the index: linear from now on. */
		if (err == EXT2HOLE_DX_FULL)
			atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_dropped);
	}

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
	err = ext2hole_commit_chunk(page, pos, to - from);
	ext2hole_dir_changed(dir, true, true);
	return err;
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

	err = ext2hole_commit_chunk(page, 0, chunk);
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
	err = ext2hole_commit_chunk(page, pos, len);
	ext2hole_dir_changed(dir, update_times, true);
	return err;
}


/*
 * Readdir in hash order (docs/design.md, "On-disk decisions", readdir).
 *
 * The position of a directory that is indexed, or could become indexed
 * (one block long, on a filesystem with dir_index), is a hash cookie, as
 * with the ext4 driver: the major hash of the next name to return and
 * its minor hash, (major >> 1) << 32 | minor, or major >> 1 alone for a
 * caller that wants 32-bit positions (FMODE_32BITHASH, or a 32-bit
 * system call without FMODE_64BITHASH).  Names come back ordered by
 * (major, minor, name); '.' and '..' have the keys (0, 0) and (2, 0).
 * Splits, a new index, a second level move names between blocks, never
 * between hashes, so a reader neither misses a name nor sees it twice.
 * Each open directory keeps the names of the current hash range in an
 * rbtree (struct ext2hole_dir_pos): one leaf, and the leaves after it
 * that continue its last hash, fetched at a time; a change of the
 * directory (its i_version) fetches again from the last name returned.
 * A position taken by telldir is where the next name starts: several
 * names that share it (a hash collision) come back again after a seek to
 * it, none is lost.
 *
 * Whether an open directory's positions are hash cookies is decided at
 * open and kept: a directory whose index is dropped (ext2hole's two
 * levels full, or the index found inconsistent) under an open file goes
 * on in hash order there, by hashing the whole linear directory for each
 * batch of at most EXT2HOLE_RD_BATCH names.  Other directories keep byte
 * offsets (ext2hole_readdir_linear()); ext2hole never indexes one.
 */

/* The most names one batch of a linear directory read in hash order keeps. */
#define EXT2HOLE_RD_BATCH	2048
/* No upper bound on the hashes fetched. */
#define EXT2HOLE_RD_NO_LIMIT	(1ULL << 32)
/* The end of an indexed directory, in 32- and 64-bit positions. */
#define EXT2HOLE_RD_EOF_32	((loff_t)0x7fffffff)
#define EXT2HOLE_RD_EOF_64	((loff_t)LLONG_MAX)

/* The file->private_data of an open directory. */
struct ext2hole_dir_pos {
	struct rb_root names;		/* fetched, by key */
	struct rb_node *next;		/* the next one to return */
	unsigned int count;		/* names in the tree */
	bool hashed;			/* positions are hash cookies */
	bool filled;			/* the tree holds a fetch */
	bool end;			/* no name past those fetched */
	bool after;			/* resume after after_name, not at the key */
	u8 version;			/* hash version of the keys */
	u8 after_len;
	u32 hash, minor;		/* the key to resume at */
	u32 next_hash;			/* the first hash past the fetched names */
	u64 limit;			/* batch of a linear directory: hashes below */
	u64 i_version;			/* the directory's, at the fetch */
	loff_t last_pos;		/* ctx->pos when the last call returned */
	char after_name[EXT2HOLE_NAME_LEN];
};

struct ext2hole_rd_name {
	struct rb_node node;
	u32 hash, minor;
	u32 ino;
	u8 type;
	u8 len;
	char name[];
};

static bool ext2hole_rd_32bit(struct file *file)
{
	if (file->f_mode & FMODE_32BITHASH)
		return true;
	if (file->f_mode & FMODE_64BITHASH)
		return false;
	return in_compat_syscall() || BITS_PER_LONG == 32;
}

static loff_t ext2hole_rd_eof(struct file *file)
{
	return ext2hole_rd_32bit(file) ? EXT2HOLE_RD_EOF_32 : EXT2HOLE_RD_EOF_64;
}

static loff_t ext2hole_rd_pos(struct file *file, u32 hash, u32 minor)
{
	if (ext2hole_rd_32bit(file))
		return hash >> 1;
	return ((loff_t)(hash >> 1) << 32) | minor;
}

static void ext2hole_rd_key(struct file *file, loff_t pos, u32 *hash,
			    u32 *minor)
{
	if (ext2hole_rd_32bit(file)) {
		*hash = (u32)(pos << 1);
		*minor = 0;
	} else {
		*hash = (u32)((pos >> 32) << 1);
		*minor = (u32)pos;
	}
}

/* Positions of @dir are hash cookies for a file opened now. */
static bool ext2hole_rd_hashed(struct inode *dir)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	return (sbi->s_es->s_feature_compat &
		cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_DIR_INDEX)) &&
	       !test_bit(EXT2HOLE_DIR_DX_BAD, &ei->i_dir_state) &&
	       ((ei->i_flags & EXT2HOLE_INDEX_FL) ||
		dir->i_size == ext2hole_chunk_size(dir));
}

static int ext2hole_rd_cmp(u32 h1, u32 m1, const char *n1, unsigned int l1,
			   u32 h2, u32 m2, const char *n2, unsigned int l2)
{
	int c;

	if (h1 != h2)
		return h1 < h2 ? -1 : 1;
	if (m1 != m2)
		return m1 < m2 ? -1 : 1;
	c = memcmp(n1, n2, min(l1, l2));
	if (c)
		return c;
	return l1 < l2 ? -1 : l1 > l2;
}

static void ext2hole_rd_free(struct ext2hole_dir_pos *p)
{
	struct ext2hole_rd_name *n, *tmp;

	rbtree_postorder_for_each_entry_safe(n, tmp, &p->names, node)
		kfree(n);
	p->names = RB_ROOT;
	p->next = NULL;
	p->count = 0;
}

/*
 * A batch of a linear directory is over EXT2HOLE_RD_BATCH names: drop
 * the names of its highest hash and fetch no more of that hash or above
 * (a hash is never cut in two).  A batch of a single hash stays whole.
 */
static void ext2hole_rd_trim(struct ext2hole_dir_pos *p)
{
	struct ext2hole_rd_name *n;
	struct rb_node *node;
	u32 top;

	n = rb_entry(rb_last(&p->names), struct ext2hole_rd_name, node);
	top = n->hash;
	n = rb_entry(rb_first(&p->names), struct ext2hole_rd_name, node);
	if (n->hash == top) {
		p->limit = (u64)top + 1;
		return;
	}
	while ((node = rb_last(&p->names))) {
		n = rb_entry(node, struct ext2hole_rd_name, node);
		if (n->hash != top)
			break;
		rb_erase(node, &p->names);
		kfree(n);
		p->count--;
	}
	p->limit = top;
}

/*
 * Put the live entry @de in the tree when it comes after the resume
 * point.  '.' and '..' get their fixed keys; other names are hashed.
 *
 * Return: 1 when added, 0 when not wanted, or a negative error.
 */
static int ext2hole_rd_add(struct inode *dir, struct ext2hole_dir_pos *p,
			   const struct ext2hole_dir_entry *de)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct rb_node **link = &p->names.rb_node, *parent = NULL;
	struct ext2hole_rd_name *n;
	u32 hash, minor = 0;
	int c;

	if (de->name_len == 1 && de->name[0] == '.') {
		hash = 0;
	} else if (de->name_len == 2 && !memcmp(de->name, "..", 2)) {
		hash = 2;
	} else if (ext2hole_dx_hash2(de->name, de->name_len, p->version,
				     sbi->s_hash_seed, &hash, &minor)) {
		return -EFSCORRUPTED;
	}
	if (hash >= p->limit)
		return 0;
	if (hash != p->hash || minor != p->minor) {
		if (hash < p->hash || (hash == p->hash && minor < p->minor))
			return 0;
	} else if (p->after &&
		   ext2hole_rd_cmp(0, 0, de->name, de->name_len,
				   0, 0, p->after_name, p->after_len) <= 0) {
		return 0;
	}

	n = kmalloc(struct_size(n, name, de->name_len), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->hash = hash;
	n->minor = minor;
	n->ino = le32_to_cpu(de->inode);
	n->len = de->name_len;
	n->type = ext2hole_has_filetype(dir->i_sb) ?
		  fs_ftype_to_dtype(de->file_type) : DT_UNKNOWN;
	memcpy(n->name, de->name, n->len);
	while (*link) {
		struct ext2hole_rd_name *e;

		parent = *link;
		e = rb_entry(parent, struct ext2hole_rd_name, node);
		c = ext2hole_rd_cmp(n->hash, n->minor, n->name, n->len,
				    e->hash, e->minor, e->name, e->len);
		if (c < 0) {
			link = &parent->rb_left;
		} else if (c > 0) {
			link = &parent->rb_right;
		} else {
			kfree(n);	/* the same name twice (damage): once */
			return 0;
		}
	}
	rb_link_node(&n->node, parent, link);
	rb_insert_color(&n->node, &p->names);
	p->count++;
	return 1;
}

/*
 * Fetch the names of the directory block at @addr (of page @page, read
 * with *@ok telling whether it passed the checks) that come after the
 * resume point; a block that is not sound is skipped (it was reported
 * when its page was read).  @batch: trim to EXT2HOLE_RD_BATCH names.
 *
 * Return: the names added, or a negative error.
 */
static int ext2hole_rd_block(struct inode *dir, struct ext2hole_dir_pos *p,
			     struct page *page, char *addr, bool ok, bool batch)
{
	char *end = addr + ext2hole_chunk_size(dir);
	struct ext2hole_dir_entry *de;
	int added = 0, err;

	if (!ok && !ext2hole_check_block(dir, page_address(page),
					 addr - (char *)page_address(page),
					 page_offset(page), true))
		return 0;
	for (de = (void *)addr; (char *)de < end; de = ext2hole_next_entry(de)) {
		if (!de->inode)
			continue;
		err = ext2hole_rd_add(dir, p, de);
		if (err < 0)
			return err;
		added += err;
		if (batch && p->count > EXT2HOLE_RD_BATCH)
			ext2hole_rd_trim(p);
	}
	return added;
}

/*
 * Fetch through the index: '.' and '..' from the dx_root, then the leaf
 * holding the resume hash and the leaves after it, until a leaf gave
 * names and the next one does not continue its last hash.
 *
 * Return: 0, EXT2HOLE_DX_LINEAR when the index cannot be used, or a
 * negative error.
 */
static int ext2hole_rd_fill_dx(struct inode *dir, struct ext2hole_dx_path *path,
			       struct ext2hole_dir_pos *p)
{
	struct ext2hole_dir_entry *dot;
	unsigned int count = 0;
	struct page *page;
	u32 next;
	char *addr;
	bool ok;
	int err;

	path->hash = p->hash;
	err = ext2hole_dx_probe(dir, NULL, 0, path);
	if (err)
		return err;
	p->version = path->version;
	dot = (struct ext2hole_dir_entry *)path->frame[0].addr;
	if (p->hash <= 2) {
		err = ext2hole_rd_add(dir, p, dot);
		if (err >= 0)
			err = ext2hole_rd_add(dir, p, ext2hole_next_entry(dot));
		if (err < 0)
			return err;
	}
	for (;;) {
		if (fatal_signal_pending(current))
			return -ERESTARTSYS;
		addr = ext2hole_dx_read_block(dir,
				ext2hole_dx_block(path->frame[path->levels - 1].at),
				&page, &ok);
		if (IS_ERR(addr))
			return PTR_ERR(addr);
		err = ext2hole_rd_block(dir, p, page, addr, ok, false);
		ext2hole_put_dir_page(page);
		if (err < 0)
			return err;
		count += err;
		err = ext2hole_dx_next_leaf(dir, path, true, &next);
		if (err < 0)
			return err == -EAGAIN ? EXT2HOLE_DX_LINEAR : err;
		if (!err) {
			p->end = true;
			return 0;
		}
		if (count && !(next & 1)) {
			p->next_hash = next;
			return 0;
		}
		cond_resched();
	}
}

/*
 * Fetch from a directory read in hash order but not through an index
 * (one block long, or its index dropped or found bad): every block,
 * EXT2HOLE_RD_BATCH names at most (more for one hash).
 */
static int ext2hole_rd_fill_linear(struct inode *dir, struct ext2hole_dir_pos *p)
{
	unsigned int chunk = ext2hole_chunk_size(dir);
	unsigned long n, npages;
	unsigned int blk, last;
	int err;

	err = ext2hole_dir_npages(dir, &npages);
	if (err)
		return err;
	for (n = 0; n < npages; n++) {
		struct page *page;
		bool ok;

		if (fatal_signal_pending(current))
			return -ERESTARTSYS;
		page = ext2hole_read_dir_page(dir, n, &ok);
		if (IS_ERR(page))
			return PTR_ERR(page);
		last = ext2hole_last_byte(dir, n);
		for (blk = 0; blk + chunk <= last; blk += chunk) {
			err = ext2hole_rd_block(dir, p, page,
						(char *)page_address(page) + blk,
						ok, true);
			if (err < 0)
				break;
		}
		ext2hole_put_dir_page(page);
		if (err < 0)
			return err;
		cond_resched();
	}
	p->end = p->limit == EXT2HOLE_RD_NO_LIMIT;
	p->next_hash = (u32)p->limit;
	return 0;
}

/* Fetch the names from the resume point on into the (emptied) tree. */
static int ext2hole_rd_fill(struct inode *dir, struct ext2hole_dir_pos *p)
{
	struct ext2hole_dx_path path = { .levels = 0 };
	int err = EXT2HOLE_DX_LINEAR;

	ext2hole_rd_free(p);
	p->i_version = inode_query_iversion(dir);
	p->limit = EXT2HOLE_RD_NO_LIMIT;
	p->end = false;
	if (ext2hole_dx_usable(dir)) {
		err = ext2hole_rd_fill_dx(dir, &path, p);
		ext2hole_dx_release(&path);
		if (err) {
			ext2hole_rd_free(p);
			p->end = false;
		}
	}
	if (err > 0)
		err = ext2hole_rd_fill_linear(dir, p);
	if (err < 0) {
		ext2hole_rd_free(p);
		return err;
	}
	p->filled = true;
	p->next = rb_first(&p->names);
	return 0;
}

static int ext2hole_readdir_hashed(struct file *file, struct dir_context *ctx)
{
	struct ext2hole_dir_pos *p = file->private_data;
	struct inode *dir = file_inode(file);
	loff_t eof = ext2hole_rd_eof(file);
	struct ext2hole_rd_name *n;
	int err = 0;

	if (ctx->pos >= eof)
		return 0;
	if (ctx->pos != p->last_pos) {
		/* a seek: the names from that position's key on */
		ext2hole_rd_free(p);
		p->filled = false;
		p->after = false;
		ext2hole_rd_key(file, ctx->pos, &p->hash, &p->minor);
	}
	for (;;) {
		if (p->filled && !p->next) {
			/* every name fetched was returned: on past them */
			if (p->end || p->next_hash <= p->hash) {
				ctx->pos = eof;
				break;
			}
			p->hash = p->next_hash;
			p->minor = 0;
			p->after = false;
			p->filled = false;
		}
		if (!p->filled || !inode_eq_iversion(dir, p->i_version)) {
			err = ext2hole_rd_fill(dir, p);
			if (err)
				break;
			continue;
		}
		n = rb_entry(p->next, struct ext2hole_rd_name, node);
		ctx->pos = ext2hole_rd_pos(file, n->hash, n->minor);
		if (!dir_emit(ctx, n->name, n->len, n->ino, n->type)) {
			/*
			 * Go on at the position just handed out (the d_off
			 * of the last name returned), not before it: a name
			 * added meanwhile between the two keys is left out
			 * and positions never go down.
			 */
			if (n->hash != p->hash || n->minor != p->minor) {
				p->hash = n->hash;
				p->minor = n->minor;
				p->after = false;
			}
			break;
		}
		p->hash = n->hash;
		p->minor = n->minor;
		p->after = true;
		p->after_len = n->len;
		memcpy(p->after_name, n->name, n->len);
		p->next = rb_next(p->next);
	}
	p->last_pos = ctx->pos;
	return err;
}

static int ext2hole_readdir(struct file *file, struct dir_context *ctx)
{
	struct ext2hole_dir_pos *p = file->private_data;

	if (p && p->hashed)
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
	struct ext2hole_dir_pos *p = file->private_data;
	loff_t eof;

	if (p && p->hashed) {
		eof = ext2hole_rd_eof(file);
		return generic_file_llseek_size(file, offset, whence, eof, eof);
	}
	return generic_file_llseek(file, offset, whence);
}

static int ext2hole_dir_open(struct inode *dir, struct file *file)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct ext2hole_dir_pos *p;
	unsigned int version = sbi->s_es->s_def_hash_version;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->names = RB_ROOT;
	p->hashed = ext2hole_rd_hashed(dir);
	/* an index's own version replaces it at the first fetch through it */
	if (version > EXT2HOLE_DX_HASH_TEA)
		version = EXT2HOLE_DX_HASH_HALF_MD4;
	p->version = version + sbi->s_hash_unsigned;
	file->private_data = p;
	return 0;
}

static int ext2hole_dir_release(struct inode *dir, struct file *file)
{
	struct ext2hole_dir_pos *p = file->private_data;

	if (p) {
		ext2hole_rd_free(p);
		kfree(p);
	}
	return 0;
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
