// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole POSIX ACLs: system.posix_acl_access and system.posix_acl_default
 * in ext2's on-disk ACL format (include/ext2hole_fs.h), read for the VFS's
 * permission checks (generic_permission through ->get_acl).
 *
 * ACLs cannot be written yet.  Until they can, two things that would have
 * to change one are refused instead of done wrong:
 *  - chmod that changes the permission bits of an inode that has an
 *    access ACL (the ACL's owner, mask and other entries would go out of
 *    step with the mode): EOPNOTSUPP;
 *  - a new inode under a directory whose default ACL it would inherit as
 *    more than its mode bits (dropping it could widen access: the group
 *    class bits take the mask's value): EOPNOTSUPP.
 * Without the acl mount option none of this applies, as with ext2/ext4.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/posix_acl_xattr.h>
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
		switch (pa->e_tag) {
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			p += sizeof(struct ext2hole_acl_entry_short);
			break;
		case ACL_USER:
			if (p + sizeof(*e) > end)
				goto fail;
			pa->e_uid = make_kuid(&init_user_ns, le32_to_cpu(e->e_id));
			p += sizeof(*e);
			break;
		case ACL_GROUP:
			if (p + sizeof(*e) > end)
				goto fail;
			pa->e_gid = make_kgid(&init_user_ns, le32_to_cpu(e->e_id));
			p += sizeof(*e);
			break;
		default:
			goto fail;
		}
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
	switch (type) {
	case ACL_TYPE_ACCESS:
		index = EXT2HOLE_XATTR_INDEX_POSIX_ACL_ACCESS;
		break;
	case ACL_TYPE_DEFAULT:
		index = EXT2HOLE_XATTR_INDEX_POSIX_ACL_DEFAULT;
		break;
	default:
		return ERR_PTR(-EINVAL);
	}

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

/**
 * ext2hole_acl_create_mode - the mode of a new inode under @dir
 * @dir: the parent directory
 * @mode: in: the mode asked for; out: after the umask or the default ACL
 *
 * With the acl mount option the VFS leaves the umask to the filesystem:
 * posix_acl_create() applies it, or the parent's default ACL.  Storing an
 * inherited ACL needs the write side, so an inode that would carry one is
 * refused (see the top of this file).
 *
 * Return: 0, -EOPNOTSUPP, or the error of reading the default ACL.
 */
int ext2hole_acl_create_mode(struct inode *dir, umode_t *mode)
{
	struct posix_acl *default_acl, *acl;
	int err;

	if (!IS_POSIXACL(dir))
		return 0;
	err = posix_acl_create(dir, mode, &default_acl, &acl);
	if (err)
		return err;
	if (!default_acl && !acl)
		return 0;
	posix_acl_release(default_acl);
	posix_acl_release(acl);
	return -EOPNOTSUPP;
}

/**
 * ext2hole_acl_setattr_check - may this setattr go ahead without the ACL?
 * @inode: the inode
 * @iattr: the change, after setattr_prepare()
 *
 * A mode change that touches the permission bits of an inode with an
 * access ACL would have to update the ACL too (posix_acl_chmod); until
 * ACLs can be written it is refused.  Clearing set-id bits (a write by
 * another user, chown) does not touch the ACL and goes ahead.
 *
 * Return: 0, -EOPNOTSUPP, or the error of reading the ACL.
 */
int ext2hole_acl_setattr_check(struct inode *inode, const struct iattr *iattr)
{
	struct posix_acl *acl;

	if (!(iattr->ia_valid & ATTR_MODE) || !IS_POSIXACL(inode) ||
	    S_ISLNK(inode->i_mode))
		return 0;
	if (!((iattr->ia_mode ^ inode->i_mode) & 0777))
		return 0;
	acl = get_acl(inode, ACL_TYPE_ACCESS);
	if (IS_ERR(acl))
		return PTR_ERR(acl);
	if (!acl)
		return 0;
	posix_acl_release(acl);
	return -EOPNOTSUPP;
}
