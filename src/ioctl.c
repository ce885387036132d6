// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: inode flags for chattr(1) and lsattr(1) - FS_IOC_GETFLAGS /
 * FS_IOC_SETFLAGS and FS_IOC_FSGETXATTR / FS_IOC_FSSETXATTR through the
 * VFS's fileattr calls, the generation number (FS_IOC_GETVERSION /
 * FS_IOC_SETVERSION, lsattr -v and chattr -v), and FITRIM (fstrim(8):
 * discard the free blocks, as the ext4 driver does).
 *
 * The flags users see and change are ext2's: the VFS's user-visible and
 * user-modifiable sets.  The VFS checks the rules (CAP_LINUX_IMMUTABLE for
 * the immutable and append-only flags, ownership for the rest); the inode's
 * S_* bits follow at once (ext2hole_set_inode_flags).
 */
#include <linux/fs.h>
#include <linux/fileattr.h>
#include <linux/mount.h>
#include <linux/uaccess.h>
#include <linux/compat.h>
#include <linux/blkdev.h>
#include "ext2hole.h"

static int ext2hole_fitrim(struct file *file, void __user *arg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	struct fstrim_range range;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!bdev_max_discard_sectors(sb->s_bdev))
		return -EOPNOTSUPP;
	if (copy_from_user(&range, arg, sizeof(range)))
		return -EFAULT;
	range.minlen = max_t(u64, range.minlen,
			     bdev_discard_granularity(sb->s_bdev));
	/* not on a read-only or frozen filesystem */
	err = mnt_want_write_file(file);
	if (err)
		return err;
	err = ext2hole_trim_fs(sb, &range);
	mnt_drop_write_file(file);
	if (err)
		return err;
	if (copy_to_user(arg, &range, sizeof(range)))
		return -EFAULT;
	return 0;
}

int ext2hole_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	struct ext2hole_inode_info *ei = EXT2HOLE_I(d_inode(dentry));

	fileattr_fill_flags(fa, ei->i_flags & FS_FL_USER_VISIBLE);
	return 0;
}

int ext2hole_fileattr_set(struct ext2hole_idmap *idmap,
			  struct dentry *dentry, struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct ext2hole_inode_info *ei = EXT2HOLE_I(inode);

	/* no project ids, extent size hints or xflags beyond the flags */
	if (fileattr_has_fsx(fa))
		return -EOPNOTSUPP;
	ei->i_flags = (ei->i_flags & ~FS_FL_USER_MODIFIABLE) |
		      (fa->flags & FS_FL_USER_MODIFIABLE);
	ext2hole_set_inode_flags(inode);
	inode_set_ctime_current(inode);
	mark_inode_dirty(inode);
	return 0;
}

long ext2hole_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(file);
	__u32 generation;
	int err;

	switch (cmd) {
	case FS_IOC_GETVERSION:
		return put_user(inode->i_generation, (int __user *)arg);
	case FS_IOC_SETVERSION:
		if (!inode_owner_or_capable(ext2hole_file_idmap(file), inode))
			return -EPERM;
		if (get_user(generation, (int __user *)arg))
			return -EFAULT;
		err = mnt_want_write_file(file);
		if (err)
			return err;
		inode_lock(inode);
		inode->i_generation = generation;
		inode_set_ctime_current(inode);
		inode_unlock(inode);
		mark_inode_dirty(inode);
		mnt_drop_write_file(file);
		return 0;
	case FITRIM:
		return ext2hole_fitrim(file, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

#ifdef CONFIG_COMPAT
long ext2hole_compat_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	switch (cmd) {
	case FS_IOC32_GETVERSION:
		cmd = FS_IOC_GETVERSION;
		break;
	case FS_IOC32_SETVERSION:
		cmd = FS_IOC_SETVERSION;
		break;
	case FITRIM:
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return ext2hole_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif
