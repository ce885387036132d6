// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: file operations and the vm operations of shared mappings of
 * regular files (page_mkwrite chosen by the mkwrite= mount option).
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include "ext2hole.h"

static vm_fault_t ext2hole_page_mkwrite(struct vm_fault *vmf)
{
	struct super_block *sb = file_inode(vmf->vma->vm_file)->i_sb;

	if (READ_ONCE(EXT2HOLE_SB(sb)->s_mkwrite) == EXT2HOLE_MKWRITE_NOALLOC)
		return ext2hole_noalloc_page_mkwrite(vmf);
	return ext2hole_alloc_page_mkwrite(vmf, ext2hole_get_block);
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
 * ext2hole_file_write_iter - buffered and direct writes
 * @iocb: the I/O control block
 * @from: the data
 *
 * A write starting beyond EOF first grows i_size to its start through
 * ext2hole_setsize(), like an extending truncate, and only then writes.
 * This deviates from DESIGN.md's call sites (prepare_hole in write_begin,
 * finish_hole in write_end) on purpose: when the write starts in a later
 * page than the old EOF page, write_begin's prepare_hole zeroes and unlocks
 * the old EOF page long before write_end raises i_size, and nothing stops
 * a store through a mapping of that page in between: page_mkwrite (still
 * seeing the old i_size) makes it writable, the store lands beyond the old
 * EOF, and write_end then makes it file data inside the hole (G2 broken).
 * ext2hole_setsize() holds the invalidate lock exclusive around
 * prepare_hole, i_size_write and finish_hole, and page_mkwrite takes it
 * shared, so the race is closed.  If the write then writes nothing, the
 * file is shrunk back to its old size.  Direct writes take the same path.
 *
 * Return: bytes written or a negative errno.
 */
static ssize_t ext2hole_file_write_iter(struct kiocb *iocb,
					struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	loff_t old_size = 0;
	bool extended = false;
	ssize_t ret;
	int err;

	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock(inode))
			return -EAGAIN;
	} else {
		inode_lock(inode);
	}
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out_unlock;

	old_size = i_size_read(inode);
	if (iocb->ki_pos > old_size) {
		if (iocb->ki_flags & IOCB_NOWAIT) {
			ret = -EAGAIN;
			goto out_unlock;
		}
		err = ext2hole_setsize(inode, iocb->ki_pos);
		if (err) {
			ret = err;
			goto out_unlock;
		}
		extended = true;
	}

	ret = __generic_file_write_iter(iocb, from);

	if (extended && ret <= 0 && i_size_read(inode) == iocb->ki_pos) {
		err = ext2hole_setsize(inode, old_size);
		if (err)
			ext2hole_msg(inode->i_sb, KERN_ERR,
				     "inode %lu: cannot undo extension to %lld after a failed write: %d",
				     inode->i_ino, iocb->ki_pos, err);
	}
out_unlock:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/*
 * fsync/msync: writeback errors recorded by write_full_page (set through
 * mapping_set_error) come back here through the file's errseq cursor.
 */
static int ext2hole_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	int ret;

	ret = generic_file_fsync(file, start, end, datasync);
	if (ret == -EIO)
		ext2hole_msg(file_inode(file)->i_sb, KERN_ERR,
			     "inode %lu: I/O error on fsync",
			     file_inode(file)->i_ino);
	return ret;
}

const struct file_operations ext2hole_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= ext2hole_file_write_iter,
	.mmap		= ext2hole_file_mmap,
	.open		= generic_file_open,
	.fsync		= ext2hole_fsync,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
};

const struct inode_operations ext2hole_file_inode_operations = {
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
};
