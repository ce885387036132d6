// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: disk quotas, as the ext2 driver has them (docs/design.md).
 *
 * The quota formats (vfsv0/vfsv1 from quota_v2 and quota_tree) live in
 * ordinary files named to quotactl(Q_QUOTAON) by the quota tools; the
 * generic dquot code reads and writes them through ext2hole_quota_read()
 * and ext2hole_quota_write(), which go to the blocks directly, under the
 * page cache: the dquot code serializes its own accesses and the files
 * are immutable while quota is on.  There is no journal, so there are no
 * journaled quota files (usrjquota= is refused at mount, as by ext2) and
 * no hidden quota inodes (the quota feature keeps the image read-only).
 *
 * Charging happens where blocks and inodes are taken and given back:
 * ext2hole_new_blocks()/ext2hole_free_blocks() (balloc.c) and
 * ext2hole_new_inode()/ext2hole_free_inode() (ialloc.c).  Blocks delayed
 * by page_mkwrite under mkwrite=noalloc are reserved there and claimed
 * when get_block allocates them (inode.c, ext2hole_get_block_delay()):
 * the dquot code keeps the reserved bytes per inode in i_reserved_quota,
 * through get_reserved_space.
 */
#include <linux/quotaops.h>
#include "ext2hole.h"

#ifdef CONFIG_QUOTA

ext2hole_dquot_ptr *ext2hole_get_dquots(struct inode *inode)
{
	return EXT2HOLE_I(inode)->i_dquot;
}

/**
 * ext2hole_quota_read - read from a quota file
 * @sb: the filesystem
 * @type: USRQUOTA or GRPQUOTA
 * @data: destination
 * @len: bytes wanted
 * @off: file offset
 *
 * Holes read as zeros; nothing is read past i_size.
 *
 * Return: the bytes read, or a negative errno.
 */
ssize_t ext2hole_quota_read(struct super_block *sb, int type, char *data,
			    size_t len, loff_t off)
{
	struct inode *inode = sb_dqopt(sb)->files[type];
	unsigned int bits = sb->s_blocksize_bits;
	loff_t size = i_size_read(inode);
	size_t done = 0;

	if (off >= size)
		return 0;
	len = min_t(loff_t, len, size - off);
	while (done < len) {
		struct buffer_head map = { .b_size = sb->s_blocksize };
		unsigned int in = (off + done) & (sb->s_blocksize - 1);
		size_t n = min_t(size_t, sb->s_blocksize - in, len - done);
		int err;

		err = ext2hole_get_block(inode, (off + done) >> bits, &map, 0);
		if (err)
			return err;
		if (buffer_mapped(&map)) {
			struct buffer_head *bh = ext2hole_bread(sb, map.b_blocknr);

			if (!bh)
				return -EIO;
			memcpy(data + done, bh->b_data + in, n);
			brelse(bh);
		} else {
			memset(data + done, 0, n);
		}
		done += n;
	}
	return len;
}

/**
 * ext2hole_quota_write - write to a quota file
 * @sb: the filesystem
 * @type: USRQUOTA or GRPQUOTA
 * @data: source
 * @len: bytes to write
 * @off: file offset
 *
 * Allocates the blocks it needs (the quota inode is S_NOQUOTA, so they
 * are charged to nobody) and grows i_size.
 *
 * Return: the bytes written, or a negative errno when none were.
 */
ssize_t ext2hole_quota_write(struct super_block *sb, int type,
			     const char *data, size_t len, loff_t off)
{
	struct inode *inode = sb_dqopt(sb)->files[type];
	unsigned int bits = sb->s_blocksize_bits;
	size_t done = 0;
	int err = 0;

	while (done < len) {
		struct buffer_head map = { .b_size = sb->s_blocksize };
		unsigned int in = (off + done) & (sb->s_blocksize - 1);
		size_t n = min_t(size_t, sb->s_blocksize - in, len - done);
		struct buffer_head *bh;

		err = ext2hole_get_block(inode, (off + done) >> bits, &map, 1);
		if (err)
			break;
		if (n == sb->s_blocksize || buffer_new(&map)) {
			bh = sb_getblk(sb, map.b_blocknr);
			if (bh && buffer_new(&map) && n != sb->s_blocksize) {
				lock_buffer(bh);
				memset(bh->b_data, 0, bh->b_size);
				set_buffer_uptodate(bh);
				unlock_buffer(bh);
			}
		} else {
			bh = ext2hole_bread(sb, map.b_blocknr);
		}
		if (!bh) {
			err = -EIO;
			break;
		}
		lock_buffer(bh);
		memcpy(bh->b_data + in, data + done, n);
		flush_dcache_page(bh->b_page);
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
		ext2hole_dirty_meta_inode(bh, inode);
		brelse(bh);
		done += n;
	}
	if (!done)
		return err;
	if (i_size_read(inode) < off + done)
		i_size_write(inode, off + done);
	inode_set_mtime_to_ts(inode, inode_set_ctime_current(inode));
	mark_inode_dirty(inode);
	return done;
}

/* Quota files are immutable and noatime while quota is on (as in ext2). */
static void ext2hole_quota_file_flags(struct inode *inode, bool on)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	inode_lock(inode);
	if (on)
		ei->i_flags |= EXT2HOLE_NOATIME_FL | EXT2HOLE_IMMUTABLE_FL;
	else
		ei->i_flags &= ~(EXT2HOLE_NOATIME_FL | EXT2HOLE_IMMUTABLE_FL);
	ext2hole_set_inode_flags(inode);
	inode_unlock(inode);
	mark_inode_dirty(inode);
}

static int ext2hole_quota_on(struct super_block *sb, int type, int format_id,
			     const struct path *path)
{
	int err;

	err = dquot_quota_on(sb, type, format_id, path);
	if (err)
		return err;
	ext2hole_quota_file_flags(d_inode(path->dentry), true);
	return 0;
}

static int ext2hole_quota_off(struct super_block *sb, int type)
{
	struct inode *inode = sb_dqopt(sb)->files[type];
	int err;

	if (!inode || !igrab(inode))
		return dquot_quota_off(sb, type);
	err = dquot_quota_off(sb, type);
	if (!err && !sb_rdonly(sb))
		ext2hole_quota_file_flags(inode, false);
	iput(inode);
	return err;
}

/* Unmount: turn quota off for every type, as the ext2 driver does. */
void ext2hole_quota_off_umount(struct super_block *sb)
{
	int type;

	for (type = 0; type < MAXQUOTAS; type++)
		ext2hole_quota_off(sb, type);
}

static qsize_t *ext2hole_get_reserved_space(struct inode *inode)
{
	return &EXT2HOLE_I(inode)->i_reserved_quota;
}

/* The generic operations, and the inode's reserved space (delayed blocks). */
const struct dquot_operations ext2hole_dquot_ops = {
	.write_dquot		= dquot_commit,
	.acquire_dquot		= dquot_acquire,
	.release_dquot		= dquot_release,
	.mark_dirty		= dquot_mark_dquot_dirty,
	.write_info		= dquot_commit_info,
	.alloc_dquot		= dquot_alloc,
	.destroy_dquot		= dquot_destroy,
	.get_next_id		= dquot_get_next_id,
	.get_reserved_space	= ext2hole_get_reserved_space,
};

const struct quotactl_ops ext2hole_quotactl_ops = {
	.quota_on	= ext2hole_quota_on,
	.quota_off	= ext2hole_quota_off,
	.quota_sync	= dquot_quota_sync,
	.get_state	= dquot_get_state,
	.set_info	= dquot_set_dqinfo,
	.get_dqblk	= dquot_get_dqblk,
	.set_dqblk	= dquot_set_dqblk,
	.get_nextdqblk	= dquot_get_next_dqblk,
};

#endif /* CONFIG_QUOTA */
