/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole in-memory state and the prototypes each source file offers.
 *
 * Lock order (see also the top of src/hole.c):
 *   i_rwsem -> invalidate_lock -> page lock -> i_map_mutex -> buffer lock
 *   (get_block runs with a page of the file locked and takes i_map_mutex
 *   to allocate, or when its lock-free lookup raced with a change;
 *   nothing locks a page of a file while holding its i_map_mutex: truncate
 *   cuts the page cache before it frees blocks under the mutex.)
 *   s_balloc_mutex / s_ialloc_mutex are leaves taken under i_map_mutex;
 *   s_lock (spinlock) is innermost.  Faults: mmap_lock -> sb_start_pagefault
 *   -> invalidate_lock (shared) -> page lock.  Extended attributes:
 *   i_xattr_sem -> i_map_mutex -> buffer lock (include/xattr.h).
 */
#ifndef _EXT2HOLE_H
#define _EXT2HOLE_H

#include <linux/fs.h>
#include <linux/buffer_head.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/quota.h>
#include <linux/ratelimit.h>
#include <linux/rwsem.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "compat.h"
#include "ext2hole_fs.h"
#include "hole.h"
#include "xattr.h"

/* Kbuild defines EXT2HOLE_VERSION from debian/changelog (or dkms.conf). */
#ifndef EXT2HOLE_VERSION
#error "EXT2HOLE_VERSION is set by Kbuild; build through it"
#endif

/* The errno for on-disk data found corrupt, as the ext4 driver's. */
#ifndef EFSCORRUPTED
#define EFSCORRUPTED			EUCLEAN
#endif

/*
 * Directory lookup counters (/sys/fs/ext2hole/<dev>/): lookups answered
 * through a dir_index index and the directory blocks they searched,
 * lookups done by the linear scan and the blocks it searched, indexes
 * found inconsistent, entries inserted in the leaf the index selects,
 * leaves split, index levels added (a full root moved into a dx_node),
 * dx_nodes split, directories indexed when they outgrew their first block,
 * and indexes dropped (flag cleared) because a full leaf could not be
 * split (root and dx_node full).
 */
struct ext2hole_dir_stats {
	atomic64_t dx_lookups;
	atomic64_t dx_blocks;
	atomic64_t linear_lookups;
	atomic64_t linear_blocks;
	atomic64_t dx_errors;
	atomic64_t dx_inserts;
	atomic64_t dx_splits;
	atomic64_t dx_dropped;
	atomic64_t dx_levels;
	atomic64_t dx_node_splits;
	atomic64_t dx_indexed;
};

/**
 * enum ext2hole_mkwrite_policy - what page_mkwrite does (mount option mkwrite=)
 * @EXT2HOLE_MKWRITE_ALLOC: allocate the blocks under the page at the fault
 *	(hole_alloc_page_mkwrite(), the default)
 * @EXT2HOLE_MKWRITE_NOALLOC: mark unmapped buffers delayed; allocate at
 *	writeback (hole_noalloc_page_mkwrite())
 */
enum ext2hole_mkwrite_policy {
	EXT2HOLE_MKWRITE_ALLOC = 0,
	EXT2HOLE_MKWRITE_NOALLOC = 1,
};

/* s_mount_opt bits */
#define EXT2HOLE_MOUNT_ERRORS_CONT	0x0001
#define EXT2HOLE_MOUNT_ERRORS_RO	0x0002
#define EXT2HOLE_MOUNT_ERRORS_PANIC	0x0004
#define EXT2HOLE_MOUNT_ERRORS_MASK	0x0007
#define EXT2HOLE_MOUNT_XATTR_USER	0x0010	/* user_xattr */
#define EXT2HOLE_MOUNT_POSIX_ACL	0x0020	/* acl */
#define EXT2HOLE_MOUNT_GRPID		0x0040	/* grpid / bsdgroups */
#define EXT2HOLE_MOUNT_NO_UID32		0x0080	/* nouid32 */
#define EXT2HOLE_MOUNT_USRQUOTA		0x0100	/* usrquota / quota */
#define EXT2HOLE_MOUNT_GRPQUOTA		0x0200	/* grpquota */
#define EXT2HOLE_MOUNT_NO_LARGE_FOLIO	0x0400	/* nolargefolio (6.12) */

#define ext2hole_test_opt(sb, opt) \
	(EXT2HOLE_SB(sb)->s_mount_opt & EXT2HOLE_MOUNT_##opt)

/**
 * struct ext2hole_sb_info - in-memory superblock
 *
 * Geometry fields are set once in fill_super from a validated on-disk
 * superblock and never change.  The free counts are the in-memory truth;
 * they are written to s_es by ext2hole_sync_super().
 */
struct ext2hole_sb_info {
	struct ext2hole_super_block *s_es;	/* in s_sbh->b_data */
	struct buffer_head *s_sbh;
	struct buffer_head **s_group_desc;	/* s_gdb_count buffers */
	unsigned long s_sb_block;		/* block holding the superblock */
	unsigned long s_sb_opt;			/* sb= (1 KiB units), 1: primary */
	unsigned long s_groups_count;
	unsigned long s_gdb_count;		/* blocks of group descriptors */
	unsigned long s_desc_per_block;
	unsigned long s_blocks_per_group;
	unsigned long s_inodes_per_group;
	unsigned long s_itb_per_group;		/* inode table blocks per group */
	unsigned long s_inodes_per_block;
	unsigned int s_inode_size;
	unsigned int s_want_extra_isize;	/* new inodes' i_extra_isize */
	unsigned int s_first_ino;
	u32 s_first_data_block;
	u32 s_blocks_count;
	u32 s_inodes_count;
	int s_addr_per_block_bits;
	kuid_t s_resuid;
	kgid_t s_resgid;
	unsigned long s_mount_opt;		/* EXT2HOLE_MOUNT_* */
	enum ext2hole_mkwrite_policy s_mkwrite;	/* mkwrite=alloc|noalloc */
	unsigned short s_mount_state;		/* s_state at mount time */

	spinlock_t s_lock;		/* the counts below, s_es fields */
	u32 s_free_blocks;
	u32 s_free_inodes;
	u32 s_next_generation;

	struct mutex s_balloc_mutex;	/* block bitmaps, bg_free_blocks_count */
	/*
	 * Under s_balloc_mutex: groups whose block bitmap was counted
	 * against its descriptor since mount, and those found to disagree
	 * (never allocated from or freed into again: src/balloc.c)
	 */
	unsigned long *s_bb_checked;
	unsigned long *s_bb_bad;
	struct mutex s_ialloc_mutex;	/* inode bitmaps, inode/dir counts */

	struct mb_cache *s_ea_block_cache;	/* xattr blocks to share */
	errseq_t s_meta_wb_err;		/* device write errors handled */
	/*
	 * Metadata buffers dirtied and not yet seen written (src/meta.c):
	 * block number -> buffer_head holding one reference; the count and
	 * the shrinker's cursor are under the xarray's lock.
	 */
	struct xarray s_meta_pins;
	unsigned long s_meta_pinned;
	unsigned long s_meta_reap_next;
	/*
	 * Directory and symlink blocks whose write failed (src/meta.c):
	 * counted by the write's completion, dirtied again by the work.
	 */
	struct super_block *s_sb;
	atomic_long_t s_dirblk_failed;
	struct work_struct s_dirblk_retry;
	struct ratelimit_state s_dirblk_rs;

	struct hole_stats s_hole_stats;		/* the hole layer's counters */
	/* O_DIRECT read mappings cut at a block whose data is not on disk yet */
	atomic64_t s_dio_pending;
	/* folios read with a bio per run; folios read buffer by buffer */
	atomic64_t s_read_split;
	atomic64_t s_read_buffers;
	/* large folios taken in by readahead or created by a buffered write */
	atomic64_t s_large_folios;
	struct ext2hole_dir_stats s_dir_stats;

	/*
	 * dir_index: the hash seed, and 3 when the hashes are unsigned (added
	 * to a root's hash_version).  s_es->s_def_hash_version is read when
	 * a directory is indexed (ext2hole_dx_make_indexed() in index.c)
	 * and when one is opened (ext2hole_dir_open(): readdir's hash until
	 * an index gives its own).
	 */
	u32 s_hash_seed[4];
	u8 s_hash_unsigned;
	struct kobject s_kobj;		/* /sys/fs/ext2hole/<dev> */
	struct completion s_kobj_unregister;
};

static inline struct ext2hole_sb_info *EXT2HOLE_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/**
 * struct ext2hole_inode_info - in-memory inode
 * @i_data: block pointers, kept little-endian as on disk
 * @i_map_mutex: serializes changes of the block map (allocation in
 *	get_block, freeing in truncate and punch); lookups do not take it
 *	unless they race with a change (or allocate)
 * @i_map_seq: bumped, under i_map_mutex, around every change of a block
 *	pointer in i_data or an indirect block; lock-free lookups check it
 *	(docs/design.md, "The block map")
 * @i_pending: data blocks allocated for the page cache whose data has not
 *	reached disk yet (logical block -> xa_mk_value(physical block)): set
 *	under i_map_mutex before such a block enters the map, cleared when a
 *	writeback bio of it completes without error (interrupt context: an
 *	XA_FLAGS_LOCK_IRQ array) and when the block is freed; O_DIRECT reads
 *	read them as holes (docs/design.md, "Blocks whose data is not on
 *	disk yet")
 * @i_delayed: delayed blocks (mkwrite=noalloc) whose quota is reserved:
 *	logical block -> xa_mk_value(0), stored by page_mkwrite
 *	(ext2hole_get_block_delay) and erased, under i_map_mutex, when the
 *	block is allocated (the reservation claimed) or its page dropped (the
 *	reservation released); docs/design.md, "On-disk decisions", "Quota
 *	of delayed blocks"
 * @i_reserved_meta: indirect blocks reserved with the quota for the
 *	delayed blocks: those missing from the map whose subtree holds a
 *	block of @i_delayed (under i_map_mutex)
 * @i_reserved_quota: bytes of quota reserved for this inode, kept by the
 *	dquot code under i_lock (dquot_operations.get_reserved_space)
 * @i_last_alloc: physical block allocated last, the goal for the next one
 * @i_last_logical: logical block allocated last (sequential-write detection)
 * @i_xattr_sem: extended attributes (in the inode body and i_file_acl's
 *	block); see include/xattr.h
 * @i_dquot: the inode's user and group dquots (src/quota.c)
 * @i_extra_isize: the on-disk i_extra_isize (0 in 128-byte inodes); it
 *	changes only from 0 to s_want_extra_isize (write_inode, xattr_set)
 * @i_crtime: birth time, when i_extra_isize covers i_crtime
 */
struct ext2hole_inode_info {
	__le32 i_data[EXT2HOLE_N_BLOCKS];
	u32 i_flags;
	u32 i_file_acl;
	u32 i_dtime;
	u32 i_block_group;
	u32 i_dir_start_lookup;
	unsigned long i_dir_state;	/* EXT2HOLE_DIR_* bits */
	u32 i_last_alloc;
	u32 i_last_logical;
	u16 i_extra_isize;
	struct timespec64 i_crtime;
	struct mutex i_map_mutex;
	seqcount_mutex_t i_map_seq;
	struct xarray i_pending;
	struct xarray i_delayed;
	unsigned int i_reserved_meta;
	struct rw_semaphore i_xattr_sem;
#ifdef CONFIG_QUOTA
	ext2hole_dquot_ptr i_dquot[MAXQUOTAS];
	qsize_t i_reserved_quota;
#endif
	struct inode vfs_inode;
};

/* i_dir_state: the dir_index index was found inconsistent, do not use it */
#define EXT2HOLE_DIR_DX_BAD	0
/*
 * i_dir_state: a write of one of the blocks of this directory (or slow
 * symlink) failed; the block is kept dirty in memory (src/meta.c)
 */
#define EXT2HOLE_DIR_WRITE_FAILED	1

static inline struct ext2hole_inode_info *EXT2HOLE_I(struct inode *inode)
{
	return container_of(inode, struct ext2hole_inode_info, vfs_inode);
}

/* Block and group arithmetic */
static inline unsigned long ext2hole_group_first_block(struct super_block *sb,
							unsigned long group)
{
	return group * EXT2HOLE_SB(sb)->s_blocks_per_group +
	       EXT2HOLE_SB(sb)->s_first_data_block;
}

/*
 * meta.c: metadata whose write failed (docs/design.md, "Metadata whose
 * write failed").  Metadata buffers are read with ext2hole_bread() and
 * dirtied with ext2hole_dirty_meta*(), which pin them in memory until a
 * write of them is seen to succeed; directory and symlink blocks whose
 * write failed are kept dirty through the hole layer's write_failed.
 */
struct buffer_head *ext2hole_bread(struct super_block *sb, sector_t block);
void ext2hole_dirty_meta(struct super_block *sb, struct buffer_head *bh);
void ext2hole_dirty_meta_inode(struct buffer_head *bh, struct inode *inode);
void ext2hole_forget_meta(struct super_block *sb, struct buffer_head *bh);
void ext2hole_meta_forget_range(struct super_block *sb, unsigned long block,
				unsigned long count);
void ext2hole_meta_init(struct super_block *sb);
void ext2hole_meta_sync(struct super_block *sb);
long ext2hole_meta_count(struct super_block *sb);
long ext2hole_meta_reap(struct super_block *sb, long nr);
void ext2hole_meta_flush(struct super_block *sb);
void ext2hole_meta_destroy(struct ext2hole_sb_info *sbi);
bool ext2hole_hole_write_failed(struct buffer_head *bh);
void ext2hole_dirblk_flush(struct super_block *sb);

/* hash.c */
int ext2hole_dx_hash2(const char *name, int len, unsigned int version,
		      const u32 seed[4], u32 *hash, u32 *minor);

/* The major hash only: what the index orders names by. */
static inline int ext2hole_dx_hash(const char *name, int len,
				   unsigned int version, const u32 seed[4],
				   u32 *hash)
{
	return ext2hole_dx_hash2(name, len, version, seed, hash, NULL);
}

/* super.c */
__printf(3, 4)
void __ext2hole_error(struct super_block *sb, const char *func,
		      const char *fmt, ...);
#define ext2hole_error(sb, fmt, ...) \
	__ext2hole_error(sb, __func__, fmt, ##__VA_ARGS__)
__printf(3, 4)
void ext2hole_msg(struct super_block *sb, const char *level,
		  const char *fmt, ...);
void ext2hole_sync_super(struct super_block *sb, int wait);
void ext2hole_update_dynamic_rev(struct super_block *sb);

/* balloc.c */
struct ext2hole_group_desc *ext2hole_get_group_desc(struct super_block *sb,
						    unsigned long group,
						    struct buffer_head **bh);
void ext2hole_add_group_counts(struct super_block *sb, unsigned long group,
			       long blocks, int inodes, int dirs);
unsigned long ext2hole_new_blocks(struct inode *inode, unsigned long goal,
				  unsigned long *count, int *errp);
unsigned long ext2hole_new_blocks_nocharge(struct inode *inode,
					   unsigned long goal,
					   unsigned long *count, int *errp);
void ext2hole_free_blocks(struct inode *inode, unsigned long block,
			  unsigned long count);
void ext2hole_free_blocks_nocharge(struct inode *inode, unsigned long block,
				   unsigned long count);
void ext2hole_release_blocks(struct inode *inode, unsigned long count);
int ext2hole_charge_blocks(struct inode *inode, unsigned long count);
int ext2hole_bg_has_super(struct super_block *sb, unsigned long group);
unsigned long ext2hole_bg_num_gdb(struct super_block *sb, unsigned long group);
int ext2hole_trim_fs(struct super_block *sb, struct fstrim_range *range);
bool ext2hole_data_blocks_valid(struct super_block *sb, unsigned long start,
				unsigned long count);
unsigned long ext2hole_data_blocks_run(struct super_block *sb,
				       unsigned long start, unsigned long max);

/* quota.c */
#ifdef CONFIG_QUOTA
extern const struct quotactl_ops ext2hole_quotactl_ops;
extern const struct dquot_operations ext2hole_dquot_ops;
ssize_t ext2hole_quota_read(struct super_block *sb, int type, char *data,
			    size_t len, loff_t off);
ssize_t ext2hole_quota_write(struct super_block *sb, int type,
			     const char *data, size_t len, loff_t off);
ext2hole_dquot_ptr *ext2hole_get_dquots(struct inode *inode);
void ext2hole_quota_off_umount(struct super_block *sb);
#else
static inline void ext2hole_quota_off_umount(struct super_block *sb)
{
}
#endif

/* ialloc.c */
struct inode *ext2hole_new_inode(struct ext2hole_idmap *idmap,
				 struct inode *dir, umode_t mode,
				 const struct qstr *qstr);
void ext2hole_free_inode(struct inode *inode);

/* inode.c */

/* One level of a walk down the block map: the pointer read, and its value. */
struct ext2hole_indirect {
	__le32 *p;			/* in i_data at level 0 */
	struct buffer_head *bh;		/* the indirect block holding *p; NULL at level 0 */
	u32 nr;				/* *p as the walk read it */
};

/**
 * struct ext2hole_branch - the chain from i_data to one logical block
 * @chain: levels 0 .. @level, each with a reference on its indirect block
 * @offsets: the path: offsets[0] indexes i_data, offsets[1..] the
 *	indirect blocks
 * @depth: levels of the path (1 .. 4)
 * @level: where the walk stopped: the first zero pointer (a hole), or
 *	@depth - 1 (mapped); a %EXT2HOLE_WALK_FREE walk that failed: the
 *	bad or unreadable pointer
 * @count: mapped: the run of blocks contiguous on disk from
 *	chain[@level].nr; a hole: its length from the walk's block (the
 *	zero pointers of the data level's array, or what is left of the
 *	empty subtree under a zero pointer above it); at most the walk's max
 * @seq: lock-free walks: the i_map_seq count the walk was verified with
 */
struct ext2hole_branch {
	struct ext2hole_indirect chain[4];
	int offsets[4];
	int depth;
	int level;
	unsigned long count;
	unsigned int seq;
};

enum ext2hole_walk_mode {
	EXT2HOLE_WALK_LOCKED,		/* under i_map_mutex; damage reported */
	EXT2HOLE_WALK_LOCKFREE,		/* checked against i_map_seq; silent */
	EXT2HOLE_WALK_FREE,		/* locked, for freeing: chain kept on failure */
};

/* Does the branch end in a mapped block (else in a hole)? */
static inline bool ext2hole_branch_mapped(const struct ext2hole_branch *br)
{
	return br->chain[br->level].nr != 0;
}

int ext2hole_get_branch(struct inode *inode, u64 iblock, unsigned long max,
			enum ext2hole_walk_mode mode,
			struct ext2hole_branch *br);
void ext2hole_put_branch(struct ext2hole_branch *br);
int ext2hole_map_extent(struct inode *inode, u64 iblock, unsigned long max,
			bool locked, u32 *pblk, unsigned long *count);
void ext2hole_set_ops(struct inode *inode, dev_t rdev);
struct inode *ext2hole_iget(struct super_block *sb, unsigned long ino);
int ext2hole_write_inode(struct inode *inode, struct writeback_control *wbc);
void ext2hole_evict_inode(struct inode *inode);
int ext2hole_get_block(struct inode *inode, sector_t iblock,
		       struct buffer_head *bh_result, int create);
int ext2hole_get_block_dio_read(struct inode *inode, sector_t iblock,
				struct buffer_head *bh_result, int create);
int ext2hole_get_block_delay(struct inode *inode, sector_t iblock,
			     struct buffer_head *bh_result, int create);
void ext2hole_delay_evict(struct inode *inode);
void ext2hole_delay_cancel(struct inode *inode, sector_t first, sector_t end);
void ext2hole_hole_written(struct buffer_head *bh);
int ext2hole_setsize(struct inode *inode, loff_t newsize);
int ext2hole_setattr(struct ext2hole_idmap *idmap, struct dentry *dentry,
		     struct iattr *iattr);
int ext2hole_getattr(struct ext2hole_idmap *idmap, const struct path *path,
		     struct kstat *stat, u32 request_mask,
		     unsigned int query_flags);
void ext2hole_set_inode_flags(struct inode *inode);
int ext2hole_sync_inode(struct inode *inode);
struct ext2hole_inode *ext2hole_get_raw_inode(struct super_block *sb,
					      unsigned long ino,
					      struct buffer_head **bhp);
/*
 * Free the blocks of @inode beyond @offset (all levels).  The caller has
 * already cut the page cache there (truncate_pagecache) and holds i_rwsem
 * or owns the inode (evict, failed write_begin beyond i_size).
 */
void ext2hole_truncate_blocks(struct inode *inode, loff_t offset);
void ext2hole_free_range(struct inode *inode, u64 cut, u64 end);
/*
 * get_block's @create for preallocation: bh_result->b_blocknr is a data
 * block the caller allocated, charged and zeroed on disk; a hole gets it
 */
#define EXT2HOLE_GET_BLOCK_ZEROED	2

/* read.c */
int ext2hole_read_folio(struct file *file, struct folio *folio);
void ext2hole_readahead(struct readahead_control *rac);

/* falloc.c */
long ext2hole_fallocate(struct file *file, int mode, loff_t offset,
			loff_t len);

/* export.c */
extern const struct export_operations ext2hole_export_ops;

/* dir.c */
extern const struct file_operations ext2hole_dir_operations;
void ext2hole_put_dir_page(struct page *page);
struct ext2hole_dir_entry *ext2hole_find_entry(struct inode *dir,
					       const struct qstr *child,
					       struct page **res_page);
int ext2hole_inode_by_name(struct inode *dir, const struct qstr *child,
			   ino_t *ino);
int ext2hole_add_link(struct dentry *dentry, struct inode *inode);
int ext2hole_delete_entry(struct ext2hole_dir_entry *de, struct page *page);
void ext2hole_dir_sync(struct inode *dir);
int ext2hole_make_empty(struct inode *inode, struct inode *parent);
int ext2hole_empty_dir(struct inode *inode);
struct ext2hole_dir_entry *ext2hole_dotdot(struct inode *dir,
					   struct page **p);
int ext2hole_set_link(struct inode *dir, struct ext2hole_dir_entry *de,
		      struct page *page, struct inode *inode,
		      bool update_times);

/* namei.c */
#define EXT2HOLE_LINK_MAX		32000	/* as stock ext2 */
extern const struct inode_operations ext2hole_dir_inode_operations;
extern const struct inode_operations ext2hole_special_inode_operations;

/* symlink.c */
extern const struct inode_operations ext2hole_symlink_inode_operations;
extern const struct inode_operations ext2hole_fast_symlink_inode_operations;

/* file.c */
extern const struct file_operations ext2hole_file_operations;
extern const struct inode_operations ext2hole_file_inode_operations;

/* ioctl.c */
int ext2hole_fileattr_get(struct dentry *dentry, struct fileattr *fa);
int ext2hole_fileattr_set(struct ext2hole_idmap *idmap,
			  struct dentry *dentry, struct fileattr *fa);
long ext2hole_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
#ifdef CONFIG_COMPAT
long ext2hole_compat_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg);
#else
#define ext2hole_compat_ioctl		NULL
#endif

/* fiemap.c */
int ext2hole_fiemap(struct inode *inode, struct fiemap_extent_info *fieinfo,
		    u64 start, u64 len);
loff_t ext2hole_llseek(struct file *file, loff_t offset, int whence);

/* aops.c */
extern const struct address_space_operations ext2hole_aops;
void ext2hole_write_failed(struct address_space *mapping, loff_t to);

/* sysfs.c */
int ext2hole_sysfs_init(void);
void ext2hole_sysfs_exit(void);
int ext2hole_sysfs_register(struct super_block *sb);
void ext2hole_sysfs_unregister(struct super_block *sb);

#endif /* _EXT2HOLE_H */
