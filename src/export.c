// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: NFS export (file handles).
 *
 * A handle is the VFS's generic 32-bit one: inode number and generation
 * (FILEID_INO32_GEN), with the parent's for a connectable handle.  The
 * generation changes each time an inode number is given out again
 * (ext2hole_new_inode), so a handle to a deleted file is refused with
 * ESTALE even when its number belongs to a new file by now.
 */
#include <linux/exportfs.h>
#include "ext2hole.h"

/*
 * The inode a handle names, or ERR_PTR(-ESTALE): a number outside the
 * filesystem's (never looked up, so a forged handle logs nothing), a
 * deleted inode (ext2hole_iget refuses it), or another generation.  An
 * unlinked inode still open is found, as with the ext2 and ext4 drivers.
 */
static struct inode *ext2hole_nfs_get_inode(struct super_block *sb, u64 ino,
					    u32 generation)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);
	struct inode *inode;

	if ((ino != EXT2HOLE_ROOT_INO && ino < sbi->s_first_ino) ||
	    ino > sbi->s_inodes_count)
		return ERR_PTR(-ESTALE);
	inode = ext2hole_iget(sb, ino);
	if (IS_ERR(inode))
		return ERR_CAST(inode);
	if (generation && inode->i_generation != generation) {
		iput(inode);
		return ERR_PTR(-ESTALE);
	}
	return inode;
}

static struct dentry *ext2hole_fh_to_dentry(struct super_block *sb,
					    struct fid *fid, int fh_len,
					    int fh_type)
{
	return generic_fh_to_dentry(sb, fid, fh_len, fh_type,
				    ext2hole_nfs_get_inode);
}

static struct dentry *ext2hole_fh_to_parent(struct super_block *sb,
					    struct fid *fid, int fh_len,
					    int fh_type)
{
	return generic_fh_to_parent(sb, fid, fh_len, fh_type,
				    ext2hole_nfs_get_inode);
}

/* A directory's parent, through its ".." entry. */
static struct dentry *ext2hole_get_parent(struct dentry *child)
{
	static const struct qstr dotdot = QSTR_INIT("..", 2);
	ino_t ino;
	int err;

	err = ext2hole_inode_by_name(d_inode(child), &dotdot, &ino);
	if (err)
		return ERR_PTR(err);
	return d_obtain_alias(ext2hole_iget(child->d_sb, ino));
}

const struct export_operations ext2hole_export_ops = {
	EXT2HOLE_EXPORT_ENCODE_FH
	.fh_to_dentry	= ext2hole_fh_to_dentry,
	.fh_to_parent	= ext2hole_fh_to_parent,
	.get_parent	= ext2hole_get_parent,
};
