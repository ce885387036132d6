// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole directory indexes (dir_index, "htree"; docs/design.md,
 * "On-disk decisions"): lookups, inserts and index growth through the
 * hash tree, and readdir in hash order.
 *
 * A directory with EXT2HOLE_INDEX_FL on a filesystem with dir_index is
 * looked up through its index: the name's hash selects, by binary search
 * in the dx_root (and in one dx_node below it, with indirect_levels 1),
 * the last entry whose hash is not above the name's, and the leaf block
 * it points at is searched; when the next entry's hash, low bit ignored,
 * equals the name's, the names of that hash continue in the next leaf,
 * which is searched too.  '.' and '..' (block 0) are looked up linearly.
 * Every index block is checked before it is followed; an inconsistent
 * index is reported once (per in-memory inode) and not used again: the
 * directory is searched linearly (src/dir.c), and the index flag is
 * cleared at its next change.
 *
 * Invariants kept by every change made here:
 *  - each leaf holds only names whose hashes lie in its index range, so
 *    a new entry goes into the leaf the index selects for its hash;
 *  - a full leaf is cut in two by hash (ext2hole_dx_cut_map()): the
 *    upper half goes to a block appended to the directory, with a dx
 *    entry for it right after the leaf's; a full index block grows the
 *    index first, as the ext4 driver's does without largedir (two levels
 *    at most): a full root of one level moves its entries into a new
 *    dx_node (indirect_levels 1), a full dx_node under a root with room
 *    is split in two;
 *  - every name stays reachable between the writes of a change: new
 *    blocks are written before the index entry that points at them, and
 *    the old block loses its moved names last (no journal: a crash in
 *    between leaves a duplicate or an unreferenced block for e2fsck);
 *  - a one-block linear directory that is full is indexed as the ext4
 *    driver's make_indexed_dir() does (ext2hole_dx_make_indexed()): its
 *    names cut in two leaves by the same splitter, then block 0 rewritten
 *    as the dx_root;
 *  - when the root and the dx_node are both full, or the index is not
 *    usable, ext2hole_dx_add_link() hands the name back to the linear
 *    scan, which clears the flag: the directory is linear from then on.
 *
 * Blocks change only through src/dir.c (ext2hole_write_entry(),
 * ext2hole_dir_write_block()), so a page is left valid after each write.
 *
 * Locking: the directory's i_rwsem, exclusive for an add (and for
 * indexing), shared for a lookup or readdir; then one directory page lock
 * at a time, taken by src/dir.c's writes, under which get_block takes
 * i_map_mutex.  An ext2hole_dx_path holds references, never locks, on its
 * index pages.  EXT2HOLE_DIR_DX_BAD is set with an atomic bit operation
 * and never cleared while the inode is in memory.
 */
#include <linux/compat.h>
#include <linux/iversion.h>
#include <linux/pagemap.h>
#include <linux/rbtree.h>
#include <linux/sort.h>
#include "ext2hole.h"
#include "dir.h"

/* The leaf for the hash is full (EXT2HOLE_DX_LINEAR is 1, in dir.h). */
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

/* @dir has an index to follow: its flag, dir_index, not found bad. */
static bool ext2hole_dx_usable(struct inode *dir)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	return (ei->i_flags & EXT2HOLE_INDEX_FL) &&
	       ext2hole_has_dir_index(dir->i_sb) &&
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

/**
 * ext2hole_dx_find - look a name up through the index of a directory
 * @dir: the directory
 * @child: the name (at most EXT2HOLE_NAME_LEN bytes)
 * @res_page: where the page holding the entry is returned
 *
 * Return: as ext2hole_find_entry(), or ERR_PTR(-EAGAIN) when the index is
 * not to be used: @dir has none that is usable, @child is '.' or '..', or
 * the index turned out inconsistent (search linearly).
 */
struct ext2hole_dir_entry *ext2hole_dx_find(struct inode *dir,
					    const struct qstr *child,
					    struct page **res_page)
{
	struct ext2hole_dx_path path;
	struct ext2hole_dir_entry *de;
	int err;

	if (!ext2hole_dx_usable(dir) || !ext2hole_dx_name(child))
		return ERR_PTR(-EAGAIN);
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
 * Rewrite the index block of @frame with the dx entry (@hash, @block)
 * inserted right after frame->at, built in the block-sized buffer @buf.
 * The caller made sure the block has room.
 */
static int ext2hole_dx_add_entry(struct inode *dir,
				 const struct ext2hole_dx_frame *frame,
				 u32 hash, u32 block, char *buf)
{
	unsigned int at = frame->at - frame->entries;
	struct ext2hole_dx_entry *e;

	memcpy(buf, frame->addr, ext2hole_chunk_size(dir));
	e = (struct ext2hole_dx_entry *)(buf + ((char *)frame->entries -
						frame->addr));
	memmove(&e[at + 2], &e[at + 1], (frame->count - at - 1) * sizeof(*e));
	e[at + 1].hash = cpu_to_le32(hash);
	e[at + 1].block = cpu_to_le32(block);
	ext2hole_dx_set_count(e, frame->count + 1);
	return ext2hole_dir_write_block(dir, frame->block, buf);
}

/* A live entry of a leaf being cut: its hash, where it is, its size. */
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
 * The leaf splitter: a directory block whose names are cut in two by
 * hash, for a leaf split (ext2hole_dx_split()) and for a directory being
 * indexed (ext2hole_dx_make_indexed()), as the ext4 driver's do_split()
 * serves both.  ext2hole_dx_cut_start() copies the block,
 * ext2hole_dx_cut_map() hashes and sorts its names and picks the cut,
 * ext2hole_dx_cut_write() packs one half into a block; the caller orders
 * the writes so that every name stays reachable, and releases the cut
 * with ext2hole_dx_cut_end() whatever happened.
 */
struct ext2hole_dx_cut {
	char *leaf;			/* a copy of the block being cut */
	char *buf;			/* block-sized: a half, or an index block */
	struct ext2hole_dx_map *map;	/* its live entries, by hash */
	unsigned int n;			/* entries in @map */
	unsigned int split;		/* the first entry of the upper half */
	u32 hash;			/* the upper half's index entry */
};

/* Copy directory block @block into @cut.  Return: 0 or a negative error. */
static int ext2hole_dx_cut_start(struct inode *dir, struct ext2hole_dx_cut *cut,
				 u32 block)
{
	unsigned int bs = ext2hole_chunk_size(dir);
	struct page *page;
	char *addr;
	bool ok;

	cut->leaf = kmalloc(2 * bs, GFP_NOFS);
	cut->buf = cut->leaf ? cut->leaf + bs : NULL;
	cut->map = kmalloc_array(bs / EXT2HOLE_DIR_REC_LEN(1),
				 sizeof(*cut->map), GFP_NOFS);
	if (!cut->leaf || !cut->map)
		return -ENOMEM;
	addr = ext2hole_dx_read_block(dir, block, &page, &ok);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	memcpy(cut->leaf, addr, bs);
	ext2hole_put_dir_page(page);
	return ok ? 0 : -EFSCORRUPTED;
}

static void ext2hole_dx_cut_end(struct ext2hole_dx_cut *cut)
{
	kfree(cut->map);
	kfree(cut->leaf);
}

/*
 * Hash the live entries of the copied block from offset @from on (hash
 * @version, unsigned variant included), sort them by hash and pick the
 * cut.
 *
 * Return: 0, EXT2HOLE_DX_FULL when there are fewer than two names, or
 * -EFSCORRUPTED when a name cannot be hashed.
 */
static int ext2hole_dx_cut_map(struct inode *dir, struct ext2hole_dx_cut *cut,
			       unsigned int from, unsigned int version)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	unsigned int bs = ext2hole_chunk_size(dir);
	struct ext2hole_dx_map *map = cut->map;
	struct ext2hole_dir_entry *de;
	unsigned int offs, n = 0;

	for (offs = from; offs < bs; offs += ext2hole_rec_len(de)) {
		de = (struct ext2hole_dir_entry *)(cut->leaf + offs);
		if (!de->inode)
			continue;
		map[n].offs = offs;
		map[n].size = EXT2HOLE_DIR_REC_LEN(de->name_len);
		if (ext2hole_dx_hash(de->name, de->name_len, version,
				     sbi->s_hash_seed, &map[n].hash))
			return -EFSCORRUPTED;
		n++;
	}
	if (n < 2)
		return EXT2HOLE_DX_FULL;
	sort(map, n, sizeof(*map), ext2hole_dx_map_cmp, NULL);
	cut->n = n;
	cut->split = ext2hole_dx_split_point(map, n, &cut->hash);
	return 0;
}

/*
 * Write the @upper (or lower) half of @cut to directory block @block
 * (appended when it is the directory's size in blocks): its entries
 * packed in hash order, the last one covering the rest of the block.
 */
static int ext2hole_dx_cut_write(struct inode *dir, struct ext2hole_dx_cut *cut,
				 bool upper, u32 block)
{
	unsigned int bs = ext2hole_chunk_size(dir);
	unsigned int i = upper ? cut->split : 0;
	unsigned int end = upper ? cut->n : cut->split;
	const struct ext2hole_dx_map *map = cut->map;
	struct ext2hole_dir_entry *de = NULL;
	unsigned int offs = 0;

	memset(cut->buf, 0, bs);
	for (; i < end; i++) {
		de = (struct ext2hole_dir_entry *)(cut->buf + offs);
		memcpy(de, cut->leaf + map[i].offs, map[i].size);
		de->rec_len = cpu_to_le16(map[i].size);
		offs += map[i].size;
	}
	de->rec_len = cpu_to_le16(bs - offs + map[end - 1].size);
	return ext2hole_dir_write_block(dir, block, cut->buf);
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
	struct ext2hole_dx_frame *frame = &path->frame[path->levels - 1];
	u32 leaf = ext2hole_dx_block(frame->at);
	u32 newblk = dir->i_size >> dir->i_blkbits;
	struct ext2hole_dx_cut cut;
	int err;

	err = ext2hole_dx_cut_start(dir, &cut, leaf);
	if (!err)
		err = ext2hole_dx_cut_map(dir, &cut, 0, path->version);
	if (err)
		goto out;

	/* The new leaf, appended: the moved names are still in the old one. */
	err = ext2hole_dx_cut_write(dir, &cut, true, newblk);
	if (err == -ENOSPC || err == -EDQUOT) {
		err = EXT2HOLE_DX_FULL;	/* linear room may still be found */
		goto out;
	}
	if (err)
		goto out;

	/* The index entry, after the old leaf's. */
	err = ext2hole_dx_add_entry(dir, frame, cut.hash, newblk, cut.buf);
	if (err)
		goto out;

	/* The old leaf, with the names that stay. */
	err = ext2hole_dx_cut_write(dir, &cut, false, leaf);
	if (!err)
		atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_splits);
out:
	ext2hole_dx_cut_end(&cut);
	return err;
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
	unsigned int keep = node->count / 2, moved = node->count - keep;
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
	err = ext2hole_dx_add_entry(dir, root, hash, newblk, buf);
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

/**
 * ext2hole_dx_indexable - is a full linear directory to be indexed?
 * @dir: a linear directory with no room left in its one block
 *
 * As the ext4 driver decides: the superblock has dir_index, the directory
 * is exactly one block long, has no index flag and no index found bad.
 *
 * Return: true when ext2hole_dx_make_indexed() is to be tried.
 */
bool ext2hole_dx_indexable(struct inode *dir)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	return ext2hole_has_dir_index(dir->i_sb) &&
	       !(ei->i_flags & EXT2HOLE_INDEX_FL) &&
	       !test_bit(EXT2HOLE_DIR_DX_BAD, &ei->i_dir_state) &&
	       dir->i_size == ext2hole_chunk_size(dir);
}

/*
 * Build in the block-sized @root the dx_root of a directory being
 * indexed: '.' and '..' (copied from @dot and @dotdot, '..' covering the
 * rest of the block), the root info for hash @version, and two entries:
 * block 1, and block 2 from @hash on.
 */
static void ext2hole_dx_make_root(struct inode *dir, char *root,
				  const struct ext2hole_dir_entry *dot,
				  const struct ext2hole_dir_entry *dotdot,
				  unsigned int version, u32 hash)
{
	unsigned int bs = ext2hole_chunk_size(dir);
	struct ext2hole_dir_entry *de;
	struct ext2hole_dx_root_info *info;
	struct ext2hole_dx_countlimit *cl;
	struct ext2hole_dx_entry *e;

	memset(root, 0, bs);
	de = (struct ext2hole_dir_entry *)root;
	memcpy(de, dot, EXT2HOLE_DIR_REC_LEN(1));
	de->rec_len = cpu_to_le16(EXT2HOLE_DIR_REC_LEN(1));
	de = (struct ext2hole_dir_entry *)(root + EXT2HOLE_DIR_REC_LEN(1));
	memcpy(de, dotdot, EXT2HOLE_DIR_REC_LEN(2));
	de->rec_len = cpu_to_le16(bs - EXT2HOLE_DIR_REC_LEN(1));
	info = (struct ext2hole_dx_root_info *)(root + EXT2HOLE_DX_ROOT_INFO_OFFS);
	info->hash_version = version;
	info->info_length = sizeof(*info);
	e = (struct ext2hole_dx_entry *)(root + EXT2HOLE_DX_ROOT_ENTRIES_OFFS);
	cl = (struct ext2hole_dx_countlimit *)e;
	cl->limit = cpu_to_le16((bs - EXT2HOLE_DX_ROOT_ENTRIES_OFFS) /
				sizeof(*e));
	cl->count = cpu_to_le16(2);
	e[0].block = cpu_to_le32(1);
	e[1].hash = cpu_to_le32(hash);
	e[1].block = cpu_to_le32(2);
}

/**
 * ext2hole_dx_make_indexed - index a one-block directory that is full
 * @dir: the directory (ext2hole_dx_indexable())
 *
 * As the ext4 driver's make_indexed_dir(): the names of block 0 after '.'
 * and '..' are cut in two by hash (the superblock's s_def_hash_version,
 * with its unsigned-hash flag) by the leaf splitter, the halves appended
 * to the directory as blocks 1 and 2; block 0 is then rewritten as a
 * dx_root ('.', '..' covering the rest of the block, the root info and
 * two entries) and the index flag set.  The leaves are written before the
 * root that points at them: until then they are duplicates a linear
 * reader does not see under the directory's lock (after a crash, e2fsck
 * removes them).  The caller holds the directory's i_rwsem exclusive.
 *
 * Return: 0 when indexed, 1 when the directory is left linear (an
 * unknown default hash, a block 0 not starting with '.' and '..', fewer
 * than two names, no room on the device), or a negative error.
 */
int ext2hole_dx_make_indexed(struct inode *dir)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	unsigned int version = sbi->s_es->s_def_hash_version;
	unsigned int bs = ext2hole_chunk_size(dir);
	struct ext2hole_dir_entry *dot, *dotdot;
	struct ext2hole_dx_cut cut;
	int err;

	if (version > EXT2HOLE_DX_HASH_TEA)
		return 1;
	err = ext2hole_dx_cut_start(dir, &cut, 0);
	if (err)
		goto out;

	err = 1;
	dot = (struct ext2hole_dir_entry *)cut.leaf;
	if (dot->name_len != 1 || dot->name[0] != '.' || !dot->inode ||
	    ext2hole_rec_len(dot) >= bs)
		goto out;
	dotdot = ext2hole_next_entry(dot);
	if (dotdot->name_len != 2 || memcmp(dotdot->name, "..", 2) ||
	    !dotdot->inode)
		goto out;
	err = ext2hole_dx_cut_map(dir, &cut,
				  (char *)ext2hole_next_entry(dotdot) - cut.leaf,
				  version + sbi->s_hash_unsigned);
	if (err)
		goto out;

	/* The two leaves, appended as blocks 1 and 2. */
	err = ext2hole_dx_cut_write(dir, &cut, false, 1);
	if (!err)
		err = ext2hole_dx_cut_write(dir, &cut, true, 2);
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

	/* Then the root that points at them. */
	ext2hole_dx_make_root(dir, cut.buf, dot, dotdot, version, cut.hash);
	err = ext2hole_dir_write_block(dir, 0, cut.buf);
	if (err)
		goto out;
	EXT2HOLE_I(dir)->i_flags |= EXT2HOLE_INDEX_FL;
	mark_inode_dirty(dir);
	atomic64_inc(&sbi->s_dir_stats.dx_indexed);
out:
	ext2hole_dx_cut_end(&cut);
	return err > 0 ? 1 : err;
}

/**
 * ext2hole_dx_add_link - add an entry to the leaf the index selects
 * @dir: the directory (its i_rwsem held exclusive)
 * @child: the new name
 * @inode: the inode it names
 *
 * The index stays valid: the leaf covers the name's hash.  When the leaf
 * is full, room is made (ext2hole_dx_make_room(): the leaf split, or
 * first the index grown) and the insert tried again, a few times at most.
 *
 * Return: 0, -EEXIST or another negative error, or EXT2HOLE_DX_LINEAR:
 * the caller places the entry by the linear scan, which clears the index
 * flag (no usable index, or no room that keeps it: counted in dx_dropped).
 */
int ext2hole_dx_add_link(struct inode *dir, const struct qstr *child,
			 struct inode *inode)
{
	struct ext2hole_dx_path path;
	int tries, err;

	if (!ext2hole_dx_usable(dir))
		return EXT2HOLE_DX_LINEAR;
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
	if (err != EXT2HOLE_DX_FULL)
		return err;
	/* No room that keeps the index: linear from now on. */
	atomic64_inc(&EXT2HOLE_SB(dir->i_sb)->s_dir_stats.dx_dropped);
	return EXT2HOLE_DX_LINEAR;
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

/**
 * ext2hole_rd_eof - the end-of-directory position of a file read in hash order
 * @file: the open directory (ext2hole_rd_hashed())
 *
 * Return: 0x7fffffff for 32-bit positions, LLONG_MAX otherwise.
 */
loff_t ext2hole_rd_eof(struct file *file)
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
static bool ext2hole_rd_hash_order(struct inode *dir)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(dir);

	return ext2hole_has_dir_index(dir->i_sb) &&
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

/**
 * ext2hole_readdir_hashed - readdir of a file whose positions are hash cookies
 * @file: the open directory (ext2hole_rd_hashed())
 * @ctx: the caller's position and buffer
 *
 * Return: 0 (also at the end, ctx->pos then the end cookie) or an error.
 */
int ext2hole_readdir_hashed(struct file *file, struct dir_context *ctx)
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

/**
 * ext2hole_rd_hashed - whether an open directory is read in hash order
 * @file: the open directory
 *
 * Decided at open (ext2hole_dir_open()) and kept while the file is open.
 *
 * Return: true when its positions are hash cookies, false for byte offsets.
 */
bool ext2hole_rd_hashed(struct file *file)
{
	struct ext2hole_dir_pos *p = file->private_data;

	return p && p->hashed;
}

/**
 * ext2hole_dir_open - ->open of a directory: its readdir state
 * @dir: the directory
 * @file: the file being opened
 *
 * Return: 0 or -ENOMEM.
 */
int ext2hole_dir_open(struct inode *dir, struct file *file)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(dir->i_sb);
	struct ext2hole_dir_pos *p;
	unsigned int version = sbi->s_es->s_def_hash_version;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->names = RB_ROOT;
	p->hashed = ext2hole_rd_hash_order(dir);
	/* an index's own version replaces it at the first fetch through it */
	if (version > EXT2HOLE_DX_HASH_TEA)
		version = EXT2HOLE_DX_HASH_HALF_MD4;
	p->version = version + sbi->s_hash_unsigned;
	file->private_data = p;
	return 0;
}

/**
 * ext2hole_dir_release - ->release of a directory: frees its readdir state
 * @dir: the directory
 * @file: the file being closed
 *
 * Return: 0.
 */
int ext2hole_dir_release(struct inode *dir, struct file *file)
{
	struct ext2hole_dir_pos *p = file->private_data;

	if (p) {
		ext2hole_rd_free(p);
		kfree(p);
	}
	return 0;
}
