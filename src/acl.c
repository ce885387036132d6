// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole POSIX ACLs: system.posix_acl_access and system.posix_acl_default
 * in ext2's on-disk ACL format (include/ext2hole_fs.h), read for the VFS's
 * permission checks (generic_permission through ->get_acl).
 *
 * Written through ->set_acl (setfacl), on chmod (posix_acl_chmod in
 * ext2hole_setattr) and when a new inode inherits its parent's default
 * ACL.  Security labels of new inodes are stored here too.  Without the
 * acl mount option ACLs are neither enforced nor inherited, as with
 * ext2/ext4.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/posix_acl_xattr.h>
#include <linux/security.h>
#include "ext2hole.h"
#include "xattr.h"

/* Entries in an on-disk ACL of @size bytes, or -1 if no count fits. */
static int ext2hole_acl_count(size_t size)
{
	const size_t hdr = sizeof(struct ext2hole_acl_header);
	const size_t shrt = sizeof(struct ext2hole_acl_entry_short);
	const size_t lng = sizeof(struct ext2hole_acl_entry);

	if (size < hdr)
		return -1;
	size -= hdr;
	if (size <= 4 * shrt)
		return size % shrt ? -1 : size / shrt;
	size -= 4 * shrt;
	return size % lng ? -1 : size / lng + 4;
}

/* The attribute index that holds ACLs of @type, or -EINVAL. */
static int ext2hole_acl_index(int type)
{
	switch (type) {
	case ACL_TYPE_ACCESS:
		return EXT2HOLE_XATTR_INDEX_POSIX_ACL_ACCESS;
	case ACL_TYPE_DEFAULT:
		return EXT2HOLE_XATTR_INDEX_POSIX_ACL_DEFAULT;
	default:
		return -EINVAL;
	}
}

/* Bytes of an on-disk entry: ACL_USER and ACL_GROUP ones carry an id. */
static size_t ext2hole_acl_entry_size(short tag)
{
	return tag == ACL_USER || tag == ACL_GROUP ?
	       sizeof(struct ext2hole_acl_entry) :
	       sizeof(struct ext2hole_acl_entry_short);
}

/* Convert an on-disk ACL; ERR_PTR(-EINVAL) when it is malformed. */
static struct posix_acl *ext2hole_acl_from_disk(const void *value, size_t size)
{
	const char *p = value, *end = p + size;
	const struct ext2hole_acl_header *hdr = value;
	struct posix_acl *acl;
	int count, n;

	count = ext2hole_acl_count(size);
	if (count < 0 || hdr->a_version != cpu_to_le32(EXT2HOLE_ACL_VERSION))
		return ERR_PTR(-EINVAL);
	if (!count)
		return NULL;
	acl = posix_acl_alloc(count, GFP_KERNEL);
	if (!acl)
		return ERR_PTR(-ENOMEM);
	p += sizeof(*hdr);
	for (n = 0; n < count; n++) {
		const struct ext2hole_acl_entry *e = (const void *)p;
		struct posix_acl_entry *pa = &acl->a_entries[n];

		if (p + sizeof(struct ext2hole_acl_entry_short) > end)
			goto fail;
		pa->e_tag = le16_to_cpu(e->e_tag);
		pa->e_perm = le16_to_cpu(e->e_perm);
		if (p + ext2hole_acl_entry_size(pa->e_tag) > end)
			goto fail;
		switch (pa->e_tag) {
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			break;
		case ACL_USER:
			pa->e_uid = make_kuid(&init_user_ns, le32_to_cpu(e->e_id));
			break;
		case ACL_GROUP:
			pa->e_gid = make_kgid(&init_user_ns, le32_to_cpu(e->e_id));
			break;
		default:
			goto fail;
		}
		p += ext2hole_acl_entry_size(pa->e_tag);
	}
	if (p != end)
		goto fail;
	return acl;

fail:
	posix_acl_release(acl);
	return ERR_PTR(-EINVAL);
}

/**
 * ext2hole_get_acl - inode_operations.get_acl (6.1 API)
 * @inode: the inode
 * @type: ACL_TYPE_ACCESS or ACL_TYPE_DEFAULT
 * @rcu: called under RCU (path walk): may not sleep
 *
 * Reads the ACL from the inode's attributes; the VFS caches the result.
 * A malformed ACL is corruption: it is reported and the error returned,
 * so permission checks fail closed.
 *
 * Return: the ACL, NULL when there is none, or ERR_PTR (-ECHILD under
 * RCU, -EFSCORRUPTED, -EIO, -ENOMEM).
 */
struct posix_acl *ext2hole_get_acl(struct inode *inode, int type, bool rcu)
{
	struct posix_acl *acl;
	int index, size;
	void *value;

	if (rcu)
		return ERR_PTR(-ECHILD);
	index = ext2hole_acl_index(type);
	if (index < 0)
		return ERR_PTR(index);

	size = ext2hole_xattr_get(inode, index, "", NULL, 0);
	if (size == -ENODATA)
		return NULL;
	if (size < 0)
		return ERR_PTR(size);
	value = kmalloc(max(size, 1), GFP_KERNEL);
	if (!value)
		return ERR_PTR(-ENOMEM);
	size = ext2hole_xattr_get(inode, index, "", value, size);
	if (size < 0) {
		acl = ERR_PTR(size == -ENODATA ? -EAGAIN : size);
		goto out;
	}
	acl = ext2hole_acl_from_disk(value, size);
	if (!IS_ERR_OR_NULL(acl) && posix_acl_valid(&init_user_ns, acl)) {
		posix_acl_release(acl);
		acl = ERR_PTR(-EINVAL);
	}
	if (acl == ERR_PTR(-EINVAL)) {
		ext2hole_error(inode->i_sb, "inode %lu: corrupt %s ACL",
			       inode->i_ino,
			       type == ACL_TYPE_ACCESS ? "access" : "default");
		acl = ERR_PTR(-EFSCORRUPTED);
	}
out:
	kfree(value);
	return acl;
}

/* Convert an ACL to the on-disk format (kmalloc'ed; *@size its length). */
static void *ext2hole_acl_to_disk(const struct posix_acl *acl, size_t *size)
{
	struct ext2hole_acl_header *hdr;
	char *p, *value;
	size_t len = sizeof(*hdr);
	int n;

	for (n = 0; n < acl->a_count; n++)
		len += ext2hole_acl_entry_size(acl->a_entries[n].e_tag);
	value = kmalloc(len, GFP_NOFS);
	if (!value)
		return ERR_PTR(-ENOMEM);
	hdr = (struct ext2hole_acl_header *)value;
	hdr->a_version = cpu_to_le32(EXT2HOLE_ACL_VERSION);
	p = value + sizeof(*hdr);
	for (n = 0; n < acl->a_count; n++) {
		const struct posix_acl_entry *pa = &acl->a_entries[n];
		struct ext2hole_acl_entry *e = (struct ext2hole_acl_entry *)p;

		e->e_tag = cpu_to_le16(pa->e_tag);
		e->e_perm = cpu_to_le16(pa->e_perm);
		switch (pa->e_tag) {
		case ACL_USER:
			e->e_id = cpu_to_le32(from_kuid(&init_user_ns, pa->e_uid));
			break;
		case ACL_GROUP:
			e->e_id = cpu_to_le32(from_kgid(&init_user_ns, pa->e_gid));
			break;
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			break;
		default:
			kfree(value);
			return ERR_PTR(-EINVAL);
		}
		p += ext2hole_acl_entry_size(pa->e_tag);
	}
	*size = len;
	return value;
}

/* Store (or with a NULL @acl remove) an ACL; the mode is the caller's. */
static int __ext2hole_set_acl(struct inode *inode, struct posix_acl *acl,
			      int type)
{
	void *value = NULL;
	size_t size = 0;
	int index, err;

	index = ext2hole_acl_index(type);
	if (index < 0)
		return index;
	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode))
		return acl ? -EACCES : 0;
	if (acl) {
		value = ext2hole_acl_to_disk(acl, &size);
		if (IS_ERR(value))
			return PTR_ERR(value);
	}
	err = ext2hole_xattr_set(inode, index, "", value, size, 0);
	kfree(value);
	if (!err)
		set_cached_acl(inode, type, acl);
	return err;
}

/*
 * ext2hole_set_acl - inode_operations.set_acl: @acl (NULL to remove it) of
 * @type (ACL_TYPE_ACCESS or ACL_TYPE_DEFAULT) on an inode (from 6.2, a
 * dentry's), for a mount with idmapping @idmap.
 *
 * An access ACL that the mode bits can express is stored as the mode
 * alone (posix_acl_update_mode); the mode changes only once the ACL is
 * stored.
 *
 * Return: 0 or the error of storing it (-ENOSPC, -EIO, ...).
 */
#ifdef EXT2HOLE_HAVE_GET_INODE_ACL
int ext2hole_set_acl(struct ext2hole_idmap *idmap, struct dentry *dentry,
		     struct posix_acl *acl, int type)
{
	struct inode *inode = d_inode(dentry);
#else
int ext2hole_set_acl(struct ext2hole_idmap *idmap, struct inode *inode,
		     struct posix_acl *acl, int type)
{
#endif
	umode_t mode = inode->i_mode;
	bool update_mode = false;
	int err;

	if (type == ACL_TYPE_ACCESS && acl) {
		err = posix_acl_update_mode(idmap, inode, &mode, &acl);
		if (err)
			return err;
		update_mode = true;
	}
	err = __ext2hole_set_acl(inode, acl, type);
	if (!err && update_mode) {
		inode->i_mode = mode;
		inode_set_ctime_current(inode);
		mark_inode_dirty(inode);
	}
	return err;
}

/**
 * ext2hole_init_acl - a new inode's ACLs, from its parent's default ACL
 * @inode: the new inode (I_NEW), its mode as asked for
 * @dir: the parent directory
 *
 * With the acl mount option the VFS leaves the umask to the filesystem:
 * posix_acl_create() applies it, or the parent's default ACL, to the
 * mode; a directory inherits the default ACL itself too.
 *
 * Return: 0 or the error of storing an ACL.
 */
int ext2hole_init_acl(struct inode *inode, struct inode *dir)
{
	struct posix_acl *default_acl, *acl;
	int err;

	err = posix_acl_create(dir, &inode->i_mode, &default_acl, &acl);
	if (err)
		return err;
	if (default_acl) {
		err = __ext2hole_set_acl(inode, default_acl, ACL_TYPE_DEFAULT);
		posix_acl_release(default_acl);
	} else {
		inode->i_default_acl = NULL;
	}
	if (acl) {
		if (!err)
			err = __ext2hole_set_acl(inode, acl, ACL_TYPE_ACCESS);
		posix_acl_release(acl);
	} else {
		inode->i_acl = NULL;
	}
	return err;
}

/**
 * ext2hole_acl_chmod - update the access ACL after a mode change
 * @idmap: the mount's idmapping
 * @dentry: the file, whose i_mode is already the new one
 *
 * Return: 0 or the error of storing the ACL.
 */
int ext2hole_acl_chmod(struct ext2hole_idmap *idmap, struct dentry *dentry)
{
#ifdef EXT2HOLE_HAVE_GET_INODE_ACL
	return posix_acl_chmod(idmap, dentry, d_inode(dentry)->i_mode);
#else
	return posix_acl_chmod(idmap, d_inode(dentry), d_inode(dentry)->i_mode);
#endif
}

static int ext2hole_initxattrs(struct inode *inode,
			       const struct xattr *xattr_array, void *fs_info)
{
	const struct xattr *xattr;
	int err = 0;

	for (xattr = xattr_array; xattr->name; xattr++) {
		err = ext2hole_xattr_set(inode, EXT2HOLE_XATTR_INDEX_SECURITY,
					 xattr->name, xattr->value,
					 xattr->value_len, 0);
		if (err)
			break;
	}
	return err;
}

/**
 * ext2hole_init_security - a new inode's security labels (LSMs)
 * @inode: the new inode (I_NEW)
 * @dir: the parent directory
 * @qstr: the new name (NULL for O_TMPFILE)
 *
 * Return: 0 or the error of storing a label.
 */
int ext2hole_init_security(struct inode *inode, struct inode *dir,
			   const struct qstr *qstr)
{
	return security_inode_init_security(inode, dir, qstr,
					    &ext2hole_initxattrs, NULL);
}
