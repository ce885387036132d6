// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole directory inode operations: the namespace on top of dir.c.
 *
 * The VFS holds the parent's i_rwsem (both parents' for a rename), so the
 * directory changes below never race with each other or with a lookup.
 * Link counts are the only state shared with other directories; a count
 * that on-disk corruption has already brought to zero is reported and
 * left alone instead of wrapping.
 */
#include <linux/quotaops.h>
#include "ext2hole.h"

static void ext2hole_inc_count(struct inode *inode)
{
	inc_nlink(inode);
	mark_inode_dirty(inode);
}

static void ext2hole_drop_nlink(struct inode *inode)
{
	if (unlikely(!inode->i_nlink)) {
		ext2hole_error(inode->i_sb,
			       "inode #%lu: link count already zero",
			       inode->i_ino);
		return;
	}
	drop_nlink(inode);
}

static void ext2hole_dec_count(struct inode *inode)
{
	ext2hole_drop_nlink(inode);
	mark_inode_dirty(inode);
}

/* May an entry on disk name inode @ino? */
static bool ext2hole_valid_entry_ino(struct super_block *sb, ino_t ino)
{
	struct ext2hole_sb_info *sbi = EXT2HOLE_SB(sb);

	if (ino == EXT2HOLE_ROOT_INO)
		return true;
	return ino >= sbi->s_first_ino && ino <= sbi->s_inodes_count;
}

static struct dentry *ext2hole_lookup(struct inode *dir, struct dentry *dentry,
				      unsigned int flags)
{
	struct super_block *sb = dir->i_sb;
	struct inode *inode = NULL;
	ino_t ino;
	int err;

	if (dentry->d_name.len > EXT2HOLE_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);

	err = ext2hole_inode_by_name(dir, &dentry->d_name, &ino);
	if (err && err != -ENOENT)
		return ERR_PTR(err);
	if (!err) {
		if (!ext2hole_valid_entry_ino(sb, ino)) {
			ext2hole_error(sb,
				       "directory #%lu: entry '%pd' names reserved inode %lu",
				       dir->i_ino, dentry, ino);
			return ERR_PTR(-EFSCORRUPTED);
		}
		inode = ext2hole_iget(sb, ino);
		if (inode == ERR_PTR(-ESTALE)) {
			ext2hole_error(sb,
				       "directory #%lu: entry '%pd' names deleted inode %lu",
				       dir->i_ino, dentry, ino);
			return ERR_PTR(-EFSCORRUPTED);
		}
		/*
		 * A name for an inode with no links (mode set, no dtime: iget
		 * takes it) would let mkdir/link raise a zero count.  Unless
		 * someone else uses it (an O_TMPFILE file), mark it bad so that
		 * the iput below does not free what the image says is in use.
		 */
		if (!IS_ERR(inode) && !inode->i_nlink) {
			ext2hole_error(sb,
				       "directory #%lu: entry '%pd' names inode %lu with no links",
				       dir->i_ino, dentry, ino);
			if (atomic_read(&inode->i_count) == 1)
				make_bad_inode(inode);
			iput(inode);
			return ERR_PTR(-EFSCORRUPTED);
		}
	}
	return d_splice_alias(inode, dentry);
}

/*
 * ext2hole_add_nondir - link a new non-directory inode into its parent
 *
 * On failure the inode, still I_NEW, loses its only link and is discarded,
 * which frees it.
 */
static int ext2hole_add_nondir(struct dentry *dentry, struct inode *inode)
{
	struct inode *dir = d_inode(dentry->d_parent);
	int err = ext2hole_add_link(dentry, inode);

	if (!err) {
		d_instantiate_new(dentry, inode);
		ext2hole_dir_sync(dir);
		return 0;
	}
	ext2hole_dec_count(inode);
	discard_new_inode(inode);
	return err;
}

static int ext2hole_create(struct ext2hole_idmap *idmap, struct inode *dir,
			   struct dentry *dentry, umode_t mode, bool excl)
{
	struct inode *inode;

	inode = ext2hole_new_inode(idmap, dir, mode, &dentry->d_name);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	ext2hole_set_ops(inode, 0);
	mark_inode_dirty(inode);
	return ext2hole_add_nondir(dentry, inode);
}

static int ext2hole_tmpfile(struct ext2hole_idmap *idmap,
			    struct inode *dir, struct file *file, umode_t mode)
{
	struct inode *inode;

	inode = ext2hole_new_inode(idmap, dir, mode, NULL);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	ext2hole_set_ops(inode, 0);
	mark_inode_dirty(inode);
	d_tmpfile(file, inode);		/* drops the link: nlink 0 until linkat */
	unlock_new_inode(inode);
	return finish_open_simple(file, 0);
}

static int ext2hole_mknod(struct ext2hole_idmap *idmap, struct inode *dir,
			  struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct inode *inode;

	if (!S_ISCHR(mode) && !S_ISBLK(mode) && !S_ISFIFO(mode) &&
	    !S_ISSOCK(mode))
		return -EINVAL;
	inode = ext2hole_new_inode(idmap, dir, mode, &dentry->d_name);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	ext2hole_set_ops(inode, rdev);
	mark_inode_dirty(inode);
	return ext2hole_add_nondir(dentry, inode);
}

static int ext2hole_symlink(struct ext2hole_idmap *idmap,
			    struct inode *dir, struct dentry *dentry,
			    const char *symname)
{
	struct super_block *sb = dir->i_sb;
	unsigned int l = strlen(symname) + 1;	/* with the NUL */
	struct inode *inode;
	int err;

	if (l > sb->s_blocksize)
		return -ENAMETOOLONG;

	inode = ext2hole_new_inode(idmap, dir, S_IFLNK | 0777,
				   &dentry->d_name);
	if (IS_ERR(inode))
		return PTR_ERR(inode);

	if (l > EXT2HOLE_FAST_SYMLINK_MAX) {
		/* slow symlink: the target lives in a data block */
		ext2hole_set_ops(inode, 0);
		err = page_symlink(inode, symname, l);
		if (err)
			goto out_fail;
	} else {
		/* fast symlink: the target lives in i_data */
		inode->i_link = (char *)EXT2HOLE_I(inode)->i_data;
		memcpy(inode->i_link, symname, l);
		inode->i_size = l - 1;
		ext2hole_set_ops(inode, 0);
	}
	mark_inode_dirty(inode);
	return ext2hole_add_nondir(dentry, inode);

out_fail:
	ext2hole_dec_count(inode);
	discard_new_inode(inode);
	return err;
}

static int ext2hole_link(struct dentry *old_dentry, struct inode *dir,
			 struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	int err;

	if (inode->i_nlink >= EXT2HOLE_LINK_MAX)
		return -EMLINK;
	/* A new entry may grow the directory: charge its owner's quota. */
	err = dquot_initialize(dir);
	if (err)
		return err;

	inode_set_ctime_current(inode);
	ext2hole_inc_count(inode);	/* from 0 for an O_TMPFILE file */
	ihold(inode);

	err = ext2hole_add_link(dentry, inode);
	if (!err) {
		d_instantiate(dentry, inode);
		ext2hole_dir_sync(dir);
		return 0;
	}
	ext2hole_dec_count(inode);
	iput(inode);
	return err;
}

/* unlink and rmdir: remove the name; the caller syncs a DIRSYNC dir */
static int ext2hole_remove_name(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct ext2hole_dir_entry *de;
	struct page *page;
	int err;

	de = ext2hole_find_entry(dir, &dentry->d_name, &page);
	if (IS_ERR(de))
		return PTR_ERR(de);
	if (unlikely(le32_to_cpu(de->inode) != inode->i_ino)) {
		ext2hole_error(dir->i_sb,
			       "directory #%lu: entry '%pd' changed under us (%u, not %lu)",
			       dir->i_ino, dentry, le32_to_cpu(de->inode),
			       inode->i_ino);
		ext2hole_put_dir_page(page);
		return -EFSCORRUPTED;
	}
	err = ext2hole_delete_entry(de, page);
	ext2hole_put_dir_page(page);
	if (err)
		return err;

	inode_set_ctime_to_ts(inode, inode_get_ctime(dir));
	ext2hole_dec_count(inode);
	return 0;
}

static int ext2hole_unlink(struct inode *dir, struct dentry *dentry)
{
	int err = ext2hole_remove_name(dir, dentry);

	if (!err)
		ext2hole_dir_sync(dir);
	return err;
}

static int ext2hole_mkdir(struct ext2hole_idmap *idmap, struct inode *dir,
			  struct dentry *dentry, umode_t mode)
{
	struct inode *inode;
	int err;

	if (dir->i_nlink >= EXT2HOLE_LINK_MAX)
		return -EMLINK;

	ext2hole_inc_count(dir);		/* the child's '..' */

	inode = ext2hole_new_inode(idmap, dir, S_IFDIR | mode, &dentry->d_name);
	err = PTR_ERR(inode);
	if (IS_ERR(inode))
		goto out_dir;

	ext2hole_set_ops(inode, 0);
	ext2hole_inc_count(inode);		/* its own '.' */

	err = ext2hole_make_empty(inode, dir);
	if (err)
		goto out_fail;
	/* the new directory's block first, then the name that leads to it */
	ext2hole_dir_sync(inode);
	err = ext2hole_add_link(dentry, inode);
	if (err)
		goto out_fail;

	d_instantiate_new(dentry, inode);
	ext2hole_dir_sync(dir);
	return 0;

out_fail:
	ext2hole_drop_nlink(inode);
	ext2hole_dec_count(inode);
	discard_new_inode(inode);
out_dir:
	ext2hole_dec_count(dir);
	return err;
}

static int ext2hole_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	int err;

	err = ext2hole_empty_dir(inode);
	if (err <= 0)
		return err ? err : -ENOTEMPTY;

	err = ext2hole_remove_name(dir, dentry);
	if (err)
		return err;
	inode->i_size = 0;
	ext2hole_dec_count(inode);		/* its '.' */
	ext2hole_dec_count(dir);		/* its '..' */
	ext2hole_dir_sync(dir);
	return 0;
}

/*
 * ext2hole_rename_kept_both - a rename failed half-way and could not be
 * taken back: both @old and @new name @inode.  A non-directory then counts
 * both names, so that removing one of them later cannot free an inode the
 * other still names; the filesystem error (errors=) sends e2fsck to the
 * directory that a second name would damage.
 */
static void ext2hole_rename_kept_both(struct inode *inode, struct dentry *old,
				      struct dentry *new)
{
	ext2hole_error(inode->i_sb,
		       "rename of inode %lu failed half-way and could not be undone: '%pd' and '%pd' both name it",
		       inode->i_ino, old, new);
	if (!S_ISDIR(inode->i_mode) && inode->i_nlink < EXT2HOLE_LINK_MAX)
		ext2hole_inc_count(inode);
}

/*
 * ext2hole_take_back_name - remove the name @new, added for @inode by a
 * rename that then failed
 *
 * Return: 0 or an error.
 */
static int ext2hole_take_back_name(struct dentry *new, struct inode *inode)
{
	struct inode *dir = d_inode(new->d_parent);
	struct ext2hole_dir_entry *de;
	struct page *page;
	int err = -EFSCORRUPTED;

	de = ext2hole_find_entry(dir, &new->d_name, &page);
	if (IS_ERR(de))
		return PTR_ERR(de);
	if (le32_to_cpu(de->inode) == inode->i_ino)
		err = ext2hole_delete_entry(de, page);
	ext2hole_put_dir_page(page);
	return err;
}

/*
 * ext2hole_refind_entry - find a renamed inode's old entry after the add
 * @dir: the directory that holds both names
 * @old: the old name; it still refers to the inode being renamed
 * @new: the new name, added to @dir just now
 * @page: where the old entry's page is returned
 *
 * The name was found before the add under the same i_rwsem, so failing
 * to find it now means an I/O error or damage found on the way.  The new
 * entry is then removed again, so that the inode keeps exactly one name
 * and its link count stays right.
 *
 * Return: the old entry (release *@page), or an ERR_PTR.
 */
static struct ext2hole_dir_entry *
ext2hole_refind_entry(struct inode *dir, struct dentry *old,
		      struct dentry *new, struct page **page)
{
	struct inode *inode = d_inode(old);
	struct ext2hole_dir_entry *de;

	de = ext2hole_find_entry(dir, &old->d_name, page);
	if (!IS_ERR(de)) {
		if (likely(le32_to_cpu(de->inode) == inode->i_ino))
			return de;
		ext2hole_error(dir->i_sb,
			       "directory #%lu: entry '%pd' changed under us (%u, not %lu)",
			       dir->i_ino, old, le32_to_cpu(de->inode),
			       inode->i_ino);
		ext2hole_put_dir_page(*page);
		de = ERR_PTR(-EFSCORRUPTED);
	}
	*page = NULL;
	/* undo the add: the rename fails as a whole */
	if (ext2hole_take_back_name(new, inode))
		ext2hole_rename_kept_both(inode, old, new);
	return de;
}

/*
 * The DIRSYNC writes at the end of a rename or an exchange: the directory
 * that gained a name first, then the one that lost it, then the moved
 * directories whose '..' changed (@moved1, @moved2, or NULL).
 */
static void ext2hole_rename_sync(struct inode *old_dir, struct inode *new_dir,
				 struct inode *moved1, struct inode *moved2)
{
	ext2hole_dir_sync(new_dir);
	if (old_dir != new_dir)
		ext2hole_dir_sync(old_dir);
	if (moved1)
		ext2hole_dir_sync(moved1);
	if (moved2)
		ext2hole_dir_sync(moved2);
}

/*
 * One entry of a directory to point at another inode, and back.
 */
struct ext2hole_relink {
	struct inode *dir;
	struct ext2hole_dir_entry *de;	/* NULL: nothing to do */
	struct page *page;
	struct inode *from, *to;
	bool update_times;
};

/*
 * ext2hole_relink_all - retarget @n entries in order, all or none
 *
 * When one fails (its block could not be prepared: nothing of it was
 * changed), those already retargeted are pointed back, in reverse order.
 *
 * Return: 0 or the first error.
 */
static int ext2hole_relink_all(struct ext2hole_relink *r, int n)
{
	int i, err = 0;

	for (i = 0; i < n; i++) {
		if (!r[i].de)
			continue;
		err = ext2hole_set_link(r[i].dir, r[i].de, r[i].page, r[i].to,
					r[i].update_times);
		if (err)
			break;
	}
	if (!err)
		return 0;
	while (--i >= 0) {
		if (r[i].de &&
		    ext2hole_set_link(r[i].dir, r[i].de, r[i].page, r[i].from,
				      r[i].update_times))
			ext2hole_error(r[i].dir->i_sb,
				       "directory #%lu: an exchange failed half-way: an entry still names inode %lu, not %lu",
				       r[i].dir->i_ino, r[i].to->i_ino,
				       r[i].from->i_ino);
	}
	return err;
}

/*
 * ext2hole_exchange - RENAME_EXCHANGE: swap what two existing names point to
 *
 * Everything that can fail on a corrupt directory (finding both entries,
 * the '..' of directories that change parent) is looked up before the
 * first change.
 */
static int ext2hole_exchange(struct inode *old_dir, struct dentry *old_dentry,
			     struct inode *new_dir, struct dentry *new_dentry)
{
	struct inode *old_inode = d_inode(old_dentry);
	struct inode *new_inode = d_inode(new_dentry);
	bool old_is_dir = S_ISDIR(old_inode->i_mode);
	bool new_is_dir = S_ISDIR(new_inode->i_mode);
	struct ext2hole_dir_entry *old_de, *new_de;
	struct ext2hole_dir_entry *old_dotdot = NULL, *new_dotdot = NULL;
	struct page *old_page, *new_page;
	struct page *old_dpage = NULL, *new_dpage = NULL;
	int err;

	if (old_dir != new_dir && old_is_dir != new_is_dir) {
		struct inode *gains = old_is_dir ? new_dir : old_dir;

		if (gains->i_nlink >= EXT2HOLE_LINK_MAX)
			return -EMLINK;
	}

	old_de = ext2hole_find_entry(old_dir, &old_dentry->d_name, &old_page);
	if (IS_ERR(old_de))
		return PTR_ERR(old_de);
	new_de = ext2hole_find_entry(new_dir, &new_dentry->d_name, &new_page);
	if (IS_ERR(new_de)) {
		err = PTR_ERR(new_de);
		goto out_old;
	}
	if (old_dir != new_dir && old_is_dir) {
		old_dotdot = ext2hole_dotdot(old_inode, &old_dpage);
		if (IS_ERR(old_dotdot)) {
			err = PTR_ERR(old_dotdot);
			old_dotdot = NULL;
			goto out_new;
		}
	}
	if (old_dir != new_dir && new_is_dir) {
		new_dotdot = ext2hole_dotdot(new_inode, &new_dpage);
		if (IS_ERR(new_dotdot)) {
			err = PTR_ERR(new_dotdot);
			new_dotdot = NULL;
			goto out_new;
		}
	}

	{
		struct ext2hole_relink r[] = {
			{ old_dir, old_de, old_page, old_inode, new_inode, true },
			{ new_dir, new_de, new_page, new_inode, old_inode, true },
			{ old_inode, old_dotdot, old_dpage, old_dir, new_dir },
			{ new_inode, new_dotdot, new_dpage, new_dir, old_dir },
		};

		err = ext2hole_relink_all(r, ARRAY_SIZE(r));
		if (err)
			goto out_new;
	}
	if (old_dir != new_dir && old_is_dir != new_is_dir) {
		if (old_is_dir) {
			ext2hole_inc_count(new_dir);
			ext2hole_dec_count(old_dir);
		} else {
			ext2hole_inc_count(old_dir);
			ext2hole_dec_count(new_dir);
		}
	}
	inode_set_ctime_to_ts(new_inode, inode_set_ctime_current(old_inode));
	mark_inode_dirty(old_inode);
	mark_inode_dirty(new_inode);
	ext2hole_rename_sync(old_dir, new_dir, old_dotdot ? old_inode : NULL,
			     new_dotdot ? new_inode : NULL);

out_new:
	if (new_dpage)
		ext2hole_put_dir_page(new_dpage);
	if (old_dpage)
		ext2hole_put_dir_page(old_dpage);
	ext2hole_put_dir_page(new_page);
out_old:
	ext2hole_put_dir_page(old_page);
	return err;
}

/*
 * RENAME_WHITEOUT: the inode that takes the old name, a character device
 * 0:0 (what overlayfs reads as "deleted here"), made in the old directory
 * before anything changes.  ext2hole_end_whiteout() gives it up, or, when
 * the rename failed, drops its only link, which frees it.
 */
static struct inode *ext2hole_new_whiteout(struct ext2hole_idmap *idmap,
					   struct inode *dir,
					   struct dentry *dentry)
{
	struct inode *inode;

	inode = ext2hole_new_inode(idmap, dir, S_IFCHR | WHITEOUT_MODE,
				   &dentry->d_name);
	if (IS_ERR(inode))
		return inode;
	ext2hole_set_ops(inode, WHITEOUT_DEV);
	mark_inode_dirty(inode);
	return inode;
}

static void ext2hole_end_whiteout(struct inode *inode, int err)
{
	if (!inode)
		return;
	if (err) {
		ext2hole_dec_count(inode);
		discard_new_inode(inode);
		return;
	}
	unlock_new_inode(inode);
	iput(inode);
}

static int ext2hole_rename(struct ext2hole_idmap *idmap,
			   struct inode *old_dir, struct dentry *old_dentry,
			   struct inode *new_dir, struct dentry *new_dentry,
			   unsigned int flags)
{
	struct inode *old_inode = d_inode(old_dentry);
	struct inode *new_inode = d_inode(new_dentry);
	bool is_dir = S_ISDIR(old_inode->i_mode);
	struct ext2hole_dir_entry *old_de, *new_de = NULL, *dir_de = NULL;
	struct page *old_page = NULL, *new_page = NULL, *dir_page = NULL;
	struct inode *whiteout = NULL;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	/* Either directory may grow: charge its owner's quota. */
	err = dquot_initialize(old_dir);
	if (!err)
		err = dquot_initialize(new_dir);
	if (err)
		return err;
	if (flags & RENAME_EXCHANGE)
		return ext2hole_exchange(old_dir, old_dentry, new_dir,
					 new_dentry);
	/*
	 * RENAME_NOREPLACE: the VFS already refused an existing target; it
	 * also refuses RENAME_WHITEOUT with RENAME_EXCHANGE.
	 */

	if (is_dir && !new_inode && new_dir != old_dir &&
	    new_dir->i_nlink >= EXT2HOLE_LINK_MAX)
		return -EMLINK;
	if (is_dir && new_inode) {
		err = ext2hole_empty_dir(new_inode);
		if (err <= 0)
			return err ? err : -ENOTEMPTY;
	}
	if (flags & RENAME_WHITEOUT) {
		whiteout = ext2hole_new_whiteout(idmap, old_dir, old_dentry);
		if (IS_ERR(whiteout))
			return PTR_ERR(whiteout);
	}

	old_de = ext2hole_find_entry(old_dir, &old_dentry->d_name, &old_page);
	if (IS_ERR(old_de)) {
		err = PTR_ERR(old_de);
		old_page = NULL;
		goto out_old;
	}
	if (is_dir && old_dir != new_dir) {
		dir_de = ext2hole_dotdot(old_inode, &dir_page);
		if (IS_ERR(dir_de)) {
			err = PTR_ERR(dir_de);
			dir_de = NULL;
			goto out_old;
		}
	}

	/* 1. the new name names the inode */
	if (new_inode) {
		new_de = ext2hole_find_entry(new_dir, &new_dentry->d_name,
					     &new_page);
		if (IS_ERR(new_de)) {
			err = PTR_ERR(new_de);
			new_page = NULL;
			goto out_dir;
		}
		err = ext2hole_set_link(new_dir, new_de, new_page, old_inode,
					true);
		if (err)
			goto out_dir;
	} else {
		/*
		 * Adding a name to an indexed directory can move the entries
		 * already there: a full leaf is split and repacked, a block 0
		 * that becomes a dx_root hands its entries to new leaves.  So
		 * no position in the directory that gains the name is held
		 * across the add; the old name is looked up again after it.
		 */
		if (old_dir == new_dir) {
			ext2hole_put_dir_page(old_page);
			old_page = NULL;
		}
		err = ext2hole_add_link(new_dentry, old_inode);
		if (err)
			goto out_dir;
		if (is_dir)
			ext2hole_inc_count(new_dir);
		if (!old_page) {
			old_de = ext2hole_refind_entry(old_dir, old_dentry,
						       new_dentry, &old_page);
			if (IS_ERR(old_de)) {
				err = PTR_ERR(old_de);
				old_page = NULL;
				if (is_dir)
					ext2hole_dec_count(new_dir);
				goto out_dir;
			}
		}
	}

	/*
	 * 2. a moved directory's '..', then 3. the old name goes, or names
	 * the whiteout.  A step fails only before changing anything (its
	 * block could not be prepared, or is damaged), and then the steps
	 * before it are taken back: the rename fails as a whole.
	 */
	if (dir_de) {
		err = ext2hole_set_link(old_inode, dir_de, dir_page, new_dir,
					false);
		if (err)
			goto undo_new;
	}
	if (whiteout)
		err = ext2hole_set_link(old_dir, old_de, old_page, whiteout,
					true);
	else
		err = ext2hole_delete_entry(old_de, old_page);
	if (err) {
		if (dir_de && ext2hole_set_link(old_inode, dir_de, dir_page,
						old_dir, false))
			ext2hole_error(old_dir->i_sb,
				       "directory #%lu: a failed rename left its '..' naming #%lu",
				       old_inode->i_ino, new_dir->i_ino);
		goto undo_new;
	}

	/* done: the link counts and times follow */
	if (new_inode) {
		inode_set_ctime_current(new_inode);
		if (is_dir)
			ext2hole_drop_nlink(new_inode);	/* its '.' */
		ext2hole_dec_count(new_inode);
	}
	if (is_dir)
		ext2hole_dec_count(old_dir);
	/* Like stock ext2: a rename changes the moved inode's ctime. */
	inode_set_ctime_current(old_inode);
	mark_inode_dirty(old_inode);
	ext2hole_rename_sync(old_dir, new_dir, dir_de ? old_inode : NULL, NULL);
	goto out_dir;

undo_new:
	if (new_inode) {
		if (ext2hole_set_link(new_dir, new_de, new_page, new_inode,
				      true))
			ext2hole_rename_kept_both(old_inode, old_dentry,
						  new_dentry);
	} else {
		if (ext2hole_take_back_name(new_dentry, old_inode))
			ext2hole_rename_kept_both(old_inode, old_dentry,
						  new_dentry);
		if (is_dir)
			ext2hole_dec_count(new_dir);
	}

out_dir:
	if (new_page)
		ext2hole_put_dir_page(new_page);
	if (dir_page)
		ext2hole_put_dir_page(dir_page);
out_old:
	if (old_page)
		ext2hole_put_dir_page(old_page);
	ext2hole_end_whiteout(whiteout, err);
	return err;
}

const struct inode_operations ext2hole_dir_inode_operations = {
	.create		= ext2hole_create,
	.lookup		= ext2hole_lookup,
	.link		= ext2hole_link,
	.unlink		= ext2hole_unlink,
	.symlink	= ext2hole_symlink,
	.mkdir		= ext2hole_mkdir,
	.rmdir		= ext2hole_rmdir,
	.mknod		= ext2hole_mknod,
	.rename		= ext2hole_rename,
	.tmpfile	= ext2hole_tmpfile,
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
	.fileattr_get	= ext2hole_fileattr_get,
	.fileattr_set	= ext2hole_fileattr_set,
	.listxattr	= ext2hole_listxattr,
	EXT2HOLE_IOPS_ACL(ext2hole_get_acl, ext2hole_set_acl),
};

const struct inode_operations ext2hole_special_inode_operations = {
	.setattr	= ext2hole_setattr,
	.getattr	= ext2hole_getattr,
	.listxattr	= ext2hole_listxattr,
	EXT2HOLE_IOPS_ACL(ext2hole_get_acl, ext2hole_set_acl),
};
