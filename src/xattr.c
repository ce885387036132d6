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
#include "ext2hole.h"
#include "xattr.h"

#define EXT2HOLE_XATTR_LAST(e)	(*(const __le32 *)(e) == 0)
#define EXT2HOLE_XATTR_NEXT(e) \
	((struct ext2hole_xattr_entry *)((char *)(e) + \
					 EXT2HOLE_XATTR_LEN((e)->e_name_len)))

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
	extra = le16_to_cpu(*(__le16 *)((char *)raw + EXT2HOLE_EXTRA_ISIZE_OFFSET));
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

	if (!name)
		return -EINVAL;
	name_len = strlen(name);
	if (name_len > 255)
		return -ERANGE;

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
