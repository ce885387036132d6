// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: reading and writing inodes, the block map (get_block),
 * truncation, setattr/getattr, eviction.
 *
 * The block map is ext2's: 12 direct pointers, then single, double and
 * triple indirect blocks of blocksize / 4 pointers each.  Every change of
 * it (allocation in get_block, freeing in truncate and punch) runs under
 * EXT2HOLE_I(inode)->i_map_mutex, each pointer store inside a write
 * section of i_map_seq; lookups walk the map without the mutex and check
 * i_map_seq afterwards (ext2hole_get_branch(), with the protocol above
 * ext2hole_set_ptr()), taking the mutex only when a change raced.
 * get_block is called with a page locked (write_begin, page_mkwrite,
 * writeback, readahead), so nothing here may lock a page of the file while
 * holding i_map_mutex: truncation cuts the page cache first, then frees
 * blocks under the mutex.
 */
#include <linux/highuid.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/namei.h>
#include <linux/iversion.h>
#include <linux/blkdev.h>
#include <linux/quotaops.h>
#include "ext2hole.h"

static inline unsigned long ext2hole_apb(struct super_block *sb)
{
	return 1UL << EXT2HOLE_SB(sb)->s_addr_per_block_bits;
}

/* Sectors (512 B) of one block. */
static inline blkcnt_t ext2hole_sectors(struct super_block *sb)
{
	return sb->s_blocksize >> 9;
}

/*
 * A fast symlink keeps its target in i_data and owns no data block (an
 * extended-attribute block may still be counted in i_blocks).
 */
static bool ext2hole_is_fast_symlink(struct inode *inode)
{
	blkcnt_t ea = EXT2HOLE_I(inode)->i_file_acl ?
		      ext2hole_sectors(inode->i_sb) : 0;

	return S_ISLNK(inode->i_mode) && inode->i_blocks - ea == 0;
}

/* Does @inode own a block map (data and indirect blocks)? */
static bool ext2hole_has_block_map(struct inode *inode)
{
	return S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) ||
	       (S_ISLNK(inode->i_mode) && !ext2hole_is_fast_symlink(inode));
}

/**
 * ext2hole_set_inode_flags - mirror the on-disk i_flags in inode->i_flags
 * @inode: the inode
 */
void ext2hole_set_inode_flags(struct inode *inode)
{
	u32 flags = EXT2HOLE_I(inode)->i_flags;
	unsigned int new = 0;

	if (flags & EXT2HOLE_SYNC_FL)
		new |= S_SYNC;
	if (flags & EXT2HOLE_APPEND_FL)
		new |= S_APPEND;
	if (flags & EXT2HOLE_IMMUTABLE_FL)
		new |= S_IMMUTABLE;
	if (flags & EXT2HOLE_NOATIME_FL)
		new |= S_NOATIME;
	if (flags & EXT2HOLE_DIRSYNC_FL)
		new |= S_DIRSYNC;
	inode_set_flags(inode, new,
			S_SYNC | S_APPEND | S_IMMUTABLE | S_NOATIME | S_DIRSYNC);
}

/**
 * ext2hole_get_raw_inode - find an inode in its group's inode table
 * @sb: the filesystem
 * @ino: inode number: the root or >= s_first_ino, <= s_inodes_count
 * @bhp: out: the buffer holding it (the caller releases it)
 *
 * Return: the on-disk inode (s_inode_size bytes at it), or ERR_PTR
 * (-EFSCORRUPTED for a bad number, -EIO when unreadable).
 */
struct ext2hole_inode *ext2hole_get_raw_inode(struct super_block *sb,
					      unsigned long ino,
					      struct buffer_head **bhp)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_group_desc *gd;
	struct buffer_head *bh;
	unsigned long group, offset, block;

	*bhp = NULL;
	if ((ino != EXT2HOLE_ROOT_INO && ino < sbi->s_first_ino) ||
	    ino > sbi->s_inodes_count)
		return ERR_PTR(-EFSCORRUPTED);
	group = (ino - 1) / sbi->s_inodes_per_group;
	gd = ext2hole_get_group_desc(sb, group, NULL);
	if (!gd)
		return ERR_PTR(-EFSCORRUPTED);
	offset = ((ino - 1) % sbi->s_inodes_per_group) * sbi->s_inode_size;
	block = le32_to_cpu(gd->bg_inode_table) +
		(offset >> sb->s_blocksize_bits);
	bh = ext2hole_bread(sb, block);
	if (!bh) {
		ext2hole_error(sb, "unable to read inode block - inode=%lu, block=%lu",
			       ino, block);
		return ERR_PTR(-EIO);
	}
	*bhp = bh;
	return (struct ext2hole_inode *)(bh->b_data +
					 (offset & (sb->s_blocksize - 1)));
}

/* ---------------------------------------------------------------------- */
/* timestamps: 32-bit seconds, and ext4's extra words in larger inodes */

/* A time from its 32-bit seconds and, when the inode has it, extra word. */
static struct timespec64 ext2hole_decode_time(__le32 sec, const __le32 *extra)
{
	struct timespec64 ts = { .tv_sec = (s32)le32_to_cpu(sec) };
	u32 x;

	if (!extra)
		return ts;
	x = le32_to_cpu(*extra);
	ts.tv_sec += (time64_t)(x & EXT2HOLE_EPOCH_MASK) << 32;
	/* 30 bits hold more than a second: a damaged word is read as ..999 */
	ts.tv_nsec = min_t(u32, x >> EXT2HOLE_EPOCH_BITS, NSEC_PER_SEC - 1);
	return ts;
}

/*
 * Store @ts: the low 32 bits of the seconds in @sec and the epoch bits and
 * nanoseconds in @extra, or, with no extra word, the seconds clamped to
 * 32 bits (as the ext4 driver does; s_time_max keeps the VFS inside the
 * range of the inodes that have extra words).
 */
static void ext2hole_encode_time(struct timespec64 ts, __le32 *sec,
				 __le32 *extra)
{
	if (!extra) {
		*sec = cpu_to_le32(clamp_t(time64_t, ts.tv_sec, S32_MIN,
					   S32_MAX));
		return;
	}
	*sec = cpu_to_le32((u32)ts.tv_sec);
	*extra = cpu_to_le32((((ts.tv_sec - (s32)ts.tv_sec) >> 32) &
			      EXT2HOLE_EPOCH_MASK) |
			     ((u32)ts.tv_nsec << EXT2HOLE_EPOCH_BITS));
}

/* @field's address in the extra fields of @raw, NULL when not covered. */
#define EXT2HOLE_EXTRA_FIELD(raw, extra, field) \
	(EXT2HOLE_EXTRA_FITS(extra, field) ? \
	 &EXT2HOLE_INODE_EXTRA(raw)->field : NULL)

/*
 * Read the times of @inode from @raw.  Returns false (and reports) when
 * i_extra_isize runs past the inode or is not a multiple of 4.
 */
static bool ext2hole_read_times(struct inode *inode,
				struct ext2hole_inode *raw)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned int room = EXT2HOLE_SB(sb)->s_inode_size -
			    EXT2HOLE_GOOD_OLD_INODE_SIZE;
	unsigned int extra = 0;
	struct ext2hole_inode_extra *x = EXT2HOLE_INODE_EXTRA(raw);

	if (room) {
		extra = le16_to_cpu(x->i_extra_isize);
		if (extra > room || (extra & 3)) {
			ext2hole_error(sb, "inode %lu: bad i_extra_isize %u (inode size %u)",
				       inode->i_ino, extra,
				       EXT2HOLE_SB(sb)->s_inode_size);
			return false;
		}
	}
	ei->i_extra_isize = extra;
	inode_set_atime_to_ts(inode, ext2hole_decode_time(raw->i_atime,
			EXT2HOLE_EXTRA_FIELD(raw, extra, i_atime_extra)));
	inode_set_ctime_to_ts(inode, ext2hole_decode_time(raw->i_ctime,
			EXT2HOLE_EXTRA_FIELD(raw, extra, i_ctime_extra)));
	inode_set_mtime_to_ts(inode, ext2hole_decode_time(raw->i_mtime,
			EXT2HOLE_EXTRA_FIELD(raw, extra, i_mtime_extra)));
	if (EXT2HOLE_EXTRA_FITS(extra, i_crtime))
		ei->i_crtime = ext2hole_decode_time(x->i_crtime,
				EXT2HOLE_EXTRA_FIELD(raw, extra, i_crtime_extra));
	else
		ei->i_crtime = (struct timespec64){};
	return true;
}

/*
 * Write the times of @inode to @raw.  An inode without extra fields (one
 * written by the ext2 driver) gets s_want_extra_isize of them first, as
 * the ext4 driver gives it when it writes such an inode: the bytes after
 * 128 hold no attributes then (i_extra_isize 0 means none), and an
 * attribute set meanwhile (ext2hole_xattr_set) chose the same size and
 * starts after it.  Its birth time stays 0: unknown.
 */
static void ext2hole_write_times(struct inode *inode,
				 struct ext2hole_inode *raw)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_inode_extra *x = EXT2HOLE_INODE_EXTRA(raw);
	unsigned int extra = READ_ONCE(ei->i_extra_isize);
	unsigned int want = EXT2HOLE_SB(inode->i_sb)->s_want_extra_isize;

	if (!extra && want) {
		/*
		 * Not i_extra_isize itself: xattr_set may have set it to the
		 * same size a moment ago, and readers must never see it 0.
		 */
		memset((char *)x + sizeof(x->i_extra_isize), 0,
		       want - sizeof(x->i_extra_isize));
		extra = want;
		WRITE_ONCE(ei->i_extra_isize, want);
	}
	if (extra)	/* a new inode's was zeroed with the rest */
		x->i_extra_isize = cpu_to_le16(extra);
	ext2hole_encode_time(inode_get_atime(inode), &raw->i_atime,
			     EXT2HOLE_EXTRA_FIELD(raw, extra, i_atime_extra));
	ext2hole_encode_time(inode_get_ctime(inode), &raw->i_ctime,
			     EXT2HOLE_EXTRA_FIELD(raw, extra, i_ctime_extra));
	ext2hole_encode_time(inode_get_mtime(inode), &raw->i_mtime,
			     EXT2HOLE_EXTRA_FIELD(raw, extra, i_mtime_extra));
	if (EXT2HOLE_EXTRA_FITS(extra, i_crtime))
		ext2hole_encode_time(ei->i_crtime, &x->i_crtime,
				     EXT2HOLE_EXTRA_FIELD(raw, extra,
							  i_crtime_extra));
}

/*
 * Does every pointer in the inode's block map (direct, indirect, double
 * and triple) name a block of the data zone?  Checked once at iget, as
 * the ext4 driver does, so that a damaged inode is refused whole rather
 * than found block by block; the walks check each pointer they read from
 * indirect blocks again.  Reports the first bad pointer.
 */
static bool ext2hole_i_block_valid(struct inode *inode)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	int i;

	for (i = 0; i < EXT2HOLE_N_BLOCKS; i++) {
		u32 nr = le32_to_cpu(ei->i_data[i]);

		if (nr && !ext2hole_data_blocks_valid(inode->i_sb, nr, 1)) {
			ext2hole_error(inode->i_sb,
				       "inode %lu: invalid block %u in i_block[%d]",
				       inode->i_ino, nr, i);
			return false;
		}
	}
	return true;
}

/**
 * ext2hole_set_ops - give an inode the operations of its type
 * @inode: a new inode (I_NEW) whose i_mode is set
 * @rdev: the device of a character or block device node; unused otherwise
 *
 * A symlink is fast when the caller has put its target in i_data and
 * pointed i_link at it; any other symlink keeps its target in a data
 * block, read through the page cache.  Directories and slow symlinks map
 * their pages with page_address(): never highmem.
 */
void ext2hole_set_ops(struct inode *inode, dev_t rdev)
{
	umode_t mode = inode->i_mode;

	if (S_ISREG(mode)) {
		inode->i_op = &ext2hole_file_inode_operations;
		inode->i_fop = &ext2hole_file_operations;
		inode->i_mapping->a_ops = &ext2hole_aops;
		ext2hole_mapping_set_large(inode,
			!ext2hole_test_opt(inode->i_sb, NO_LARGE_FOLIO));
	} else if (S_ISDIR(mode)) {
		inode->i_op = &ext2hole_dir_inode_operations;
		inode->i_fop = &ext2hole_dir_operations;
		inode_nohighmem(inode);
		inode->i_mapping->a_ops = &ext2hole_aops;
	} else if (S_ISLNK(mode) && inode->i_link) {
		inode->i_op = &ext2hole_fast_symlink_inode_operations;
	} else if (S_ISLNK(mode)) {
		inode->i_op = &ext2hole_symlink_inode_operations;
		inode_nohighmem(inode);
		inode->i_mapping->a_ops = &ext2hole_aops;
	} else {
		inode->i_op = &ext2hole_special_inode_operations;
		init_special_inode(inode, mode, rdev);
	}
}

/*
 * The mode and link count of the raw inode @raw into @inode.  Returns 0,
 * -ESTALE for an inode without links (deleted, or whose last link went
 * before a crash: the entry naming it is stale, and loading it would let
 * evict free it again), or -EFSCORRUPTED (reported) for a bad mode.
 */
static int ext2hole_iget_mode(struct inode *inode,
			      const struct ext2hole_inode *raw)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	umode_t mode = le16_to_cpu(raw->i_mode);

	set_nlink(inode, le16_to_cpu(raw->i_links_count));
	ei->i_dtime = le32_to_cpu(raw->i_dtime);
	if (!inode->i_nlink) {
		if (mode && !ei->i_dtime)
			ext2hole_msg(sb, KERN_WARNING,
				     "inode %lu: in use but no links, run e2fsck",
				     inode->i_ino);
		return -ESTALE;
	}
	if (!(S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode) ||
	      S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) ||
	      S_ISSOCK(mode))) {
		ext2hole_error(sb, "inode %lu: bad mode 0%o", inode->i_ino,
			       mode);
		return -EFSCORRUPTED;
	}
	inode->i_mode = mode;
	return 0;
}

/*
 * The owner, size, times, block count, flags, xattr block and block map
 * of @raw into @inode, whose mode is set.  Returns 0 or -EFSCORRUPTED
 * (reported).
 */
static int ext2hole_iget_fields(struct inode *inode,
				struct ext2hole_inode *raw)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned long ino = inode->i_ino;
	uid_t uid = le16_to_cpu(raw->i_uid);
	gid_t gid = le16_to_cpu(raw->i_gid);

	if (!ext2hole_test_opt(sb, NO_UID32)) {
		uid |= le16_to_cpu(raw->i_uid_high) << 16;
		gid |= le16_to_cpu(raw->i_gid_high) << 16;
	}
	i_uid_write(inode, uid);
	i_gid_write(inode, gid);

	inode->i_size = le32_to_cpu(raw->i_size);
	if (S_ISREG(inode->i_mode))
		inode->i_size |= (u64)le32_to_cpu(raw->i_size_high) << 32;
	if (inode->i_size < 0 ||
	    (S_ISREG(inode->i_mode) && inode->i_size > sb->s_maxbytes)) {
		ext2hole_error(sb, "inode %lu: bad size %lld", ino,
			       inode->i_size);
		return -EFSCORRUPTED;
	}
	if (!ext2hole_read_times(inode, raw))
		return -EFSCORRUPTED;
	inode->i_blocks = le32_to_cpu(raw->i_blocks);
	inode->i_generation = le32_to_cpu(raw->i_generation);
	ei->i_flags = le32_to_cpu(raw->i_flags);
	ei->i_file_acl = le32_to_cpu(raw->i_file_acl);
	if (ei->i_file_acl && !ext2hole_data_blocks_valid(sb, ei->i_file_acl, 1)) {
		ext2hole_error(sb, "inode %lu: bad extended attribute block %u",
			       ino, ei->i_file_acl);
		return -EFSCORRUPTED;
	}
	ei->i_block_group = (ino - 1) / EXT2HOLE_SB(sb)->s_inodes_per_group;
	ei->i_dir_start_lookup = 0;
	ei->i_last_alloc = 0;
	ei->i_last_logical = 0;
	memcpy(ei->i_data, raw->i_block, sizeof(ei->i_data));
	ext2hole_set_inode_flags(inode);
	if (ext2hole_has_block_map(inode) && !ext2hole_i_block_valid(inode))
		return -EFSCORRUPTED;
	return 0;
}

/*
 * What each type asks of a loaded inode: a directory's size is whole
 * blocks, never zero ("." and ".." at least: e2fsck fixes one that is,
 * refused here rather than read as empty or truncated); a symlink's
 * target fits where it is kept; a device's number is decoded into
 * *@rdev.  Returns 0 or -EFSCORRUPTED (reported).
 */
static int ext2hole_iget_type(struct inode *inode,
			      const struct ext2hole_inode *raw, dev_t *rdev)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	if (S_ISDIR(inode->i_mode)) {
		if (!inode->i_size || (inode->i_size & (sb->s_blocksize - 1))) {
			ext2hole_error(sb, "directory #%lu: bad size %lld",
				       inode->i_ino, inode->i_size);
			return -EFSCORRUPTED;
		}
	} else if (S_ISLNK(inode->i_mode)) {
		bool fast = ext2hole_is_fast_symlink(inode);

		if (!inode->i_size ||
		    inode->i_size >= (fast ? sizeof(ei->i_data) : sb->s_blocksize)) {
			ext2hole_error(sb, "inode %lu: bad %ssymlink size %lld",
				       inode->i_ino, fast ? "fast " : "",
				       inode->i_size);
			return -EFSCORRUPTED;
		}
		if (fast) {
			inode->i_link = (char *)ei->i_data;
			nd_terminate_link(ei->i_data, inode->i_size,
					  sizeof(ei->i_data) - 1);
		}
	} else if (!S_ISREG(inode->i_mode)) {
		if (raw->i_block[0])
			*rdev = old_decode_dev(le32_to_cpu(raw->i_block[0]));
		else
			*rdev = new_decode_dev(le32_to_cpu(raw->i_block[1]));
	}
	return 0;
}

/**
 * ext2hole_iget - read an inode
 * @sb: the filesystem
 * @ino: inode number
 *
 * Return: the inode, or ERR_PTR: -ESTALE for a deleted inode,
 * -EFSCORRUPTED (reported) for a bad number or an invalid inode.
 */
struct inode *ext2hole_iget(struct super_block *sb, unsigned long ino)
{
	struct ext2hole_inode *raw;
	struct buffer_head *bh = NULL;
	struct inode *inode;
	dev_t rdev = 0;
	int err;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;

	raw = ext2hole_get_raw_inode(sb, ino, &bh);
	if (IS_ERR(raw)) {
		err = PTR_ERR(raw);
		if (err == -EFSCORRUPTED)
			ext2hole_error(sb, "bad inode number: %lu", ino);
		goto bad;
	}
	err = ext2hole_iget_mode(inode, raw);
	if (!err)
		err = ext2hole_iget_fields(inode, raw);
	if (!err)
		err = ext2hole_iget_type(inode, raw, &rdev);
	if (err)
		goto bad;
	ext2hole_set_ops(inode, rdev);
	brelse(bh);
	unlock_new_inode(inode);
	return inode;

bad:
	brelse(bh);
	iget_failed(inode);
	return ERR_PTR(err);
}

/* Write the in-memory inode to its buffer; with @do_sync, to disk. */
static int __ext2hole_write_inode(struct inode *inode, bool do_sync)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_inode *raw;
	struct buffer_head *bh;
	bool set_large_file = false;
	uid_t uid = i_uid_read(inode);
	gid_t gid = i_gid_read(inode);
	int err = 0;

	raw = ext2hole_get_raw_inode(sb, inode->i_ino, &bh);
	if (IS_ERR(raw))
		return PTR_ERR(raw);

	raw->i_mode = cpu_to_le16(inode->i_mode);
	if (ext2hole_test_opt(sb, NO_UID32)) {
		/* 16-bit ids: larger ones are stored as the overflow id */
		raw->i_uid = cpu_to_le16(fs_high2lowuid(uid));
		raw->i_gid = cpu_to_le16(fs_high2lowgid(gid));
		raw->i_uid_high = 0;
		raw->i_gid_high = 0;
	} else {
		raw->i_uid = cpu_to_le16(low_16_bits(uid));
		raw->i_uid_high = cpu_to_le16(high_16_bits(uid));
		raw->i_gid = cpu_to_le16(low_16_bits(gid));
		raw->i_gid_high = cpu_to_le16(high_16_bits(gid));
	}
	raw->i_links_count = cpu_to_le16(inode->i_nlink);
	raw->i_size = cpu_to_le32(inode->i_size);
	ext2hole_write_times(inode, raw);
	raw->i_blocks = cpu_to_le32(inode->i_blocks);
	raw->i_dtime = cpu_to_le32(ei->i_dtime);
	raw->i_flags = cpu_to_le32(ei->i_flags);
	raw->i_file_acl = cpu_to_le32(ei->i_file_acl);
	raw->i_generation = cpu_to_le32(inode->i_generation);
	if (S_ISREG(inode->i_mode)) {
		raw->i_size_high = cpu_to_le32(inode->i_size >> 32);
		if (inode->i_size > 0x7fffffffLL &&
		    (!(sbi->s_es->s_feature_ro_compat &
		       cpu_to_le32(EXT2HOLE_FEATURE_RO_COMPAT_LARGE_FILE)) ||
		     le32_to_cpu(sbi->s_es->s_rev_level) == EXT2HOLE_GOOD_OLD_REV)) {
			spin_lock(&sbi->s_lock);
			ext2hole_update_dynamic_rev(sb);
			sbi->s_es->s_feature_ro_compat |=
				cpu_to_le32(EXT2HOLE_FEATURE_RO_COMPAT_LARGE_FILE);
			spin_unlock(&sbi->s_lock);
			set_large_file = true;
		}
	} else {
		raw->i_size_high = 0;
	}

	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode)) {
		if (old_valid_dev(inode->i_rdev)) {
			raw->i_block[0] = cpu_to_le32(old_encode_dev(inode->i_rdev));
			raw->i_block[1] = 0;
		} else {
			raw->i_block[0] = 0;
			raw->i_block[1] = cpu_to_le32(new_encode_dev(inode->i_rdev));
			raw->i_block[2] = 0;
		}
	} else {
		memcpy(raw->i_block, ei->i_data, sizeof(raw->i_block));
	}

	ext2hole_dirty_meta(sb, bh);
	if (do_sync) {
		sync_dirty_buffer(bh);
		if (buffer_req(bh) && !buffer_uptodate(bh)) {
			ext2hole_msg(sb, KERN_ERR, "IO error syncing inode %lu",
				     inode->i_ino);
			err = -EIO;
		}
	}
	brelse(bh);
	if (set_large_file)
		ext2hole_sync_super(sb, 1);
	return err;
}

int ext2hole_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	return __ext2hole_write_inode(inode, wbc->sync_mode == WB_SYNC_ALL);
}

/**
 * ext2hole_sync_inode - write an inode and wait for it
 * @inode: the inode
 */
int ext2hole_sync_inode(struct inode *inode)
{
	return sync_inode_metadata(inode, 1);
}

/* ---------------------------------------------------------------------- */
/* the block map */

/*
 * Path from the inode to logical block @iblock: offsets[0] indexes i_data,
 * offsets[1..] the indirect blocks.  Returns the depth (1..4), 0 when the
 * block is beyond what the tree can address.
 */
static int ext2hole_block_to_path(struct inode *inode, u64 iblock,
				  int offsets[4])
{
	int bits = EXT2HOLE_SB(inode->i_sb)->s_addr_per_block_bits;
	u64 apb = 1ULL << bits, mask = apb - 1;

	if (iblock < EXT2HOLE_NDIR_BLOCKS) {
		offsets[0] = iblock;
		return 1;
	}
	iblock -= EXT2HOLE_NDIR_BLOCKS;
	if (iblock < apb) {
		offsets[0] = EXT2HOLE_IND_BLOCK;
		offsets[1] = iblock;
		return 2;
	}
	iblock -= apb;
	if (iblock < apb * apb) {
		offsets[0] = EXT2HOLE_DIND_BLOCK;
		offsets[1] = iblock >> bits;
		offsets[2] = iblock & mask;
		return 3;
	}
	iblock -= apb * apb;
	if (iblock < apb * apb * apb) {
		offsets[0] = EXT2HOLE_TIND_BLOCK;
		offsets[1] = iblock >> (2 * bits);
		offsets[2] = (iblock >> bits) & mask;
		offsets[3] = iblock & mask;
		return 4;
	}
	return 0;
}

/* Pointers from offsets[depth - 1] to the end of its array. */
static unsigned long ext2hole_array_left(struct super_block *sb,
					 const int *offsets, int depth)
{
	return depth == 1 ? EXT2HOLE_NDIR_BLOCKS - offsets[0] :
			    ext2hole_apb(sb) - offsets[depth - 1];
}

/*
 * The run mapped from *@p on, whose first block @nr was read from *@p:
 * at most @max pointers of the array (the caller bounds @max by the
 * array's end), contiguous on disk, and checked as data blocks in one
 * step.  Returns 0 when @nr itself is no data block (damage).
 */
static unsigned long ext2hole_map_run_len(struct super_block *sb,
					  const __le32 *p, u32 nr,
					  unsigned long max)
{
	unsigned long count = 1;

	while (count < max &&
	       le32_to_cpu(READ_ONCE(p[count])) == (unsigned long)nr + count)
		count++;
	return ext2hole_data_blocks_run(sb, nr, count);
}

/*
 * The seqcount protocol of the block map (docs/design.md, "The block map",
 * "Lock-free lookups").
 *
 * Writers: every change of a pointer in i_data or in an indirect block
 * reachable from it is made under i_map_mutex, by ext2hole_set_ptr(): one
 * WRITE_ONCE() store inside a write section of i_map_seq (or, for a run
 * of new data blocks, ext2hole_set_ptrs(): consecutive pointers of one
 * array in one write section).  A new branch
 * is built completely (indirect blocks zeroed, filled, uptodate) before
 * the one store that links it in, and a block is freed only after the
 * pointer to it was cleared.
 *
 * Readers: ext2hole_get_branch(EXT2HOLE_WALK_LOCKFREE) reads i_map_seq,
 * gives up at once when it is odd (a writer is inside: do not wait for
 * it), reads each pointer once with READ_ONCE(), and reads i_map_seq
 * again after the last pointer (the mapped run's included).  When it is
 * unchanged, no pointer read changed meanwhile: the walk saw one state of
 * the map, a state a walk under the mutex could have seen, and the blocks
 * it found were not freed before the check, whatever an indirect block
 * read on the way (possibly a stale one, freed and reused) contained.
 * Nothing read is used, not even reported as damage, before that check.
 *
 * Handing over: a verified walk that ended in a hole is still the map
 * under i_map_mutex as long as i_map_seq still has the walk's count
 * (ext2hole_branch_current()): every store is made by a holder of the
 * mutex.  Allocation then starts from that chain instead of walking again.
 */
static void ext2hole_set_ptr(struct inode *inode, __le32 *p, u32 nr)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	write_seqcount_begin(&ei->i_map_seq);
	WRITE_ONCE(*p, cpu_to_le32(nr));
	write_seqcount_end(&ei->i_map_seq);
}

static void ext2hole_set_ptrs(struct inode *inode, __le32 *p,
			      const unsigned long *nr, int count)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	int i;

	write_seqcount_begin(&ei->i_map_seq);
	for (i = 0; i < count; i++)
		WRITE_ONCE(p[i], cpu_to_le32(nr[i]));
	write_seqcount_end(&ei->i_map_seq);
}

/**
 * ext2hole_put_branch - drop the indirect blocks a walk holds
 * @br: a branch from ext2hole_get_branch() that returned 0
 */
void ext2hole_put_branch(struct ext2hole_branch *br)
{
	int i;

	for (i = 1; i <= br->level; i++)
		brelse(br->chain[i].bh);
}

/*
 * Under i_map_mutex: is @br, from a verified lock-free walk, still the
 * map?  See the protocol above ext2hole_set_ptr().
 */
static bool ext2hole_branch_current(struct inode *inode,
				    const struct ext2hole_branch *br)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	lockdep_assert_held(&ei->i_map_mutex);
	return !read_seqcount_retry(&ei->i_map_seq, br->seq);
}

/*
 * The length of the hole whose zero pointer *@p is at level br->level of
 * @br's path, at most @max blocks: the zero pointers from *@p to the end
 * of its array at the data level, or what is left of the empty subtree
 * under it above that.
 */
static unsigned long ext2hole_hole_len(struct super_block *sb,
				       const struct ext2hole_branch *br,
				       const __le32 *p, unsigned long max)
{
	int bits = EXT2HOLE_SB(sb)->s_addr_per_block_bits;
	unsigned long n;
	u64 span = 1, pos = 0;
	int i;

	if (br->level == br->depth - 1) {
		max = min(max, ext2hole_array_left(sb, br->offsets, br->depth));
		for (n = 1; n < max && !READ_ONCE(p[n]); n++)
			;
		return n;
	}
	for (i = br->level + 1; i < br->depth; i++) {
		span <<= bits;
		pos = (pos << bits) + br->offsets[i];
	}
	return min_t(u64, span - pos, max);
}

/*
 * The walk of ext2hole_get_branch() from chain level @level down: br->depth
 * and br->offsets are set, and so are br->chain[0 .. @level - 1] and
 * br->chain[@level].bh (NULL at level 0), each indirect block with a
 * reference the walk now owns (and drops on failure, except in
 * %EXT2HOLE_WALK_FREE mode).
 */
static int ext2hole_walk(struct inode *inode, u64 iblock, unsigned long max,
			 enum ext2hole_walk_mode mode, struct ext2hole_branch *br,
			 int level)
{
	struct super_block *sb = inode->i_sb;
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	bool lockfree = mode == EXT2HOLE_WALK_LOCKFREE;
	bool freeing = mode == EXT2HOLE_WALK_FREE;
	struct buffer_head *bh = br->chain[level].bh;
	int err;
	__le32 *p;
	u32 nr;

	br->count = 0;
	p = (bh ? (__le32 *)bh->b_data : ei->i_data) + br->offsets[level];
	for (; ; level++) {
		nr = le32_to_cpu(READ_ONCE(*p));
		br->chain[level].p = p;
		br->chain[level].bh = bh;
		br->chain[level].nr = nr;
		br->level = level;
		if (!nr || level == br->depth - 1)
			break;
		if (!ext2hole_data_blocks_valid(sb, nr, 1))
			goto bad;
		bh = ext2hole_bread(sb, nr);
		if (!bh) {
			/* freeing: the blocks under it leak, e2fsck must run */
			if (freeing)
				ext2hole_error(sb, "inode %lu: cannot read indirect block %u at logical %llu (level %d), blocks leaked",
					       inode->i_ino, nr, iblock, level);
			else if (!lockfree)
				ext2hole_msg(sb, KERN_ERR,
					     "inode %lu: cannot read indirect block %u at logical %llu (level %d)",
					     inode->i_ino, nr, iblock, level);
			err = -EIO;
			goto fail;
		}
		p = (__le32 *)bh->b_data + br->offsets[level + 1];
	}
	if (nr) {
		max = min(max, ext2hole_array_left(sb, br->offsets, br->depth));
		br->count = ext2hole_map_run_len(sb, p, nr, max);
		if (!br->count)
			goto bad;
	} else {
		br->count = ext2hole_hole_len(sb, br, p, max);
	}
	if (lockfree && read_seqcount_retry(&ei->i_map_seq, br->seq)) {
		err = -EAGAIN;
		goto fail;
	}
	return 0;

bad:
	if (!lockfree)
		ext2hole_error(sb, "inode %lu: bad block %u at logical %llu (level %d)%s",
			       inode->i_ino, nr, iblock, level,
			       freeing ? ", dropped" : "");
	err = -EFSCORRUPTED;
fail:
	if (freeing)
		return err;
	ext2hole_put_branch(br);
	return lockfree ? -EAGAIN : err;
}

/**
 * ext2hole_get_branch - walk the block map to a logical block
 * @inode: an inode with a block map
 * @iblock: the logical block
 * @max: how many blocks a mapped run may have (at least 1; bounded here
 *	by the end of the pointer array holding the first)
 * @mode: %EXT2HOLE_WALK_LOCKED: the caller holds i_map_mutex, and damage
 *	and read errors are reported; %EXT2HOLE_WALK_LOCKFREE: without the
 *	mutex, checked against i_map_seq (see above ext2hole_set_ptr()),
 *	and nothing is reported; %EXT2HOLE_WALK_FREE: as locked, for
 *	ext2hole_free_range(), which drops a bad pointer and leaks what lies
 *	under an unreadable indirect block (both reported as errors here),
 *	and the chain is kept on failure too
 * @br: out: the chain, from i_data down to where the walk stopped
 *
 * The walk stops at the first zero pointer (a hole; br->level is its
 * level) or at the data block's pointer (br->level = br->depth - 1), and
 * then measures the mapped run: the pointers after it in the same array
 * that name the following blocks on disk, checked against the
 * filesystem's metadata in one step (br->count), or the hole's length.  Every pointer followed
 * into an indirect block is checked with ext2hole_data_blocks_valid()
 * first.  A walk that fails on a pointer in %EXT2HOLE_WALK_FREE mode
 * stops there: br->level is the level of the bad or unreadable pointer.
 * On success (in %EXT2HOLE_WALK_FREE mode, on any return but -EFBIG)
 * the caller drops the chain's references with ext2hole_put_branch().
 *
 * Return: 0; -EFBIG beyond what the map can address (nothing reported).
 * Locked and freeing: -EFSCORRUPTED for a bad pointer, -EIO when an
 * indirect block cannot be read.  Lock-free: -EAGAIN when the walk is not
 * verified (a change raced, or it met a bad pointer or a read error,
 * which a locked walk reports only if it is really in the map).
 */
int ext2hole_get_branch(struct inode *inode, u64 iblock, unsigned long max,
			enum ext2hole_walk_mode mode,
			struct ext2hole_branch *br)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	br->depth = ext2hole_block_to_path(inode, iblock, br->offsets);
	if (!br->depth)
		return -EFBIG;
	if (mode == EXT2HOLE_WALK_LOCKFREE) {
		br->seq = raw_read_seqcount(&ei->i_map_seq);
		if (br->seq & 1)
			return -EAGAIN;
	} else {
		lockdep_assert_held(&ei->i_map_mutex);
	}
	br->chain[0].bh = NULL;
	return ext2hole_walk(inode, iblock, max, mode, br, 0);
}

/*
 * Map @bh (a page's buffer, or O_DIRECT's pageless one) to the @count
 * blocks of @inode from @nr; a mapped buffer is never delayed.
 */
static void ext2hole_map_buffer(struct inode *inode, struct buffer_head *bh,
				u32 nr, unsigned long count)
{
	map_bh(bh, inode->i_sb, nr);
	clear_buffer_delay(bh);
	bh->b_size = count << inode->i_blkbits;
}

/**
 * ext2hole_find_goal - where to allocate for a missing pointer
 * @inode: the inode
 * @iblock: logical block being mapped
 * @br: the chain to the hole, under i_map_mutex
 *
 * Sequential writes continue right after the last block allocated; else
 * the nearest allocated pointer to the left in the array holding the zero
 * pointer, the indirect block holding that array, or the start of the
 * inode's group (spread by pid so that concurrent writers do not
 * interleave).
 */
static unsigned long ext2hole_find_goal(struct inode *inode, u64 iblock,
					const struct ext2hole_branch *br)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(inode->i_sb);
	const struct ext2hole_indirect *hole = &br->chain[br->level];
	__le32 *first = hole->bh ? (__le32 *)hole->bh->b_data : ei->i_data;
	unsigned long colour;
	__le32 *q;

	if (ei->i_last_alloc && iblock == (u64)ei->i_last_logical + 1)
		return ei->i_last_alloc + 1;
	for (q = hole->p - 1; q >= first; q--)
		if (*q)
			return le32_to_cpu(*q);
	if (hole->bh)
		return hole->bh->b_blocknr;
	colour = (current->pid % 16) * (sbi->s_blocks_per_group / 16);
	return ext2hole_group_first_block(inode->i_sb,
			ei->i_block_group < sbi->s_groups_count ?
			ei->i_block_group : 0) + colour;
}

/*
 * Blocks whose data is not on disk yet (docs/design.md, same title).  A data
 * block allocated for the page cache (write_begin, page_mkwrite under
 * mkwrite=alloc, a delayed buffer at writeback) enters the map before its
 * data reaches it: the disk still holds what the block's previous owner
 * wrote there until the writeback bio completes.  Such a block is recorded
 * in i_pending before the pointer to it is stored, and forgotten when a
 * write of it completes without error (ext2hole_hole_written) or when it is
 * freed.  An O_DIRECT read maps it as a hole (ext2hole_get_block_dio_read).
 */
static int ext2hole_pending_add(struct inode *inode, sector_t iblock,
				unsigned long pblk)
{
	/*
	 * Never fails for want of memory, as ext4's extent status tree: a
	 * writeback that maps a delayed buffer must not fail with ENOMEM.
	 */
	return xa_err(xa_store_irq(&EXT2HOLE_I(inode)->i_pending, iblock,
				   xa_mk_value(pblk), GFP_NOFS | __GFP_NOFAIL));
}

/*
 * Forget the pending blocks in logical blocks [@first, @end): they were
 * freed.  Under i_map_mutex, after their pointers were cleared.
 */
static void ext2hole_pending_forget(struct inode *inode, u64 first, u64 end)
{
	struct xarray *xa = &EXT2HOLE_I(inode)->i_pending;
	unsigned long last = min_t(u64, end - 1, ULONG_MAX);
	XA_STATE(xas, xa, first);
	unsigned int n = 0;
	unsigned long flags;
	void *entry;

	if (first > ULONG_MAX || xa_empty(xa))
		return;
	xas_lock_irqsave(&xas, flags);
	xas_for_each(&xas, entry, last) {
		xas_store(&xas, NULL);
		if (++n % XA_CHECK_SCHED)
			continue;
		/* interrupts stay off for one batch only */
		xas_pause(&xas);
		xas_unlock_irqrestore(&xas, flags);
		cond_resched();
		xas_lock_irqsave(&xas, flags);
	}
	xas_unlock_irqrestore(&xas, flags);
}

/*
 * The hole layer's written (include/hole.h): a writeback bio of the block
 * behind @bh completed without error, so it is no longer pending.
 * Interrupt context: nothing here sleeps.
 */
void ext2hole_hole_written(struct buffer_head *bh)
{
	struct page *page = bh->b_page;
	struct inode *inode = page->mapping->host;
	struct xarray *xa = &EXT2HOLE_I(inode)->i_pending;
	void *entry = xa_mk_value(bh->b_blocknr);
	unsigned long index, flags;

	index = ((unsigned long)page->index << (PAGE_SHIFT - inode->i_blkbits)) +
		(bh_offset(bh) >> inode->i_blkbits);
	/* the usual case, a block that was never pending: no lock */
	if (xa_load(xa, index) != entry)
		return;
	xa_lock_irqsave(xa, flags);
	/* only that block: never an entry of a later allocation */
	__xa_cmpxchg(xa, index, entry, NULL, GFP_ATOMIC);
	xa_unlock_irqrestore(xa, flags);
}

/*
 * Delayed blocks and their quota (mkwrite=noalloc; docs/design.md,
 * "On-disk decisions", "Quota of delayed blocks").  page_mkwrite reserves,
 * for a block it delays, the block and the indirect blocks that allocating
 * it will add and that no other delayed block reserved already
 * (ext2hole_get_block_delay); i_delayed records the block, i_reserved_meta
 * counts the indirect blocks.  Under i_map_mutex:
 *
 *   i_reserved_meta = the indirect blocks missing from the map whose
 *                     subtree holds a block of i_delayed
 *
 * get_block claims the reservation of what it allocates that is reserved
 * (the data block when it is in i_delayed, each new indirect block whose
 * subtree holds one) and charges the rest; dropping a delayed block
 * releases its own reservation and that of the missing indirect blocks
 * no other delayed block needs; freeing an indirect block whose subtree
 * still holds delayed blocks turns its charge into a reservation again.
 * So the reservations always cover exactly what allocating every delayed
 * block will take, and writeback, which cannot return EDQUOT to the
 * writer, charges nothing that was not reserved when the store faulted.
 */

/*
 * The subtree under the indirect block at chain level @l (1 .. @depth - 1)
 * of the path of @iblock: its first logical block, and *@span blocks.
 */
static u64 ext2hole_subtree(struct inode *inode, u64 iblock, int depth, int l,
			    u64 *span)
{
	int bits = EXT2HOLE_SB(inode->i_sb)->s_addr_per_block_bits;
	u64 base = EXT2HOLE_NDIR_BLOCKS;
	int i;

	/* the first block the tree of this depth addresses */
	for (i = 2; i < depth; i++)
		base += 1ULL << ((i - 1) * bits);
	*span = 1ULL << ((depth - l) * bits);
	return base + round_down(iblock - base, *span);
}

/* Does any of logical blocks [@first, @first + @span) have a reservation? */
static bool ext2hole_delayed_in(struct inode *inode, u64 first, u64 span)
{
	unsigned long index = first;

	if (first > ULONG_MAX)
		return false;
	return xa_find(&EXT2HOLE_I(inode)->i_delayed, &index,
		       min_t(u64, first + span - 1, ULONG_MAX), XA_PRESENT);
}

/*
 * Of the indirect blocks missing on the path of @iblock (chain levels
 * @level + 1 .. @depth - 1, below the zero pointer the walk found at
 * @level), how many are reserved: those whose subtree holds a delayed
 * block.  Subtrees nest, so they are the upper ones: counted from the
 * bottom up to the first that holds one.
 */
static int ext2hole_meta_reserved(struct inode *inode, u64 iblock, int depth,
				  int level)
{
	u64 first, span;
	int l;

	for (l = depth - 1; l > level; l--) {
		first = ext2hole_subtree(inode, iblock, depth, l, &span);
		if (ext2hole_delayed_in(inode, first, span))
			return l - level;
	}
	return 0;
}

/*
 * Under i_map_mutex: the chain level of the first zero pointer on the path
 * of @iblock, 0 .. *@depth - 1, with *@pblk = 0; or *@depth with *@pblk
 * when the block is mapped.  -EIO when the walk met damage or a read
 * error, -EFBIG beyond the map.  The walk is the lock-free one, which
 * under the mutex always verifies and reports nothing: this accounting
 * only needs to know where the hole is, and a get_block of the block
 * reports its damage.
 */
static int ext2hole_path_end(struct inode *inode, u64 iblock, int *depth,
			     u32 *pblk)
{
	struct ext2hole_branch br;
	int err;

	lockdep_assert_held(&EXT2HOLE_I(inode)->i_map_mutex);
	*pblk = 0;
	err = ext2hole_get_branch(inode, iblock, 1, EXT2HOLE_WALK_LOCKFREE, &br);
	*depth = br.depth;
	if (err)
		return err == -EFBIG ? err : -EIO;
	ext2hole_put_branch(&br);
	*pblk = br.chain[br.level].nr;
	return *pblk ? *depth : br.level;
}

/*
 * Release the reservations of the delayed blocks in [@first, @end), under
 * i_map_mutex: each block's own, and that of the missing indirect blocks
 * on its path that no other delayed block needs.
 */
static void ext2hole_delay_release(struct inode *inode, u64 first, u64 end)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned long index;
	void *entry;

	lockdep_assert_held(&ei->i_map_mutex);
	if (first >= end || first > ULONG_MAX || xa_empty(&ei->i_delayed))
		return;
	xa_for_each_range(&ei->i_delayed, index, entry, first,
			  min_t(u64, end - 1, ULONG_MAX)) {
		unsigned int meta = 0;
		int depth, level;
		u32 nr;

		xa_erase(&ei->i_delayed, index);
		level = ext2hole_path_end(inode, index, &depth, &nr);
		if (level >= 0 && !nr)
			meta = depth - 1 - level -
			       ext2hole_meta_reserved(inode, index, depth, level);
		meta = min(meta, ei->i_reserved_meta);
		ei->i_reserved_meta -= meta;
		dquot_release_reservation_block(inode, 1 + meta);
		cond_resched();
	}
	/* No delayed block left, so no indirect block is reserved for one. */
	if (xa_empty(&ei->i_delayed) && ei->i_reserved_meta) {
		dquot_release_reservation_block(inode, ei->i_reserved_meta);
		ei->i_reserved_meta = 0;
	}
}

/*
 * Delayed blocks [@first, @end) of @inode will not be allocated for the
 * page cache after all (their page is dropped, the fault that delayed
 * them failed, or they lie beyond EOF at writeback): give back what
 * ext2hole_get_block_delay() reserved for them.  Blocks without a
 * reservation are skipped.  May sleep; called with no lock of the block
 * map held (a page of the file may be locked).  The hole layer's
 * delay_cancel (include/hole.h).
 */
void ext2hole_delay_cancel(struct inode *inode, sector_t first, sector_t end)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	if (xa_empty(&ei->i_delayed))
		return;
	mutex_lock(&ei->i_map_mutex);
	ext2hole_delay_release(inode, first, end);
	mutex_unlock(&ei->i_map_mutex);
}

/*
 * An indirect block covering logical blocks [@start, @start + @span)
 * leaves the map (freed, or dropped as damage) while delayed blocks under
 * it remain: allocating them will add it again, so it is reserved again,
 * without a limit check (it was charged until now; the caller gives that
 * charge back).  Under i_map_mutex.
 */
static void ext2hole_delay_rereserve(struct inode *inode, u64 start, u64 span)
{
	if (xa_empty(&EXT2HOLE_I(inode)->i_delayed) ||
	    !ext2hole_delayed_in(inode, start, span))
		return;
	__dquot_alloc_space(inode, i_blocksize(inode),
			    DQUOT_SPACE_RESERVE | DQUOT_SPACE_NOFAIL);
	EXT2HOLE_I(inode)->i_reserved_meta++;
}

/**
 * ext2hole_delay_evict - give back what delayed blocks still reserve
 * @inode: an inode being evicted, its page cache already gone
 *
 * Before the dquots are dropped.  Every reservation left belongs to a
 * delayed block whose page is gone; a byte still reserved after that is
 * a bug in this accounting, reported and given back.
 */
void ext2hole_delay_evict(struct inode *inode)
{
	ext2hole_delay_cancel(inode, 0, U64_MAX);
#ifdef CONFIG_QUOTA
	{
		qsize_t left;

		spin_lock(&inode->i_lock);
		left = EXT2HOLE_I(inode)->i_reserved_quota;
		spin_unlock(&inode->i_lock);
		if (left) {
			ext2hole_msg(inode->i_sb, KERN_ERR,
				     "inode %lu: %lld bytes of quota still reserved at eviction",
				     inode->i_ino, (long long)left);
			__dquot_free_space(inode, left, DQUOT_SPACE_RESERVE);
		}
	}
#endif
}

/*
 * Undo an allocation that did not enter the map: the @got blocks of
 * @newb go back to the bitmaps, and the @charge blocks charged for them
 * back to the quota (the reserved part stays reserved).
 */
static void ext2hole_unalloc(struct inode *inode, const unsigned long *newb,
			     int got, unsigned long charge)
{
	int i;

	for (i = 0; i < got; i++)
		ext2hole_free_blocks_nocharge(inode, newb[i], 1);
	if (charge)
		dquot_free_block(inode, charge);
}

/* At most this many data blocks are allocated by one get_block call. */
#define EXT2HOLE_RUN_MAX	16

/*
 * A branch being added to fill the hole where @br stopped: @n levels,
 * newb[0] for the zero pointer, newb[0 .. @n - 2] the new indirect blocks
 * and newb[@n - 1 ..] the @ndata data blocks, contiguous on disk, for
 * consecutive pointers of one array (a run: ext2hole_hole_run()), of
 * which the first @nalloc are allocated here (a @given data block is
 * not).  @charge of them were charged to the quota before any was
 * allocated; @rsv_data and @rsv_meta say which were reserved for delayed
 * blocks (never for a run of more than one); @pending, that the data
 * blocks are in i_pending.
 */
struct ext2hole_new_branch {
	unsigned long newb[3 + EXT2HOLE_RUN_MAX];
	int n;
	int ndata;
	int nalloc;
	unsigned long charge;
	int rsv_meta;
	bool rsv_data;
	bool given;
	bool pending;
};

/*
 * Allocate @nb->nalloc blocks, as near the goal as the bitmaps allow,
 * into @nb->newb.  A run may come out shorter: once the indirect blocks
 * and one data block are had, the data blocks are those of the last
 * contiguous piece, and @nb->ndata and @nb->nalloc shrink to what was
 * allocated.  On failure, those allocated go back to the bitmaps.
 */
static int ext2hole_alloc_blocks(struct inode *inode, u64 iblock,
				 const struct ext2hole_branch *br,
				 struct ext2hole_new_branch *nb)
{
	unsigned long goal = ext2hole_find_goal(inode, iblock, br);
	int need = nb->nalloc - nb->ndata + 1;
	int got = 0, i, err = 0;

	while (got < need) {
		unsigned long cnt = nb->nalloc - got, b;

		b = ext2hole_new_blocks_nocharge(inode, goal, &cnt, &err);
		if (!b) {
			ext2hole_unalloc(inode, nb->newb, got, 0);
			return err;
		}
		for (i = 0; i < cnt; i++)
			nb->newb[got + i] = b + i;
		got += cnt;
		goal = b + cnt;
	}
	/* a given data block: need == nalloc, nothing shrinks */
	nb->ndata -= nb->nalloc - got;
	nb->nalloc = got;
	return 0;
}

/*
 * Zero the new indirect blocks of @nb and store in each the pointer to
 * the next block of the branch, bottom-up; nothing points at them yet, so
 * no lock-free walk can read them before ext2hole_splice_branch() links
 * the branch in.  -ENOMEM when a buffer cannot be had; the caller undoes
 * the allocation.
 */
static int ext2hole_fill_branch(struct inode *inode,
				const struct ext2hole_branch *br,
				const struct ext2hole_new_branch *nb)
{
	struct super_block *sb = inode->i_sb;
	struct buffer_head *ibh;
	int i, j;

	for (i = 1; i < nb->n; i++) {
		ibh = sb_getblk(sb, nb->newb[i - 1]);
		if (unlikely(!ibh)) {
			for (j = 0; j < i - 1; j++) {
				ibh = sb_find_get_block(sb, nb->newb[j]);
				if (ibh)
					ext2hole_forget_meta(sb, ibh);
			}
			return -ENOMEM;
		}
		lock_buffer(ibh);
		memset(ibh->b_data, 0, ibh->b_size);
		/* the last one points at the data blocks: the run's array */
		for (j = 0; j < (i == nb->n - 1 ? nb->ndata : 1); j++)
			((__le32 *)ibh->b_data)[br->offsets[br->level + i] + j] =
				cpu_to_le32(nb->newb[i + j]);
		set_buffer_uptodate(ibh);
		unlock_buffer(ibh);
		ext2hole_dirty_meta_inode(ibh, inode);
		if (IS_SYNC(inode) || (S_ISDIR(inode->i_mode) && IS_DIRSYNC(inode)))
			sync_dirty_buffer(ibh);
		brelse(ibh);
	}
	return 0;
}

/*
 * Record the @nb->ndata data blocks of @nb, logical blocks from @iblock,
 * as pending; on failure none stays recorded.
 */
static int ext2hole_pending_run(struct inode *inode, u64 iblock,
				const struct ext2hole_new_branch *nb)
{
	int i, err;

	for (i = 0; i < nb->ndata; i++) {
		err = ext2hole_pending_add(inode, iblock + i,
					   nb->newb[nb->n - 1 + i]);
		if (err) {
			while (i--)
				xa_erase_irq(&EXT2HOLE_I(inode)->i_pending,
					     iblock + i);
			return err;
		}
	}
	return 0;
}

/**
 * ext2hole_alloc_branch - allocate and build what fills a hole
 * @inode: the inode, i_map_mutex held
 * @iblock: the logical block being mapped
 * @br: the chain to the hole, current under the mutex
 * @bh_result: the caller's buffer (for a given block: its b_blocknr)
 * @create: as for ext2hole_get_block()
 * @run: data blocks wanted, for consecutive zero pointers of one array
 *	from @iblock's (ext2hole_hole_run(); 1 for a given block)
 * @nb: out: the new branch
 *
 * The missing indirect blocks and the data blocks are charged to the
 * quota before any bitmap changes, except those reserved for delayed
 * blocks (the data block when it is one, the indirect blocks when one
 * lies under them) and a given data block, which the caller charged.
 * A run that does not fit the quota falls back to one data block; one
 * that the bitmaps give shorter gives the rest of its charge back.
 * A data block for the page cache holds its data only there until
 * writeback: it is made pending before the store that maps it, so that a
 * lookup that sees the pointer sees the entry too (the store's write
 * section orders them; ext2hole_get_block_dio_read()).
 *
 * Return: 0 with the branch built and not yet linked in, or -EDQUOT,
 * -ENOSPC, -ENOMEM, -EIO with nothing changed.
 */
static int ext2hole_alloc_branch(struct inode *inode, u64 iblock,
				 const struct ext2hole_branch *br,
				 struct buffer_head *bh_result, int create,
				 unsigned long run,
				 struct ext2hole_new_branch *nb)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned long wanted;
	int err;

	nb->given = create == EXT2HOLE_GET_BLOCK_ZEROED;
	nb->n = br->depth - br->level;
	nb->ndata = nb->given ? 1 : run;
	nb->rsv_data = false;
	nb->rsv_meta = 0;
	if (!xa_empty(&ei->i_delayed)) {
		/* reservations are accounted for one data block only */
		nb->ndata = 1;
		nb->rsv_data = xa_load(&ei->i_delayed, iblock);
		nb->rsv_meta = ext2hole_meta_reserved(inode, iblock, br->depth,
						      br->level);
	}
	for (;;) {
		/*
		 * A given data block is charged already: a reservation made
		 * for it by a delayed buffer is given back instead of claimed.
		 */
		nb->nalloc = nb->n - 1 + nb->ndata - nb->given;
		nb->charge = nb->nalloc - nb->rsv_meta -
			     (nb->given ? 0 : nb->rsv_data);
		if (!nb->charge)
			break;
		err = dquot_alloc_block(inode, nb->charge);
		if (!err)
			break;
		if (nb->ndata == 1)
			return err;
		nb->ndata = 1;
	}
	wanted = nb->nalloc;
	err = ext2hole_alloc_blocks(inode, iblock, br, nb);
	if (err)
		goto undo_charge;
	if (wanted > nb->nalloc) {
		/* a short run, of several: its charge was all of nalloc */
		dquot_free_block(inode, wanted - nb->nalloc);
		nb->charge -= wanted - nb->nalloc;
	}
	if (nb->given)
		nb->newb[nb->n - 1] = bh_result->b_blocknr;

	nb->pending = create == 1 && bh_result->b_page &&
		      S_ISREG(inode->i_mode);
	if (nb->pending) {
		err = ext2hole_pending_run(inode, iblock, nb);
		if (err)
			goto undo_alloc;
	}
	err = ext2hole_fill_branch(inode, br, nb);
	if (err) {
		if (nb->pending) {
			int i;

			for (i = 0; i < nb->ndata; i++)
				xa_erase_irq(&ei->i_pending, iblock + i);
		}
		goto undo_alloc;
	}
	return 0;

undo_alloc:
	ext2hole_unalloc(inode, nb->newb, nb->nalloc, 0);
undo_charge:
	if (nb->charge)
		dquot_free_block(inode, nb->charge);
	return err;
}

/*
 * Link the branch @nb, built by ext2hole_alloc_branch(), into the hole
 * where @br stopped: the one write section a lock-free walk can see
 * (ext2hole_set_ptrs()).  What was reserved for the branch is claimed, so
 * that with the charge made before, i_blocks and the quota count its @n
 * blocks.  Under i_map_mutex.
 */
static void ext2hole_splice_branch(struct inode *inode, u64 iblock,
				   const struct ext2hole_branch *br,
				   struct ext2hole_new_branch *nb)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	const struct ext2hole_indirect *hole = &br->chain[br->level];

	/* a run in an existing array: all its pointers; else the branch's */
	ext2hole_set_ptrs(inode, hole->p, nb->newb,
			  nb->n == 1 ? nb->ndata : 1);
	if (hole->bh) {
		ext2hole_dirty_meta_inode(hole->bh, inode);
		if (IS_SYNC(inode) || (S_ISDIR(inode->i_mode) && IS_DIRSYNC(inode)))
			sync_dirty_buffer(hole->bh);
	}
	if (nb->rsv_data && nb->given) {
		/* the caller charged the given block: the reservation goes */
		dquot_release_reservation_block(inode, 1);
		xa_erase(&ei->i_delayed, iblock);
		nb->rsv_data = false;
	}
	if (nb->rsv_data || nb->rsv_meta) {
		dquot_claim_block(inode, nb->rsv_data + nb->rsv_meta);
		if (nb->rsv_data)
			xa_erase(&ei->i_delayed, iblock);
		ei->i_reserved_meta -= nb->rsv_meta;
	}
	inode_set_ctime_current(inode);
	ei->i_last_alloc = nb->newb[nb->n - 2 + nb->ndata];
	ei->i_last_logical = iblock + nb->ndata - 1;
	mark_inode_dirty(inode);
}

/*
 * How many data blocks one allocation fills from the hole @br ends in
 * (current under i_map_mutex): up to @max and EXT2HOLE_RUN_MAX, inside
 * the pointer array that holds the first one's pointer, while those
 * pointers are zero (all are, in an indirect block still to be made).
 * One while delayed blocks hold reservations: ext2hole_alloc_branch()
 * accounts them for a single data block.
 */
static unsigned long ext2hole_hole_run(struct inode *inode,
				       const struct ext2hole_branch *br,
				       unsigned long max)
{
	max = min3(max, (unsigned long)EXT2HOLE_RUN_MAX,
		   ext2hole_array_left(inode->i_sb, br->offsets, br->depth));
	if (max <= 1 || !xa_empty(&EXT2HOLE_I(inode)->i_delayed))
		return 1;
	/* the walk measured the hole: its zero pointers, or its subtree */
	return min(br->count, max);
}

/**
 * ext2hole_map_extent - what the block map holds from a logical block
 * @inode: an inode with a block map
 * @iblock: the logical block
 * @max: blocks wanted (at least 1)
 * @locked: the caller holds i_map_mutex (FIEMAP and SEEK): one locked walk
 * @pblk: out: the first block of a mapped run, or 0 for a hole
 * @count: out: the run's length, 1 .. @max: blocks contiguous on disk
 *	inside one pointer array, or a hole (see struct ext2hole_branch)
 *
 * The lookup of the page-cache read path (src/read.c) and of FIEMAP and
 * SEEK (src/fiemap.c), one walk for a run of either kind.  Unless
 * @locked, lock-free first, then under i_map_mutex when that walk was not
 * verified, which reports damage; as ext2hole_get_block().
 * Beyond what the map can address is a hole.
 *
 * Return: 0, -EIO or -EFSCORRUPTED.
 */
int ext2hole_map_extent(struct inode *inode, u64 iblock, unsigned long max,
			bool locked, u32 *pblk, unsigned long *count)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_branch br;
	int err;

	*pblk = 0;
	*count = 0;
	max = max(max, 1UL);
	if (locked) {
		lockdep_assert_held(&ei->i_map_mutex);
		err = ext2hole_get_branch(inode, iblock, max,
					  EXT2HOLE_WALK_LOCKED, &br);
	} else {
		err = ext2hole_get_branch(inode, iblock, max,
					  EXT2HOLE_WALK_LOCKFREE, &br);
	}
	if (!locked && err && err != -EFBIG) {
		mutex_lock(&ei->i_map_mutex);
		err = ext2hole_get_branch(inode, iblock, max,
					  EXT2HOLE_WALK_LOCKED, &br);
		mutex_unlock(&ei->i_map_mutex);
	}
	if (err == -EFBIG) {
		*pblk = 0;
		*count = max;
		return 0;
	}
	if (err)
		return err;
	ext2hole_put_branch(&br);
	*pblk = br.chain[br.level].nr;
	*count = br.count;
	return 0;
}

/**
 * ext2hole_get_block - map (and with @create allocate) a logical block
 * @inode: the inode
 * @iblock: logical block number
 * @bh_result: out: mapped (map_bh) when the block exists or was made;
 *	in: b_size bounds how many contiguous blocks may be mapped
 * @create: allocate missing indirect blocks and the data block;
 *	%EXT2HOLE_GET_BLOCK_ZEROED: a hole gets the data block given in
 *	@bh_result->b_blocknr, which the caller allocated, charged to the
 *	quota and zeroed on disk (fallocate, falloc.c); buffer_new() on
 *	return says whether it was taken
 *
 * The map is walked without i_map_mutex first (ext2hole_get_branch(),
 * lock-free, whatever @create); the mutex is taken to allocate, or when
 * that walk was not verified.  Allocation starts from the lock-free walk's
 * chain when i_map_seq has not moved since; otherwise the chain is walked
 * again under the mutex, which reports damage.  An existing block is
 * mapped with the run of blocks after it that are contiguous on disk in
 * the same pointer array, up to b_size (O_DIRECT, readahead); a hole is
 * never part of a run.  A new block is mapped alone, except for the page
 * cache: a caller that passes a buffer of a page (b_page set) whose
 * b_size covers several blocks (page_mkwrite's, hole_alloc_run()) gets
 * up to that many consecutive holes of one pointer array filled by one
 * allocation, contiguous on disk, and mapped as one run.  A new data
 * block gets set_buffer_new(): the caller zeroes what it does not write.  New
 * indirect blocks are zeroed here.  Charging, reservations of delayed
 * blocks and i_pending: ext2hole_alloc_branch().  A buffer that gets a
 * block loses BH_Delay here, whoever asked (write_begin, page_mkwrite,
 * writeback): no buffer is ever both mapped and delayed, so every path
 * that writes mapped dirty buffers writes it.
 *
 * Return: 0 (mapped, or unmapped hole when !@create), -ENOSPC, -EDQUOT, -EROFS,
 * -EIO, -EFSCORRUPTED, -EFBIG.
 */
int ext2hole_get_block(struct inode *inode, sector_t iblock,
		       struct buffer_head *bh_result, int create)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	unsigned long max = max_t(unsigned long,
				  bh_result->b_size >> inode->i_blkbits, 1);
	struct ext2hole_new_branch nb;
	struct ext2hole_branch br;
	int err;

	err = ext2hole_get_branch(inode, iblock, max, EXT2HOLE_WALK_LOCKFREE,
				  &br);
	if (err == -EFBIG)
		return create ? -EFBIG : 0;
	if (!err && (ext2hole_branch_mapped(&br) || !create)) {
		if (ext2hole_branch_mapped(&br))
			ext2hole_map_buffer(inode, bh_result,
					    br.chain[br.level].nr, br.count);
		ext2hole_put_branch(&br);
		return 0;
	}

	/* Not verified (a change raced, damage, a read error), or allocating. */
	mutex_lock(&ei->i_map_mutex);
	if (!err && !ext2hole_branch_current(inode, &br)) {
		ext2hole_put_branch(&br);
		err = -EAGAIN;
	}
	if (err) {
		err = ext2hole_get_branch(inode, iblock, max,
					  EXT2HOLE_WALK_LOCKED, &br);
		if (err)
			goto out_unlock;
	}
	if (ext2hole_branch_mapped(&br)) {
		ext2hole_map_buffer(inode, bh_result, br.chain[br.level].nr,
				    br.count);
	} else if (create) {
		unsigned long run = 1;

		if (create == 1 && bh_result->b_page && S_ISREG(inode->i_mode))
			run = ext2hole_hole_run(inode, &br, max);
		err = ext2hole_alloc_branch(inode, iblock, &br, bh_result,
					    create, run, &nb);
		if (!err) {
			ext2hole_splice_branch(inode, iblock, &br, &nb);
			ext2hole_map_buffer(inode, bh_result,
					    nb.newb[nb.n - 1], nb.ndata);
			set_buffer_new(bh_result);
			clean_bdev_aliases(inode->i_sb->s_bdev,
					   nb.newb[nb.n - 1], nb.ndata);
		}
	}
	mutex_unlock(&ei->i_map_mutex);
	ext2hole_put_branch(&br);
	return err;

out_unlock:
	mutex_unlock(&ei->i_map_mutex);
	return err;
}

/**
 * ext2hole_get_block_dio_read - get_block of O_DIRECT reads
 * @inode: the inode
 * @iblock: logical block number
 * @bh_result: as for ext2hole_get_block()
 * @create: 0 (reads never allocate)
 *
 * ext2hole_get_block(), except that a block whose data is not on disk yet
 * (i_pending) is a hole: the mapped run ends before the first such block,
 * and when it is the first one the result is unmapped, which the direct
 * I/O code fills with zeros.  That is what the block held for the file
 * before its data was stored (a hole, read as zeros); what the disk holds
 * there is its previous owner's.  The direct I/O code wrote the range back
 * before it maps it, so what is pending here was allocated since (a store
 * through a mapping, or the user pages of this very read being faulted in),
 * or its write failed.
 *
 * Ordering: ext2hole_get_block() saw the pointer either under i_map_mutex,
 * after the allocator's store to i_pending under the same mutex, or in a
 * lock-free walk; the allocator stores to i_pending (released by the xa
 * lock) before the write section of the pointer store (smp_wmb), and the
 * smp_rmb() below orders the walk's reads before the i_pending lookup.  A
 * reader that saw the pointer therefore sees the entry, unless a completed
 * write cleared it: then the data is on disk.
 *
 * Return: as ext2hole_get_block().
 */
int ext2hole_get_block_dio_read(struct inode *inode, sector_t iblock,
				struct buffer_head *bh_result, int create)
{
	struct xarray *xa = &EXT2HOLE_I(inode)->i_pending;
	unsigned long index = iblock, last;
	int err;

	err = ext2hole_get_block(inode, iblock, bh_result, create);
	if (err || create || !buffer_mapped(bh_result))
		return err;
	smp_rmb();	/* the map's pointers before i_pending: see above */
	last = iblock + (bh_result->b_size >> inode->i_blkbits) - 1;
	if (!xa_find(xa, &index, last, XA_PRESENT))
		return 0;
	atomic64_inc(&EXT2HOLE_SB(inode->i_sb)->s_dio_pending);
	if (index == iblock)
		clear_buffer_mapped(bh_result);
	else
		bh_result->b_size = (index - iblock) << inode->i_blkbits;
	return 0;
}

/**
 * ext2hole_get_block_delay - get_block of page_mkwrite under mkwrite=noalloc
 * @inode: a regular file
 * @iblock: logical block of a page buffer inside i_size
 * @bh_result: that buffer (one block)
 * @create: unused (the buffer gets a block or a reservation)
 *
 * Without quota on the filesystem, only marks the buffer delayed.
 * Otherwise maps the buffer when its block exists, or reserves the quota
 * that allocating it at writeback will take, the block and the indirect
 * blocks on its path that are missing and not reserved already (see the
 * invariant above ext2hole_subtree()), records the block in i_delayed and
 * marks the buffer delayed.  A block recorded already is only marked.
 * The fault sees -EDQUOT when the reservation does not fit the limits,
 * which the dquot code checks against what is charged and reserved.
 *
 * Return: 0, -EDQUOT, -ENOMEM, -EIO, -EFSCORRUPTED or -EFBIG.
 */
int ext2hole_get_block_delay(struct inode *inode, sector_t iblock,
			     struct buffer_head *bh_result, int create)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	int depth, level, meta, err;
	u32 nr;

	/*
	 * No quota on this filesystem: nothing to reserve, so no map walk on
	 * the fault either.  Writeback's get_block finds the block if it
	 * exists and charges what it allocates (a quotaon meanwhile: those
	 * blocks are charged at allocation, with nothing reserved).
	 */
	if (!sb_any_quota_loaded(inode->i_sb)) {
		set_buffer_delay(bh_result);
		return 0;
	}
	err = ext2hole_get_block(inode, iblock, bh_result, 0);
	if (err || buffer_mapped(bh_result))
		return err;

	mutex_lock(&ei->i_map_mutex);
	level = ext2hole_path_end(inode, iblock, &depth, &nr);
	if (level < 0) {
		err = level;
		goto out;
	}
	if (nr) {
		/* allocated since the lookup (O_DIRECT) */
		ext2hole_map_buffer(inode, bh_result, nr, 1);
		goto out;
	}
	if (xa_load(&ei->i_delayed, iblock))
		goto delay;
	meta = depth - 1 - level -
	       ext2hole_meta_reserved(inode, iblock, depth, level);
	err = dquot_reserve_block(inode, 1 + meta);
	if (err)
		goto out;
	err = xa_err(xa_store(&ei->i_delayed, iblock, xa_mk_value(0),
			      GFP_NOFS));
	if (err) {
		dquot_release_reservation_block(inode, 1 + meta);
		goto out;
	}
	ei->i_reserved_meta += meta;
delay:
	set_buffer_delay(bh_result);
out:
	mutex_unlock(&ei->i_map_mutex);
	return err;
}

/* ---------------------------------------------------------------------- */
/* truncation */

/* A run of contiguous blocks waiting to be freed in one call. */
struct ext2hole_free_run {
	unsigned long start;
	unsigned long count;
};

static void ext2hole_run_flush(struct inode *inode, struct ext2hole_free_run *run)
{
	if (!run->count)
		return;
	/* Also takes them off i_blocks and the quota charge. */
	ext2hole_free_blocks(inode, run->start, run->count);
	run->count = 0;
}

static void ext2hole_run_add(struct inode *inode, struct ext2hole_free_run *run,
			     unsigned long block)
{
	if (run->count && block == run->start + run->count) {
		run->count++;
		return;
	}
	ext2hole_run_flush(inode, run);
	run->start = block;
	run->count = 1;
}

/*
 * The indirect block @bh, named by *@p and covering logical blocks
 * [@start, @start + @span), once the part of the range under it is freed
 * (@changed: whether any of its pointers changed): left empty, it is
 * freed too, its pointer cleared first; else a change is written.  Drops
 * the caller's reference on @bh.  Returns whether *@p changed.
 */
static bool ext2hole_release_indirect(struct inode *inode, __le32 *p,
				      struct buffer_head *bh, u64 start,
				      u64 span, bool changed,
				      struct ext2hole_free_run *run)
{
	unsigned long nr = bh->b_blocknr;

	if (!memchr_inv(bh->b_data, 0, inode->i_sb->s_blocksize)) {
		ext2hole_set_ptr(inode, p, 0);
		ext2hole_forget_meta(inode->i_sb, bh);
		/* delayed blocks outside the range freed may still need it */
		ext2hole_delay_rereserve(inode, start, span);
		ext2hole_run_add(inode, run, nr);
		return true;
	}
	if (changed) {
		ext2hole_dirty_meta_inode(bh, inode);
		if (IS_SYNC(inode))
			sync_dirty_buffer(bh);
	}
	brelse(bh);
	return false;
}

/*
 * Free the whole subtree under pointer *@p, of @height levels of
 * indirection (0: *@p is a data block), whose first logical block is
 * @start; the range being freed covers all of it.  No walk went down
 * here, so each pointer is checked before it is followed: a bad one is
 * reported and dropped, an indirect block that cannot be read reported
 * and kept (what lies under it leaks).  Returns whether *@p changed.
 * Under i_map_mutex; recursive, at most 3 deep.
 */
static bool ext2hole_free_subtree(struct inode *inode, __le32 *p, int height,
				  u64 start, struct ext2hole_free_run *run)
{
	struct super_block *sb = inode->i_sb;
	int bits = EXT2HOLE_SB(sb)->s_addr_per_block_bits;
	unsigned long apb = ext2hole_apb(sb), i;
	u64 span = 1ULL << (height * bits);
	u32 nr = le32_to_cpu(*p);
	struct buffer_head *bh;
	bool changed = false;
	__le32 *ind;

	if (!nr)
		return false;
	if (!ext2hole_data_blocks_valid(sb, nr, 1)) {
		ext2hole_error(sb, "inode %lu: bad block %u at logical %llu (height %d), dropped",
			       inode->i_ino, nr, start, height);
		ext2hole_set_ptr(inode, p, 0);
		if (height)
			ext2hole_delay_rereserve(inode, start, span);
		return true;
	}
	if (!height) {
		/* cleared before it can be freed: see ext2hole_set_ptr() */
		ext2hole_set_ptr(inode, p, 0);
		ext2hole_run_add(inode, run, nr);
		return true;
	}
	bh = ext2hole_bread(sb, nr);
	if (!bh) {
		ext2hole_error(sb, "inode %lu: cannot read indirect block %u at logical %llu (height %d), blocks leaked",
			       inode->i_ino, nr, start, height);
		return false;
	}
	ind = (__le32 *)bh->b_data;
	for (i = 0; i < apb; i++)
		if (ind[i])
			changed |= ext2hole_free_subtree(inode, &ind[i], height - 1,
							 start + ((u64)i << ((height - 1) * bits)),
							 run);
	return ext2hole_release_indirect(inode, p, bh, start, span, changed, run);
}

/*
 * Free the whole subtrees under pointers [@from, @to) of the array at
 * level @l of @br, the walk to @iblock (i_data at level 0, whose pointers
 * have subtrees of every height).  Returns whether a pointer changed.
 */
static bool ext2hole_free_slice(struct inode *inode,
				const struct ext2hole_branch *br, u64 iblock,
				int l, int from, int to,
				struct ext2hole_free_run *run)
{
	int bits = EXT2HOLE_SB(inode->i_sb)->s_addr_per_block_bits;
	int height = br->depth - 1 - l, i;
	bool changed = false;
	u64 start = 0, span;
	__le32 *arr = EXT2HOLE_I(inode)->i_data;

	if (l) {
		arr = (__le32 *)br->chain[l].bh->b_data;
		start = ext2hole_subtree(inode, iblock, br->depth, l, &span);
	}
	for (i = 0; i < to; i++, start += 1ULL << (height * bits)) {
		if (!l)
			height = i < EXT2HOLE_IND_BLOCK ? 0 :
				 i - EXT2HOLE_IND_BLOCK + 1;
		if (i >= from && arr[i])
			changed |= ext2hole_free_subtree(inode, &arr[i], height,
							 start, run);
	}
	return changed;
}

/*
 * The pointer where @br, the walk to @iblock that returned @err, stopped:
 * the data block of @iblock is freed, a bad pointer (the walk reported it)
 * dropped; a hole and an unreadable indirect block (reported, what lies
 * under it leaks) stay.  Returns whether the pointer changed.
 */
static bool ext2hole_free_stop(struct inode *inode,
			       const struct ext2hole_branch *br, u64 iblock,
			       int err, struct ext2hole_free_run *run)
{
	const struct ext2hole_indirect *at = &br->chain[br->level];
	u64 start, span;

	if (!at->nr || err == -EIO)
		return false;
	/* cleared before it can be freed: see ext2hole_set_ptr() */
	ext2hole_set_ptr(inode, at->p, 0);
	if (!err) {
		ext2hole_run_add(inode, run, at->nr);
	} else if (br->level < br->depth - 1) {
		start = ext2hole_subtree(inode, iblock, br->depth,
					 br->level + 1, &span);
		ext2hole_delay_rereserve(inode, start, span);
	}
	return true;
}

/*
 * The indirect block at level @l (1 ..) of @br, the walk to @iblock, once
 * the part of the range under it is freed (@changed: whether any of its
 * pointers changed): see ext2hole_release_indirect(), which takes the
 * chain's reference.  Returns whether the pointer to it changed.
 */
static bool ext2hole_release_chain(struct inode *inode,
				   struct ext2hole_branch *br, u64 iblock,
				   int l, bool changed,
				   struct ext2hole_free_run *run)
{
	u64 start, span;

	start = ext2hole_subtree(inode, iblock, br->depth, l, &span);
	changed = ext2hole_release_indirect(inode, br->chain[l - 1].p,
					    br->chain[l].bh, start, span,
					    changed, run);
	br->chain[l].bh = NULL;
	return changed;
}

/*
 * One end of the range being freed: @br, the walk to @iblock that
 * returned @err, below level @top (where the walk to the other end takes
 * another pointer of the same array, or the range has no other end).
 * Frees the pointer where the walk stopped and, at each level below @top,
 * the subtrees beside the chain inside the range: after it (@after, the
 * range starts at @iblock) or before it (the range ends with @iblock);
 * the chain's indirect blocks left empty are freed, bottom up.  Returns
 * whether a pointer of the array at level @top changed.
 */
static bool ext2hole_free_side(struct inode *inode, struct ext2hole_branch *br,
			       u64 iblock, int err, int top, bool after,
			       struct ext2hole_free_run *run)
{
	int apb = ext2hole_apb(inode->i_sb);
	bool changed = ext2hole_free_stop(inode, br, iblock, err, run);
	int l;

	for (l = br->level; l > top; l--) {
		if (after)
			changed |= ext2hole_free_slice(inode, br, iblock, l,
						       br->offsets[l] + 1, apb,
						       run);
		else
			changed |= ext2hole_free_slice(inode, br, iblock, l, 0,
						       br->offsets[l], run);
		changed = ext2hole_release_chain(inode, br, iblock, l, changed,
						 run);
	}
	return changed;
}

/*
 * Under i_map_mutex: the %EXT2HOLE_WALK_FREE walk to @iblock, whose path
 * (br->depth, br->offsets, set by the caller) agrees with that of @from
 * at levels 0 .. @level - 1, where @from went down: the chain above
 * @level is @from's (with a reference of its own on each indirect
 * block), and the walk goes on from the array at @level.
 */
static int ext2hole_walk_on(struct inode *inode, u64 iblock,
			    const struct ext2hole_branch *from, int level,
			    struct ext2hole_branch *br)
{
	int l;

	lockdep_assert_held(&EXT2HOLE_I(inode)->i_map_mutex);
	for (l = 0; l <= level; l++) {
		br->chain[l] = from->chain[l];
		if (br->chain[l].bh)
			get_bh(br->chain[l].bh);
	}
	return ext2hole_walk(inode, iblock, 1, EXT2HOLE_WALK_FREE, br, level);
}

/*
 * Free logical blocks [@cut, @end) of the map, under i_map_mutex, the way
 * ext2's truncate and ext4's ext4_ind_remove_space() do.  The walks to
 * the first and the last block of the range (ext2hole_get_branch(), which
 * checks and reports every pointer it follows) give the chains of
 * indirect blocks partly in the range, shared from i_data down to the
 * level @split where their paths part (a range that runs to the end of
 * the map has no last block: its one chain parts at level 0 from the end
 * of i_data).  Everything else in the range is a whole subtree beside a
 * chain below @split, or between the two chains in the array at @split,
 * and is freed by ext2hole_free_subtree().  Indirect blocks left empty
 * are freed, each chain's bottom up, the shared ones, from @split up,
 * last.
 */
static void ext2hole_free_map(struct inode *inode, u64 cut, u64 end,
			      struct ext2hole_free_run *run)
{
	struct ext2hole_branch first, last;
	int err, split = 0, top, l, to;
	bool changed;

	err = ext2hole_get_branch(inode, cut, 1, EXT2HOLE_WALK_FREE, &first);
	if (err == -EFBIG)
		return;
	last.depth = end == U64_MAX ? 0 :
		     ext2hole_block_to_path(inode, end - 1, last.offsets);
	if (last.depth)
		while (split < min(first.depth, last.depth) &&
		       first.offsets[split] == last.offsets[split])
			split++;
	/*
	 * A walk to @cut that stopped above @split (at a hole, damage, or
	 * the range's one block) stopped on a pointer the walk to the last
	 * block takes too: nothing else is in the range, and that walk is
	 * not needed.
	 */
	top = min(split, first.level);
	changed = ext2hole_free_side(inode, &first, cut, err, top, true, run);
	if (top == split) {
		to = EXT2HOLE_N_BLOCKS;
		if (last.depth) {
			err = ext2hole_walk_on(inode, end - 1, &first, split,
					       &last);
			changed |= ext2hole_free_side(inode, &last, end - 1, err,
						      split, false, run);
			ext2hole_put_branch(&last);
			to = last.offsets[split];
		}
		changed |= ext2hole_free_slice(inode, &first, cut, split,
					       first.offsets[split] + 1, to,
					       run);
	}
	for (l = top; l > 0; l--)
		changed = ext2hole_release_chain(inode, &first, cut, l, changed,
						 run);
	ext2hole_put_branch(&first);
}

/**
 * ext2hole_free_range - free the blocks of a range of logical blocks
 * @inode: the inode
 * @cut: first logical block to free
 * @end: logical block after the last one to free (U64_MAX: to the end)
 *
 * Data and indirect blocks at every level, through ext2hole_free_blocks();
 * indirect blocks that become empty are freed, partial ones get their
 * pointers in the range zeroed (ext2hole_free_map()).  Truncation and
 * punching a hole (falloc.c) both come here.  The page cache over the
 * range must already be gone and no writeback of it in flight.  Quota
 * reserved for delayed blocks in the range is given back, and an indirect
 * block freed while delayed blocks outside the range lie under it is
 * reserved again.  Marks the inode dirty.
 */
void ext2hole_free_range(struct inode *inode, u64 cut, u64 end)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);
	struct ext2hole_free_run run = { 0, 0 };

	if (!ext2hole_has_block_map(inode) || cut >= end)
		return;

	mutex_lock(&ei->i_map_mutex);
	/*
	 * Delayed blocks in the range lost their pages with the page cache
	 * (their reservations are normally gone with the pages already,
	 * through invalidate_folio): before the map changes, which the
	 * accounting of the indirect blocks reads.
	 */
	ext2hole_delay_release(inode, cut, end);
	ext2hole_free_map(inode, cut, end, &run);
	ext2hole_run_flush(inode, &run);
	/* after the pointers: a walk that read one may still find the entry */
	ext2hole_pending_forget(inode, cut, end);
	ei->i_last_alloc = 0;
	ei->i_last_logical = 0;
	mutex_unlock(&ei->i_map_mutex);
	mark_inode_dirty(inode);
}

/**
 * ext2hole_truncate_blocks - free the blocks beyond a size
 * @inode: the inode
 * @offset: new size in bytes; blocks wholly at or beyond it are freed
 *
 * See ext2hole_free_range().  The page cache must already be cut at
 * @offset.
 */
void ext2hole_truncate_blocks(struct inode *inode, loff_t offset)
{
	ext2hole_free_range(inode,
			    DIV_ROUND_UP((u64)offset, inode->i_sb->s_blocksize),
			    U64_MAX);
}

/**
 * ext2hole_setsize - change i_size (truncate(2))
 * @inode: a regular file, directory or slow symlink; i_rwsem held
 * @newsize: the new size
 *
 * Growing goes through the hole API: hole_prepare() zeroes the old EOF
 * block's tail and the rest of its page, then i_size changes, then
 * hole_finish() write-protects the old EOF page.  Shrinking zeroes the tail
 * of the new last block (hole_zero_block(), not block_truncate_page(),
 * which finds the wrong block inside a large folio on 6.12), cuts the page
 * cache and frees the blocks beyond.
 * All under the invalidate lock, so page_mkwrite sees a stable size.
 */
int ext2hole_setsize(struct inode *inode, loff_t newsize)
{
	struct address_space *mapping = inode->i_mapping;
	loff_t oldsize;
	int err;

	if (!(S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) ||
	      S_ISLNK(inode->i_mode)))
		return -EINVAL;
	if (ext2hole_is_fast_symlink(inode))
		return -EINVAL;
	if (IS_APPEND(inode) || IS_IMMUTABLE(inode))
		return -EPERM;
	err = inode_newsize_ok(inode, newsize);
	if (err)
		return err;

	/*
	 * Only a shrink must wait for direct I/O in flight: it frees blocks
	 * that I/O may still write.  Growth frees nothing, and an O_SYNC AIO
	 * completion may need this inode's locks (see file.c's fsync).
	 */
	if (newsize < inode->i_size)
		inode_dio_wait(inode);
	filemap_invalidate_lock(mapping);
	oldsize = inode->i_size;
	if (newsize > oldsize) {
		err = hole_prepare(inode, oldsize, newsize, ext2hole_get_block);
		if (err)
			goto out;
		i_size_write(inode, newsize);
		hole_finish(inode, oldsize, newsize);
	} else if (newsize < oldsize) {
		err = hole_zero_block(inode, newsize,
				      round_up(newsize, i_blocksize(inode)),
				      ext2hole_get_block);
		if (err)
			goto out;
		i_size_write(inode, newsize);
		truncate_pagecache(inode, newsize);
		ext2hole_truncate_blocks(inode, newsize);
	}
	inode_set_mtime_to_ts(inode, inode_set_ctime_current(inode));
	if (IS_SYNC(inode))
		err = ext2hole_sync_inode(inode);
	else
		mark_inode_dirty(inode);
out:
	filemap_invalidate_unlock(mapping);
	return err;
}

int ext2hole_setattr(struct ext2hole_idmap *idmap, struct dentry *dentry,
		     struct iattr *iattr)
{
	struct inode *inode = d_inode(dentry);
	int err;

	err = setattr_prepare(idmap, dentry, iattr);
	if (err)
		return err;
	if (is_quota_modification(idmap, inode, iattr)) {
		err = dquot_initialize(inode);
		if (err)
			return err;
	}
	if (i_uid_needs_update(idmap, iattr, inode) ||
	    i_gid_needs_update(idmap, iattr, inode)) {
		/* chown/chgrp: move the usage to the new owner's quota */
		err = dquot_transfer(idmap, inode, iattr);
		if (err)
			return err;
	}
	if ((iattr->ia_valid & ATTR_SIZE) && iattr->ia_size != inode->i_size) {
		err = ext2hole_setsize(inode, iattr->ia_size);
		if (err)
			return err;
	}
	/* page_mkwrite stamps the times under the invalidate lock, shared */
	filemap_invalidate_lock(inode->i_mapping);
	setattr_copy(idmap, inode, iattr);
	filemap_invalidate_unlock(inode->i_mapping);
	if (iattr->ia_valid & ATTR_MODE)
		err = ext2hole_acl_chmod(idmap, dentry);
	mark_inode_dirty(inode);
	return err;
}

int ext2hole_getattr(struct ext2hole_idmap *idmap, const struct path *path,
		     struct kstat *stat, u32 request_mask,
		     unsigned int query_flags)
{
	struct inode *inode = d_inode(path->dentry);
	u32 flags = EXT2HOLE_I(inode)->i_flags;

	if (flags & EXT2HOLE_APPEND_FL)
		stat->attributes |= STATX_ATTR_APPEND;
	if (flags & EXT2HOLE_COMPR_FL)
		stat->attributes |= STATX_ATTR_COMPRESSED;
	if (flags & EXT2HOLE_IMMUTABLE_FL)
		stat->attributes |= STATX_ATTR_IMMUTABLE;
	if (flags & EXT2HOLE_NODUMP_FL)
		stat->attributes |= STATX_ATTR_NODUMP;
	stat->attributes_mask |= STATX_ATTR_APPEND | STATX_ATTR_COMPRESSED |
				 STATX_ATTR_IMMUTABLE | STATX_ATTR_NODUMP;
	/* A birth time of 0 is unknown (extra fields given after creation). */
	if (EXT2HOLE_EXTRA_FITS(READ_ONCE(EXT2HOLE_I(inode)->i_extra_isize),
				i_crtime) &&
	    (EXT2HOLE_I(inode)->i_crtime.tv_sec ||
	     EXT2HOLE_I(inode)->i_crtime.tv_nsec)) {
		stat->result_mask |= STATX_BTIME;
		stat->btime = EXT2HOLE_I(inode)->i_crtime;
	}
	ext2hole_fillattr(idmap, request_mask, inode, stat);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* eviction */

void ext2hole_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	/* Never write to a read-only mount (errors=remount-ro included). */
	bool want_delete = !inode->i_nlink && !is_bad_inode(inode) &&
			   !sb_rdonly(sb);

	truncate_inode_pages_final(&inode->i_data);
	/* no writeback left to complete (ext2hole_hole_written) */
	xa_destroy(&EXT2HOLE_I(inode)->i_pending);
	/* delayed blocks whose pages are gone: before the dquots go */
	ext2hole_delay_evict(inode);

	/* A deleted inode gives its blocks and itself back to its quota. */
	if (want_delete)
		dquot_initialize(inode);
	else
		dquot_drop(inode);

	if (want_delete) {
		sb_start_intwrite(sb);
		EXT2HOLE_I(inode)->i_dtime = ktime_get_real_seconds();
		inode->i_size = 0;
		if (inode->i_blocks)
			ext2hole_truncate_blocks(inode, 0);
		ext2hole_xattr_delete_inode(inode);
		__ext2hole_write_inode(inode, inode_needs_sync(inode));
	}

	invalidate_inode_buffers(inode);
	clear_inode(inode);

	if (want_delete) {
		ext2hole_free_inode(inode);
		sb_end_intwrite(sb);
	}
}
