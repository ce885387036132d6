/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole directories: what src/dir.c and src/index.c offer each other.
 *
 * src/dir.c owns the directory blocks: reading and checking pages, the
 * entry chain of a block, adding, removing and retargeting an entry, the
 * linear lookup and the byte-offset readdir.  src/index.c owns the
 * dir_index hash tree (lookup, insert, leaf and dx_node splits, a second
 * level, indexing a one-block directory) and the hash-order readdir; it
 * changes directory blocks only through ext2hole_write_entry() and
 * ext2hole_dir_write_block().
 *
 * Locking: the directory's i_rwsem, exclusive for a change, shared for a
 * lookup or readdir; then the lock of one directory page at a time (a
 * change), under which get_block takes i_map_mutex.  Index pages held in
 * an ext2hole_dx_path are referenced, not locked.
 */
#ifndef _EXT2HOLE_DIR_H
#define _EXT2HOLE_DIR_H

#include <linux/fs.h>
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

static inline bool ext2hole_has_dir_index(struct super_block *sb)
{
	return EXT2HOLE_SB(sb)->s_es->s_feature_compat &
	       cpu_to_le32(EXT2HOLE_FEATURE_COMPAT_DIR_INDEX);
}

static inline bool ext2hole_match(int len, const char *name,
				  struct ext2hole_dir_entry *de)
{
	if (len != de->name_len || !de->inode)
		return false;
	return !memcmp(name, de->name, len);
}

/* dir.c */
unsigned int ext2hole_last_byte(struct inode *dir, unsigned long n);
int ext2hole_dir_npages(struct inode *dir, unsigned long *npages);
bool ext2hole_check_block(struct inode *dir, char *kaddr, unsigned int start,
			  loff_t pos, bool quiet);
struct page *ext2hole_read_dir_page(struct inode *dir, unsigned long n,
				    bool *ok);
int ext2hole_write_entry(struct inode *dir, struct page *page,
			 struct ext2hole_dir_entry *de, unsigned int rec_len,
			 unsigned int name_len, bool append,
			 const struct qstr *child, struct inode *inode,
			 bool keep_index);
int ext2hole_dir_write_block(struct inode *dir, u32 block, const void *src);

/* index.c */
/* The index cannot be used or cannot take the name: go linear. */
#define EXT2HOLE_DX_LINEAR	1
struct ext2hole_dir_entry *ext2hole_dx_find(struct inode *dir,
					    const struct qstr *child,
					    struct page **res_page);
int ext2hole_dx_add_link(struct inode *dir, const struct qstr *child,
			 struct inode *inode);
bool ext2hole_dx_indexable(struct inode *dir);
int ext2hole_dx_make_indexed(struct inode *dir);
int ext2hole_dir_open(struct inode *dir, struct file *file);
int ext2hole_dir_release(struct inode *dir, struct file *file);
bool ext2hole_rd_hashed(struct file *file);
loff_t ext2hole_rd_eof(struct file *file);
int ext2hole_readdir_hashed(struct file *file, struct dir_context *ctx);

#endif /* _EXT2HOLE_DIR_H */
