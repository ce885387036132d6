// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole extended attributes: reading them from the inode body and the
 * xattr block, and listing them.
 *
 * Both places hold the same kind of list (include/ext2hole_fs.h): entries
 * from a start address up to four zero bytes, values elsewhere in the same
 * region.  A list is checked whole before anything in it is used; a bad
 * one is refused with an `ext2hole (<dev>):` line and -EFSCORRUPTED, its
 * contents never followed.  The in-inode list is searched first, then the
 * block, as the ext4 driver does; listxattr lists them in that order.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sort.h>
#include <linux/mbcache.h>
#include "ext2hole.h"
#include "xattr.h"

#define EXT2HOLE_XATTR_LAST(e)	(*(const __le32 *)(e) == 0)
#define EXT2HOLE_XATTR_NEXT(e) \
	((struct ext2hole_xattr_entry *)((char *)(e) + \
					 EXT2HOLE_XATTR_LEN((e)->e_name_len)))

static void ext2hole_xattr_cache_insert(struct super_block *sb,
					struct buffer_head *bh);

/**
 * struct ext2hole_xattr_list - one checked list of entries
 * @first: the first entry
 * @end: the end of the region (block end, inode end)
 * @base: what e_value_offs counts from
 */
struct ext2hole_xattr_list {
	struct ext2hole_xattr_entry *first;
	void *end;
	void *base;
};

/*
 * Check a list of entries: every entry and the terminator inside the
 * region, no value block (ext4's value inodes are not ext2's format), each
 * value inside the region after the entry list.  Returns NULL when the
 * list is sound, else what is wrong with it.
 */
static const char *ext2hole_xattr_check_list(const struct ext2hole_xattr_list *l)
{
	struct ext2hole_xattr_entry *e = l->first;
	size_t room = (char *)l->end - (char *)l->base;
	void *names_end;

	for (;;) {
		if ((char *)e + sizeof(__le32) > (char *)l->end)
			return "entry list not terminated";
		if (EXT2HOLE_XATTR_LAST(e))
			break;
		if ((char *)e + sizeof(*e) > (char *)l->end ||
		    (char *)EXT2HOLE_XATTR_NEXT(e) + sizeof(__le32) >
		    (char *)l->end)
			return "entry beyond the end";
		if (e->e_value_block)
			return "value in another block or inode";
		if (memchr(e->e_name, 0, e->e_name_len))
			return "NUL in a name";
		e = EXT2HOLE_XATTR_NEXT(e);
	}
	names_end = (char *)e + sizeof(__le32);

	for (e = l->first; !EXT2HOLE_XATTR_LAST(e); e = EXT2HOLE_XATTR_NEXT(e)) {
		u32 size = le32_to_cpu(e->e_value_size);
		u16 offs = le16_to_cpu(e->e_value_offs);
		char *value;

		if (!size)
			continue;
		if (size > room || offs > room)
			return "bad value size or offset";
		value = (char *)l->base + offs;
		if (value < (char *)names_end)
			return "value overlaps the entries";
		if (EXT2HOLE_XATTR_SIZE((size_t)size) > (size_t)((char *)l->end - value))
			return "value beyond the end";
	}
	return NULL;
}

/*
 * The in-inode list of @inode.  Returns 0 and the inode table buffer in
 * *@bhp (NULL when the inode has no in-inode attributes), or an error.
 */
static int ext2hole_xattr_ibody(struct inode *inode, struct buffer_head **bhp,
				struct ext2hole_xattr_list *l)
{
	struct super_block *sb = inode->i_sb;
	unsigned int isize = EXT2HOLE_SB(sb)->s_inode_size;
	struct ext2hole_xattr_ibody_header *hdr;
	struct ext2hole_inode *raw;
	struct buffer_head *bh;
	const char *why;
	unsigned int extra;

	*bhp = NULL;
	if (isize <= EXT2HOLE_GOOD_OLD_INODE_SIZE)
		return 0;
	raw = ext2hole_get_raw_inode(sb, inode->i_ino, &bh);
	if (IS_ERR(raw))
		return PTR_ERR(raw);
	extra = le16_to_cpu(EXT2HOLE_INODE_EXTRA(raw)->i_extra_isize);
	if (extra > isize - EXT2HOLE_GOOD_OLD_INODE_SIZE || (extra & 3)) {
		why = "bad i_extra_isize";
		goto corrupt;
	}
	/* As ext4: no room for the magic, or no magic, is no attributes. */
	if (!extra || EXT2HOLE_GOOD_OLD_INODE_SIZE + extra + sizeof(*hdr) > isize)
		goto none;
	hdr = (void *)((char *)raw + EXT2HOLE_GOOD_OLD_INODE_SIZE + extra);
	if (hdr->h_magic != cpu_to_le32(EXT2HOLE_XATTR_MAGIC))
		goto none;
	l->first = (struct ext2hole_xattr_entry *)(hdr + 1);
	l->end = (char *)raw + isize;
	l->base = l->first;
	why = ext2hole_xattr_check_list(l);
	if (why)
		goto corrupt;
	*bhp = bh;
	return 0;

corrupt:
	brelse(bh);
	ext2hole_error(sb, "inode %lu: corrupted in-inode extended attributes: %s",
		       inode->i_ino, why);
	return -EFSCORRUPTED;
none:
	brelse(bh);
	return 0;
}

/*
 * The xattr block of @inode, checked.  Returns the buffer (NULL when the
 * inode has none) or an ERR_PTR.
 */
static struct buffer_head *ext2hole_xattr_block(struct inode *inode,
						struct ext2hole_xattr_list *l)
{
	struct super_block *sb = inode->i_sb;
	u32 nr = EXT2HOLE_I(inode)->i_file_acl;
	struct ext2hole_xattr_header *hdr;
	struct buffer_head *bh;
	const char *why;

	if (!nr)
		return NULL;
	if (!ext2hole_data_blocks_valid(sb, nr, 1)) {
		ext2hole_error(sb, "inode %lu: bad extended attribute block %u",
			       inode->i_ino, nr);
		return ERR_PTR(-EFSCORRUPTED);
	}
	bh = ext2hole_bread(sb, nr);
	if (!bh) {
		ext2hole_msg(sb, KERN_ERR,
			     "inode %lu: cannot read extended attribute block %u",
			     inode->i_ino, nr);
		return ERR_PTR(-EIO);
	}
	hdr = (struct ext2hole_xattr_header *)bh->b_data;
	if (hdr->h_magic != cpu_to_le32(EXT2HOLE_XATTR_MAGIC)) {
		why = "bad magic";
		goto corrupt;
	}
	if (hdr->h_blocks != cpu_to_le32(1)) {
		why = "h_blocks is not 1";
		goto corrupt;
	}
	if (!hdr->h_refcount) {
		why = "reference count 0";
		goto corrupt;
	}
	l->first = (struct ext2hole_xattr_entry *)(hdr + 1);
	l->end = bh->b_data + bh->b_size;
	l->base = bh->b_data;
	why = ext2hole_xattr_check_list(l);
	if (why)
		goto corrupt;
	ext2hole_xattr_cache_insert(sb, bh);
	return bh;

corrupt:
	brelse(bh);
	ext2hole_error(sb, "inode %lu: bad extended attribute block %u: %s",
		       inode->i_ino, nr, why);
	return ERR_PTR(-EFSCORRUPTED);
}

/* Look @name up in a checked list; copy the value out as getxattr does. */
static int ext2hole_xattr_find(const struct ext2hole_xattr_list *l,
			       int name_index, const char *name,
			       size_t name_len, void *buffer, size_t size)
{
	struct ext2hole_xattr_entry *e;

	for (e = l->first; !EXT2HOLE_XATTR_LAST(e); e = EXT2HOLE_XATTR_NEXT(e)) {
		size_t vsize;

		if (e->e_name_index != name_index || e->e_name_len != name_len ||
		    memcmp(e->e_name, name, name_len))
			continue;
		vsize = le32_to_cpu(e->e_value_size);
		if (buffer) {
			if (vsize > size)
				return -ERANGE;
			memcpy(buffer, (char *)l->base +
			       le16_to_cpu(e->e_value_offs), vsize);
		}
		return vsize;
	}
	return -ENODATA;
}

/* The length of @name into *@len: -EINVAL without one, -ERANGE over 255. */
static int ext2hole_xattr_name_len(const char *name, size_t *len)
{
	if (!name)
		return -EINVAL;
	*len = strlen(name);
	return *len > 255 ? -ERANGE : 0;
}

/**
 * ext2hole_xattr_get - read one extended attribute
 * @inode: the inode
 * @name_index: EXT2HOLE_XATTR_INDEX_* (the namespace)
 * @name: the name without its namespace prefix
 * @buffer: where the value goes, or NULL to ask for its size
 * @size: the size of @buffer
 *
 * Return: the size of the value, -ENODATA when there is no such
 * attribute, -ERANGE when @buffer is too small or @name too long,
 * -EFSCORRUPTED (reported) or -EIO.
 */
int ext2hole_xattr_get(struct inode *inode, int name_index, const char *name,
		       void *buffer, size_t size)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_xattr_list l;
	struct buffer_head *bh;
	size_t name_len;
	int err;

	err = ext2hole_xattr_name_len(name, &name_len);
	if (err)
		return err;

	down_read(&ei->i_xattr_sem);
	err = ext2hole_xattr_ibody(inode, &bh, &l);
	if (err)
		goto out;
	if (bh) {
		err = ext2hole_xattr_find(&l, name_index, name, name_len,
					  buffer, size);
		brelse(bh);
		if (err != -ENODATA)
			goto out;
	}
	bh = ext2hole_xattr_block(inode, &l);
	if (IS_ERR(bh)) {
		err = PTR_ERR(bh);
		goto out;
	}
	err = -ENODATA;
	if (bh) {
		err = ext2hole_xattr_find(&l, name_index, name, name_len,
					  buffer, size);
		brelse(bh);
	}
out:
	up_read(&ei->i_xattr_sem);
	return err;
}

/*
 * Add the names of a checked list that @dentry's caller may see to
 * @buffer (@size bytes, *@used of them taken); with a NULL @buffer only
 * count.  Unknown namespaces are left out, as the ext2/ext4 drivers do.
 */
static int ext2hole_xattr_list_names(struct dentry *dentry,
				     const struct ext2hole_xattr_list *l,
				     char *buffer, size_t size, size_t *used)
{
	struct ext2hole_xattr_entry *e;

	for (e = l->first; !EXT2HOLE_XATTR_LAST(e); e = EXT2HOLE_XATTR_NEXT(e)) {
		const struct xattr_handler *handler;
		const char *prefix;
		size_t plen, total;

		handler = ext2hole_xattr_handler(e->e_name_index);
		if (!handler || (handler->list && !handler->list(dentry)))
			continue;
		prefix = xattr_prefix(handler);
		plen = strlen(prefix);
		total = plen + e->e_name_len + 1;
		if (buffer) {
			if (total > size - *used)
				return -ERANGE;
			memcpy(buffer + *used, prefix, plen);
			memcpy(buffer + *used + plen, e->e_name, e->e_name_len);
			buffer[*used + total - 1] = '\0';
		}
		*used += total;
	}
	return 0;
}

/**
 * ext2hole_listxattr - inode_operations.listxattr
 * @dentry: the file
 * @buffer: where the NUL-separated names go, or NULL to ask for the size
 * @size: the size of @buffer
 *
 * Return: the size of the list, or -ERANGE, -EFSCORRUPTED, -EIO.
 */
ssize_t ext2hole_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_xattr_list l;
	struct buffer_head *bh;
	size_t used = 0;
	int err;

	down_read(&ei->i_xattr_sem);
	err = ext2hole_xattr_ibody(inode, &bh, &l);
	if (err)
		goto out;
	if (bh) {
		err = ext2hole_xattr_list_names(dentry, &l, buffer, size, &used);
		brelse(bh);
		if (err)
			goto out;
	}
	bh = ext2hole_xattr_block(inode, &l);
	if (IS_ERR(bh)) {
		err = PTR_ERR(bh);
		goto out;
	}
	if (bh) {
		err = ext2hole_xattr_list_names(dentry, &l, buffer, size, &used);
		brelse(bh);
	}
out:
	up_read(&ei->i_xattr_sem);
	return err ? err : used;
}

/* ---------------------------------------------------------------------- */
/* writing */

/*
 * An attribute while a set rebuilds the lists: name and value point into
 * copies of the old lists (or at the caller's new value).
 */
struct ext2hole_xattr_item {
	const char *name;
	const void *value;
	u32 size;
	u8 name_len;
	u8 index;
	bool in_inode;
};

#define EXT2HOLE_NAME_HASH_SHIFT	5
#define EXT2HOLE_VALUE_HASH_SHIFT	16
#define EXT2HOLE_BLOCK_HASH_SHIFT	16

/*
 * The hash of an entry, as ext2/ext4 and e2fsck compute it: the name's
 * bytes, then the value's (zero-padded) little-endian words.
 */
static __le32 ext2hole_xattr_hash_entry(const char *name, size_t name_len,
					const void *value, size_t size)
{
	const unsigned char *n = (const unsigned char *)name;
	const __le32 *v = value;
	u32 hash = 0;
	size_t i;

	for (i = 0; i < name_len; i++)
		hash = (hash << EXT2HOLE_NAME_HASH_SHIFT) ^
		       (hash >> (32 - EXT2HOLE_NAME_HASH_SHIFT)) ^ n[i];
	for (i = 0; i < EXT2HOLE_XATTR_SIZE(size) / 4; i++)
		hash = (hash << EXT2HOLE_VALUE_HASH_SHIFT) ^
		       (hash >> (32 - EXT2HOLE_VALUE_HASH_SHIFT)) ^
		       le32_to_cpu(v[i]);
	return cpu_to_le32(hash);
}

/* The block hash of ext2_xattr_rehash: 0 if an entry has no hash. */
static __le32 ext2hole_xattr_hash_block(struct ext2hole_xattr_entry *first)
{
	struct ext2hole_xattr_entry *e;
	u32 hash = 0;

	for (e = first; !EXT2HOLE_XATTR_LAST(e); e = EXT2HOLE_XATTR_NEXT(e)) {
		if (!e->e_hash)
			return 0;
		hash = (hash << EXT2HOLE_BLOCK_HASH_SHIFT) ^
		       (hash >> (32 - EXT2HOLE_BLOCK_HASH_SHIFT)) ^
		       le32_to_cpu(e->e_hash);
	}
	return cpu_to_le32(hash);
}

/* Bytes the entries placed @in_inode take: entries, terminator, values. */
static size_t ext2hole_xattr_need(const struct ext2hole_xattr_item *it, int n,
				  bool in_inode)
{
	size_t need = sizeof(__le32);
	int i;

	for (i = 0; i < n; i++)
		if (it[i].in_inode == in_inode)
			need += EXT2HOLE_XATTR_LEN(it[i].name_len) +
				EXT2HOLE_XATTR_SIZE(it[i].size);
	return need;
}

/* ext4's order for block entries: index, name length, name. */
static int ext2hole_xattr_item_cmp(const void *a, const void *b)
{
	const struct ext2hole_xattr_item *x = a, *y = b;

	if (x->index != y->index)
		return x->index - y->index;
	if (x->name_len != y->name_len)
		return x->name_len - y->name_len;
	return memcmp(x->name, y->name, x->name_len);
}

/*
 * Write the entries placed @in_inode into [first, end), values from the
 * end down, offsets counted from @base.  The caller checked that they fit.
 */
static void ext2hole_xattr_build(void *first, void *end, void *base,
				 const struct ext2hole_xattr_item *it, int n,
				 bool in_inode)
{
	struct ext2hole_xattr_entry *e = first;
	char *vend = end;
	int i;

	memset(first, 0, (char *)end - (char *)first);
	for (i = 0; i < n; i++) {
		if (it[i].in_inode != in_inode)
			continue;
		e->e_name_len = it[i].name_len;
		e->e_name_index = it[i].index;
		e->e_value_size = cpu_to_le32(it[i].size);
		memcpy(e->e_name, it[i].name, it[i].name_len);
		if (it[i].size) {
			vend -= EXT2HOLE_XATTR_SIZE(it[i].size);
			memcpy(vend, it[i].value, it[i].size);
			e->e_value_offs = cpu_to_le16(vend - (char *)base);
		}
		e->e_hash = ext2hole_xattr_hash_entry(e->e_name, e->e_name_len,
						      vend, it[i].size);
		e = EXT2HOLE_XATTR_NEXT(e);
	}
}

/* Collect the entries of a checked list into @it (copied to @copy). */
static int ext2hole_xattr_collect(const struct ext2hole_xattr_list *l,
				  const void *region, void *copy,
				  struct ext2hole_xattr_item *it, int n,
				  bool in_inode)
{
	long shift = (char *)copy - (char *)region;
	struct ext2hole_xattr_entry *e;

	for (e = l->first; !EXT2HOLE_XATTR_LAST(e); e = EXT2HOLE_XATTR_NEXT(e)) {
		it[n].name = e->e_name + shift;
		it[n].name_len = e->e_name_len;
		it[n].index = e->e_name_index;
		it[n].size = le32_to_cpu(e->e_value_size);
		it[n].value = (char *)l->base + le16_to_cpu(e->e_value_offs) + shift;
		it[n].in_inode = in_inode;
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------------- */
/* sharing identical blocks (mbcache, keyed by h_hash, as ext2/ext4) */

/*
 * Offer a checked block for sharing.  Blocks without a hash or at the
 * reference limit are not offered.
 */
static void ext2hole_xattr_cache_insert(struct super_block *sb,
					struct buffer_head *bh)
{
	struct ext2hole_xattr_header *hdr = (void *)bh->b_data;
	u32 hash = le32_to_cpu(hdr->h_hash);

	if (!hash || le32_to_cpu(hdr->h_refcount) >= EXT2HOLE_XATTR_REFCOUNT_MAX)
		return;
	/* -EBUSY (already there) and -ENOMEM only cost sharing */
	mb_cache_entry_create(EXT2HOLE_SB(sb)->s_ea_block_cache, GFP_NOFS,
			      hash, bh->b_blocknr, true);
}

/*
 * Do a cached block (read, locked) and the new contents @nb hold the same
 * attributes?  The cached block is checked first: a cache entry can only
 * be trusted as far as the block it names still says so.
 */
static bool ext2hole_xattr_same(struct buffer_head *bh, const void *nb)
{
	const struct ext2hole_xattr_header *h = (void *)bh->b_data;
	struct ext2hole_xattr_list l = {
		.first = (void *)(bh->b_data + sizeof(*h)),
		.end = bh->b_data + bh->b_size,
		.base = bh->b_data,
	};
	struct ext2hole_xattr_entry *x, *y;

	if (h->h_magic != cpu_to_le32(EXT2HOLE_XATTR_MAGIC) ||
	    h->h_blocks != cpu_to_le32(1) || !h->h_refcount ||
	    le32_to_cpu(h->h_refcount) >= EXT2HOLE_XATTR_REFCOUNT_MAX ||
	    ext2hole_xattr_check_list(&l))
		return false;
	x = l.first;
	y = (void *)((const char *)nb + sizeof(*h));
	for (;;) {
		if (EXT2HOLE_XATTR_LAST(x) || EXT2HOLE_XATTR_LAST(y))
			return EXT2HOLE_XATTR_LAST(x) && EXT2HOLE_XATTR_LAST(y);
		if (x->e_name_index != y->e_name_index ||
		    x->e_name_len != y->e_name_len ||
		    x->e_value_size != y->e_value_size ||
		    x->e_hash != y->e_hash ||
		    memcmp(x->e_name, y->e_name, x->e_name_len) ||
		    memcmp(bh->b_data + le16_to_cpu(x->e_value_offs),
			   (const char *)nb + le16_to_cpu(y->e_value_offs),
			   le32_to_cpu(x->e_value_size)))
			return false;
		x = EXT2HOLE_XATTR_NEXT(x);
		y = EXT2HOLE_XATTR_NEXT(y);
	}
}

/*
 * A cached block holding what @nb holds, returned locked (the caller takes
 * its reference under the lock), or NULL.  The cache entry's reference,
 * held while the block is locked and compared, keeps a release from
 * freeing the block meanwhile (see ext2hole_xattr_release).
 */
static struct buffer_head *ext2hole_xattr_cache_find(struct inode *inode,
						     const void *nb)
{
	struct super_block *sb = inode->i_sb;
	struct mb_cache *cache = EXT2HOLE_SB(sb)->s_ea_block_cache;
	u32 hash = le32_to_cpu(((const struct ext2hole_xattr_header *)nb)->h_hash);
	struct mb_cache_entry *ce;

	if (!hash)
		return NULL;
	for (ce = mb_cache_entry_find_first(cache, hash); ce;
	     ce = mb_cache_entry_find_next(cache, ce)) {
		struct buffer_head *bh;

		if (!ext2hole_data_blocks_valid(sb, ce->e_value, 1))
			continue;
		bh = ext2hole_bread(sb, ce->e_value);
		if (!bh)
			continue;
		lock_buffer(bh);
		if (ext2hole_xattr_same(bh, nb)) {
			mb_cache_entry_touch(cache, ce);
			mb_cache_entry_put(cache, ce);
			return bh;
		}
		unlock_buffer(bh);
		brelse(bh);
	}
	return NULL;
}

/*
 * May the block @bh (the inode's own) be rewritten in place?  Only if no
 * other inode holds it and nobody is about to share it: its cache entry
 * goes first.  Returns true with the buffer locked.
 */
static bool ext2hole_xattr_reuse_locked(struct super_block *sb,
					struct buffer_head *bh)
{
	struct mb_cache *cache = EXT2HOLE_SB(sb)->s_ea_block_cache;
	struct ext2hole_xattr_header *hdr = (void *)bh->b_data;
	struct mb_cache_entry *oe;

	lock_buffer(bh);
	if (le32_to_cpu(hdr->h_refcount) == 1) {
		oe = mb_cache_entry_delete_or_get(cache, le32_to_cpu(hdr->h_hash),
						  bh->b_blocknr);
		if (!oe)
			return true;
		mb_cache_entry_put(cache, oe);	/* being shared: copy instead */
	}
	unlock_buffer(bh);
	return false;
}

/*
 * Drop @inode's reference to the xattr block @bh (checked, no longer its
 * i_file_acl): decrement h_refcount, or free the block when it was the
 * last one, after taking it out of the cache.  Consumes @bh.
 */
static void ext2hole_xattr_release(struct inode *inode, struct buffer_head *bh)
{
	struct super_block *sb = inode->i_sb;
	struct mb_cache *cache = EXT2HOLE_SB(sb)->s_ea_block_cache;
	struct ext2hole_xattr_header *hdr = (void *)bh->b_data;
	struct mb_cache_entry *oe;
	sector_t nr;

retry:
	lock_buffer(bh);
	if (le32_to_cpu(hdr->h_refcount) <= 1) {
		oe = mb_cache_entry_delete_or_get(cache, le32_to_cpu(hdr->h_hash),
						  bh->b_blocknr);
		if (oe) {
			/* someone is comparing it to share it: wait */
			unlock_buffer(bh);
			mb_cache_entry_wait_unused(oe);
			mb_cache_entry_put(cache, oe);
			goto retry;
		}
		unlock_buffer(bh);
		nr = bh->b_blocknr;
		ext2hole_forget_meta(sb, bh);
		ext2hole_free_blocks(inode, nr, 1);
	} else {
		le32_add_cpu(&hdr->h_refcount, -1);
		unlock_buffer(bh);
		ext2hole_dirty_meta(sb, bh);
		if (IS_SYNC(inode))
			sync_dirty_buffer(bh);
		brelse(bh);
		/* Freed blocks leave i_blocks and the quota in free_blocks. */
		ext2hole_release_blocks(inode, 1);
	}
}

/**
 * ext2hole_xattr_delete_inode - drop a deleted inode's xattr block
 * @inode: the inode being evicted with no links
 *
 * A block that cannot be read or is not an xattr block is reported and
 * left alone (e2fsck reclaims it).
 */
void ext2hole_xattr_delete_inode(struct inode *inode)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_xattr_list l;
	struct buffer_head *bh;

	down_write(&ei->i_xattr_sem);
	bh = ext2hole_xattr_block(inode, &l);
	if (!IS_ERR_OR_NULL(bh))
		ext2hole_xattr_release(inode, bh);
	ei->i_file_acl = 0;
	up_write(&ei->i_xattr_sem);
}

/* Room for entries in the inode body (0: none), with i_extra_isize @extra. */
static size_t ext2hole_xattr_ibody_room(struct super_block *sb,
					unsigned int extra)
{
	unsigned int isize = EXT2HOLE_SB(sb)->s_inode_size;
	size_t used = EXT2HOLE_GOOD_OLD_INODE_SIZE + extra +
		      sizeof(struct ext2hole_xattr_ibody_header);

	return isize > used ? isize - used : 0;
}

/**
 * struct ext2hole_xattr_change - the state of one ext2hole_xattr_set()
 * @it: the inode's attributes, then the new one (in-inode ones first)
 * @n: how many of @it are in use
 * @ibh: the inode table buffer, held when the inode is larger than 128
 *	bytes; NULL otherwise
 * @raw: the inode inside @ibh, or NULL
 * @icopy: a copy of @raw that @it's in-inode names and values point into
 * @extra: the i_extra_isize the inode body is written with
 * @iroom: room for entries in the inode body (0: none)
 * @bh: the inode's xattr block (checked, held), or NULL
 * @bcopy: a copy of @bh's data that @it's block names and values point into
 * @broom: room for entries in a block
 * @nb: the new block's contents, built in memory
 * @nbh: the block that holds the new contents once written (held), or NULL
 * @old_nr: i_file_acl when the change started
 * @new_nr: i_file_acl when it is done (0: no block)
 * @ibody_changed: the inode body is rewritten
 * @block_changed: the block's list changes
 */
struct ext2hole_xattr_change {
	struct ext2hole_xattr_item *it;
	int n;
	struct buffer_head *ibh;
	struct ext2hole_inode *raw;
	void *icopy;
	unsigned int extra;
	size_t iroom;
	struct buffer_head *bh;
	void *bcopy;
	size_t broom;
	void *nb;
	struct buffer_head *nbh;
	u32 old_nr;
	u32 new_nr;
	bool ibody_changed;
	bool block_changed;
};

/*
 * Copy the @len bytes at @base (an inode body or an xattr block) to
 * *@copy and collect the attributes @l found there into c->it after those
 * already collected, pointing into the copy, which a rewrite of @base
 * leaves intact.  Returns 0 or -ENOMEM.
 */
static int ext2hole_xattr_copy_collect(struct ext2hole_xattr_change *c,
				       const struct ext2hole_xattr_list *l,
				       void *base, size_t len, void **copy,
				       bool in_inode)
{
	*copy = kmemdup(base, len, GFP_NOFS);
	if (!*copy)
		return -ENOMEM;
	c->n = ext2hole_xattr_collect(l, base, *copy, c->it, c->n, in_inode);
	return 0;
}

/*
 * Read the inode body of @inode into @c under i_xattr_sem (exclusive):
 * c->ibh and c->raw for an inode larger than 128 bytes, the i_extra_isize
 * and room a rewrite uses, and the in-inode attributes collected into
 * c->it (pointing into c->icopy).  Returns 0 or an error; c->ibh is held
 * or NULL either way.
 */
static int ext2hole_xattr_ibody_load(struct inode *inode,
				     struct ext2hole_xattr_change *c)
{
	struct super_block *sb = inode->i_sb;
	unsigned int isize = EXT2HOLE_SB(sb)->s_inode_size;
	struct ext2hole_xattr_list il = {};
	bool had_ibody;
	int err;

	err = ext2hole_xattr_ibody(inode, &c->ibh, &il);
	if (err)
		return err;
	had_ibody = c->ibh != NULL;
	if (isize > EXT2HOLE_GOOD_OLD_INODE_SIZE) {
		if (!c->ibh) {
			c->raw = ext2hole_get_raw_inode(sb, inode->i_ino, &c->ibh);
			if (IS_ERR(c->raw)) {
				err = PTR_ERR(c->raw);
				c->ibh = NULL;
				return err;
			}
		} else {
			c->raw = (void *)((char *)il.end - isize);
		}
		c->extra = le16_to_cpu(EXT2HOLE_INODE_EXTRA(c->raw)->i_extra_isize);
		/*
		 * An inode without extra fields gets s_want_extra_isize, at
		 * least 32, as ext2hole_write_inode() gives it (the same
		 * size, whichever comes first).
		 */
		if (!c->extra && !had_ibody)
			c->extra = EXT2HOLE_SB(sb)->s_want_extra_isize;
		c->iroom = ext2hole_xattr_ibody_room(sb, c->extra);
	}
	if (had_ibody)
		return ext2hole_xattr_copy_collect(c, &il, c->raw, isize,
						   &c->icopy, true);
	return 0;
}

/*
 * Read the xattr block of @inode into @c under i_xattr_sem (exclusive):
 * c->bh, and its attributes collected into c->it after the in-inode ones
 * (pointing into c->bcopy).  Returns 0 or an error; c->bh is held or NULL
 * either way.
 */
static int ext2hole_xattr_block_load(struct inode *inode,
				     struct ext2hole_xattr_change *c)
{
	struct ext2hole_xattr_list bl = {};
	struct buffer_head *bh;

	bh = ext2hole_xattr_block(inode, &bl);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	c->bh = bh;
	if (bh)
		return ext2hole_xattr_copy_collect(c, &bl, bh->b_data,
						   inode->i_sb->s_blocksize,
						   &c->bcopy, false);
	return 0;
}

/*
 * Apply the change to the list in @c: drop the old attribute @name of
 * @name_index, add the new value (in the inode body when it fits there,
 * else in the block), and sort the list.  Sets c->ibody_changed and
 * c->block_changed; neither is set when there is nothing to do (removing
 * an attribute that is not there).  Touches no buffer.  Returns 0,
 * -EEXIST or -ENODATA (@flags), or -ENOSPC (the block's list would not
 * fit).
 */
static int ext2hole_xattr_place(struct ext2hole_xattr_change *c,
				int name_index, const char *name,
				size_t name_len, const void *value,
				size_t size, int flags)
{
	struct ext2hole_xattr_item *it = c->it;
	int i, found = -1;

	for (i = 0; i < c->n; i++)
		if (it[i].index == name_index && it[i].name_len == name_len &&
		    !memcmp(it[i].name, name, name_len))
			found = i;
	if (found >= 0 && (flags & XATTR_CREATE))
		return -EEXIST;
	if (found < 0 && (flags & XATTR_REPLACE))
		return -ENODATA;
	if (found < 0 && !value)
		return 0;		/* removing what is not there */

	if (found >= 0) {
		if (it[found].in_inode)
			c->ibody_changed = true;
		else
			c->block_changed = true;
		it[found] = it[--c->n];
	}
	if (value) {
		it[c->n].name = name;
		it[c->n].name_len = name_len;
		it[c->n].index = name_index;
		it[c->n].value = value;
		it[c->n].size = size;
		it[c->n].in_inode = true;
		if (c->iroom &&
		    ext2hole_xattr_need(it, c->n + 1, true) <= c->iroom) {
			c->ibody_changed = true;
		} else {
			it[c->n].in_inode = false;
			c->block_changed = true;
		}
		c->n++;
	}
	if (ext2hole_xattr_need(it, c->n, false) > c->broom)
		return -ENOSPC;
	sort(it, c->n, sizeof(*it), ext2hole_xattr_item_cmp, NULL);
	return 0;
}

/*
 * Build the new block's contents in c->nb from the block items of c->it:
 * header (one reference), entries, block hash.  Returns 0 or -ENOMEM.
 */
static int ext2hole_xattr_block_build(struct super_block *sb,
				      struct ext2hole_xattr_change *c)
{
	struct ext2hole_xattr_header *hdr;

	c->nb = kzalloc(sb->s_blocksize, GFP_NOFS);
	if (!c->nb)
		return -ENOMEM;
	hdr = c->nb;
	hdr->h_magic = cpu_to_le32(EXT2HOLE_XATTR_MAGIC);
	hdr->h_refcount = cpu_to_le32(1);
	hdr->h_blocks = cpu_to_le32(1);
	ext2hole_xattr_build(hdr + 1, (char *)c->nb + sb->s_blocksize, c->nb,
			     c->it, c->n, false);
	hdr->h_hash = ext2hole_xattr_hash_block((void *)(hdr + 1));
	return 0;
}

/*
 * Share the cached block c->nbh (locked, read, holding what c->nb holds):
 * a block other than the inode's own gets one more reference, charged to
 * @inode's i_blocks and quota.  Unlocks c->nbh; it stays held in @c
 * either way.  Returns 0 or the charge's error (nothing changed then).
 */
static int ext2hole_xattr_block_share(struct inode *inode,
				      struct ext2hole_xattr_change *c)
{
	struct buffer_head *nbh = c->nbh;
	int err;

	c->new_nr = nbh->b_blocknr;
	if (c->new_nr != c->old_nr) {
		/* A new reference: i_blocks and the quota. */
		err = ext2hole_charge_blocks(inode, 1);
		if (err) {
			unlock_buffer(nbh);
			return err;
		}
		le32_add_cpu(&((struct ext2hole_xattr_header *)
			       nbh->b_data)->h_refcount, 1);
	}
	unlock_buffer(nbh);
	if (c->new_nr != c->old_nr)
		ext2hole_dirty_meta_inode(nbh, inode);
	return 0;
}

/*
 * Allocate a block for @inode (charged and counted in i_blocks by the
 * allocator), under i_map_mutex, and write c->nb to it; offer it to the
 * cache.  Returns 0 with c->new_nr and c->nbh (held), or an error with
 * the block freed again and c->nbh NULL.
 */
static int ext2hole_xattr_block_new(struct inode *inode,
				    struct ext2hole_xattr_change *c)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned long cnt = 1, goal;
	int err;

	goal = ext2hole_group_first_block(sb, ei->i_block_group <
			EXT2HOLE_SB(sb)->s_groups_count ?
			ei->i_block_group : 0);
	mutex_lock(&ei->i_map_mutex);
	c->new_nr = ext2hole_new_blocks(inode, goal, &cnt, &err);
	mutex_unlock(&ei->i_map_mutex);
	if (!c->new_nr)
		return err;
	c->nbh = sb_getblk(sb, c->new_nr);
	if (unlikely(!c->nbh)) {
		err = -ENOMEM;
		goto out_free_new;
	}
	lock_buffer(c->nbh);
	memcpy(c->nbh->b_data, c->nb, sb->s_blocksize);
	set_buffer_uptodate(c->nbh);
	unlock_buffer(c->nbh);
	ext2hole_dirty_meta_inode(c->nbh, inode);
	if (IS_SYNC(inode)) {
		sync_dirty_buffer(c->nbh);
		if (buffer_write_io_error(c->nbh)) {
			err = -EIO;
			goto out_free_new;
		}
	}
	ext2hole_xattr_cache_insert(sb, c->nbh);
	return 0;

out_free_new:
	if (c->nbh)
		ext2hole_forget_meta(sb, c->nbh);
	c->nbh = NULL;
	ext2hole_free_blocks(inode, c->new_nr, 1);
	return err;
}

/*
 * Put the block items of c->it on disk, before anything else changes,
 * under i_xattr_sem (exclusive); no buffer lock held on entry or return.
 * An empty list means no block (c->new_nr 0).  Otherwise, in that order:
 * a cached block with the same contents is shared, the inode's own block
 * is rewritten in place when nobody else holds it, or a new block is
 * allocated.  Returns 0 with c->new_nr (and c->nbh, held), or an error
 * with the attributes as they were.
 */
static int ext2hole_xattr_block_set(struct inode *inode,
				    struct ext2hole_xattr_change *c)
{
	struct super_block *sb = inode->i_sb;
	int err;

	if (ext2hole_xattr_need(c->it, c->n, false) == sizeof(__le32)) {
		c->new_nr = 0;
		return 0;
	}
	err = ext2hole_xattr_block_build(sb, c);
	if (err)
		return err;

	c->nbh = ext2hole_xattr_cache_find(inode, c->nb);	/* locked */
	if (c->nbh) {
		err = ext2hole_xattr_block_share(inode, c);
		if (err)
			return err;
	} else if (c->bh && ext2hole_xattr_reuse_locked(sb, c->bh)) {
		/* ours alone, out of the cache: rewrite it in place */
		memcpy(c->bh->b_data, c->nb, sb->s_blocksize);
		unlock_buffer(c->bh);
		ext2hole_dirty_meta_inode(c->bh, inode);
		ext2hole_xattr_cache_insert(sb, c->bh);
		c->nbh = c->bh;
		get_bh(c->nbh);
	} else {
		err = ext2hole_xattr_block_new(inode, c);
		if (err)
			return err;
	}
	if (IS_SYNC(inode))
		sync_dirty_buffer(c->nbh);
	return 0;
}

/*
 * Rewrite the inode body of @inode from the in-inode items of c->it, with
 * i_extra_isize c->extra, under c->ibh's buffer lock (i_xattr_sem held
 * exclusive).  Cannot fail.
 */
static void ext2hole_xattr_ibody_set(struct inode *inode,
				     struct ext2hole_xattr_change *c)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned int isize = EXT2HOLE_SB(inode->i_sb)->s_inode_size;
	struct ext2hole_inode *raw = c->raw;
	void *hdr = (char *)raw + EXT2HOLE_GOOD_OLD_INODE_SIZE + c->extra;
	bool any = ext2hole_xattr_need(c->it, c->n, true) > sizeof(__le32);

	lock_buffer(c->ibh);
	EXT2HOLE_INODE_EXTRA(raw)->i_extra_isize = cpu_to_le16(c->extra);
	WRITE_ONCE(ei->i_extra_isize, c->extra);
	if (any) {
		((struct ext2hole_xattr_ibody_header *)hdr)->h_magic =
			cpu_to_le32(EXT2HOLE_XATTR_MAGIC);
		ext2hole_xattr_build((char *)hdr + sizeof(__le32),
				     (char *)raw + isize,
				     (char *)hdr + sizeof(__le32),
				     c->it, c->n, true);
	} else {
		memset(hdr, 0, (char *)raw + isize - (char *)hdr);
	}
	unlock_buffer(c->ibh);
	ext2hole_dirty_meta(inode->i_sb, c->ibh);
}

/*
 * Point @inode at c->new_nr and stamp it; then drop the reference to the
 * old block when it is no longer the inode's (c->bh is consumed then).
 * Under i_xattr_sem (exclusive).  Returns 0, or the error of writing the
 * inode of a synchronous one.
 */
static int ext2hole_xattr_set_commit(struct inode *inode,
				     struct ext2hole_xattr_change *c)
{
	EXT2HOLE_I(inode)->i_file_acl = c->new_nr;
	inode_set_ctime_current(inode);
	mark_inode_dirty(inode);
	if (c->old_nr && c->old_nr != c->new_nr) {
		ext2hole_xattr_release(inode, c->bh);
		c->bh = NULL;
	}
	return IS_SYNC(inode) ? ext2hole_sync_inode(inode) : 0;
}

/**
 * ext2hole_xattr_set - create, replace or remove an extended attribute
 * @inode: the inode
 * @name_index: EXT2HOLE_XATTR_INDEX_*
 * @name: the name without its namespace prefix
 * @value: the new value, or NULL to remove
 * @size: the size of @value
 * @flags: XATTR_CREATE, XATTR_REPLACE or 0
 *
 * The inode body and the xattr block are rebuilt in memory first.  A new
 * attribute goes in the inode body when it fits there, else in the block,
 * whose entries are kept sorted as ext4 wants them.  A block that other
 * inodes share is never changed in place: the new contents get a new
 * block.  The inode body, then i_file_acl, then the old block's reference
 * change only after the new block is written, so an ENOSPC or EIO on the
 * way leaves the attributes as they were.  Everything from loading the
 * lists to the commit runs under i_xattr_sem held exclusive.
 *
 * Return: 0, -EEXIST, -ENODATA, -ERANGE (name too long), -ENOSPC,
 * -EFSCORRUPTED, -EIO, -EROFS, -ENOMEM.
 */
int ext2hole_xattr_set(struct inode *inode, int name_index, const char *name,
		       const void *value, size_t size, int flags)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned int isize = EXT2HOLE_SB(sb)->s_inode_size;
	struct ext2hole_xattr_change c = {};
	size_t name_len;
	int err;

	err = ext2hole_xattr_name_len(name, &name_len);
	if (err)
		return err;
	c.broom = sb->s_blocksize - sizeof(struct ext2hole_xattr_header);
	if (value && EXT2HOLE_XATTR_LEN(name_len) + EXT2HOLE_XATTR_SIZE(size) +
	    sizeof(__le32) > c.broom)
		return -ENOSPC;
	if (sb_rdonly(sb))
		return -EROFS;

	c.it = kcalloc(isize / sizeof(struct ext2hole_xattr_entry) +
		       sb->s_blocksize / sizeof(struct ext2hole_xattr_entry) + 1,
		       sizeof(*c.it), GFP_NOFS);
	if (!c.it)
		return -ENOMEM;

	down_write(&ei->i_xattr_sem);
	c.old_nr = ei->i_file_acl;
	err = ext2hole_xattr_ibody_load(inode, &c);
	if (err)
		goto out;
	err = ext2hole_xattr_block_load(inode, &c);
	if (err)
		goto out;
	err = ext2hole_xattr_place(&c, name_index, name, name_len, value, size,
				   flags);
	if (err || (!c.ibody_changed && !c.block_changed))
		goto out;

	/* The new block first: nothing else has changed yet. */
	c.new_nr = c.old_nr;
	if (c.block_changed) {
		err = ext2hole_xattr_block_set(inode, &c);
		if (err)
			goto out;
	}
	if (c.ibody_changed)
		ext2hole_xattr_ibody_set(inode, &c);
	err = ext2hole_xattr_set_commit(inode, &c);
out:
	up_write(&ei->i_xattr_sem);
	brelse(c.nbh);
	brelse(c.bh);
	brelse(c.ibh);
	kfree(c.nb);
	kfree(c.bcopy);
	kfree(c.icopy);
	kfree(c.it);
	return err;
}
