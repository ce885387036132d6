// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: file operations and the vm operations of shared mappings of
 * regular files (page_mkwrite chosen by the mkwrite= mount option).
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/quotaops.h>
#include "ext2hole.h"

static vm_fault_t ext2hole_page_mkwrite(struct vm_fault *vmf)
{
	struct super_block *sb = file_inode(vmf->vma->vm_file)->i_sb;

	if (READ_ONCE(EXT2HOLE_SB(sb)->s_mkwrite) == EXT2HOLE_MKWRITE_NOALLOC)
		return hole_noalloc_page_mkwrite(vmf, ext2hole_get_block_delay);
	return hole_alloc_page_mkwrite(vmf, ext2hole_get_block);
}

static const struct vm_operations_struct ext2hole_file_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= ext2hole_page_mkwrite,
};

static int ext2hole_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &ext2hole_file_vm_ops;
	return 0;
}

/**
 * ext2hole_fsync - fsync(2), fdatasync(2) and msync(MS_SYNC)
 * @file: the file
 * @start: first byte of the range
 * @end: last byte of the range
 * @datasync: only what is needed to read the data back
 *
 * Writes the range back, then the inode's indirect blocks and the inode,
 * then flushes the disk cache.  Writeback errors recorded by
 * write_full_page (mapping_set_error) come back here through the file's
 * errseq cursor.  No inode lock is taken, as in 6.12's
 * generic_buffers_fsync_noflush(): the completion of an O_SYNC direct AIO
 * write calls fsync from a workqueue, and must never wait for a task that
 * holds i_rwsem while it waits for direct I/O (truncate's inode_dio_wait).
 *
 * Return: 0 or a negative errno.
 */
static int ext2hole_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	struct inode *inode = file->f_mapping->host;
	int ret, err;

	ret = file_write_and_wait_range(file, start, end);
	if (ret)
		goto out;
	ret = sync_mapping_buffers(inode->i_mapping);
	if ((inode->i_state & I_DIRTY_ALL) &&
	    (!datasync || (inode->i_state & I_DIRTY_DATASYNC))) {
		err = sync_inode_metadata(inode, 1);
		if (!ret)
			ret = err;
	}
	err = file_check_and_advance_wb_err(file);
	if (!ret)
		ret = err;
	if (!ret)
		ret = blkdev_issue_flush(inode->i_sb->s_bdev);
out:
	if (ret == -EIO)
		ext2hole_msg(inode->i_sb, KERN_ERR,
			     "inode %lu: I/O error on fsync", inode->i_ino);
	return ret;
}

/*
 * Writes need nothing of their own: generic_file_write_iter() takes
 * i_rwsem, and growth beyond EOF goes through the hole API in write_begin
 * (buffered) or falls back to it (direct_IO), see aops.c.
 */
const struct file_operations ext2hole_file_operations = {
	.llseek		= ext2hole_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= generic_file_write_iter,
	.mmap		= ext2hole_file_mmap,
	.open		= dquot_file_open,	/* generic_file_open + dquots */
	.fsync		= ext2hole_fsync,
	.splice_read	= ext2hole_splice_read,
	.splice_write	= iter_file_splice_write,
	.fallocate	= ext2hole_fallocate,
	.unlocked_ioctl	= ext2hole_ioctl,
	.compat_ioctl	= ext2hole_compat_ioctl,
};

const struct inode_operations ext2hole_file_inode_operations = {
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
	.fiemap		= ext2hole_fiemap,
	.fileattr_get	= ext2hole_fileattr_get,
	.fileattr_set	= ext2hole_fileattr_set,
	.listxattr	= ext2hole_listxattr,
	EXT2HOLE_IOPS_ACL(ext2hole_get_acl, ext2hole_set_acl),
};
