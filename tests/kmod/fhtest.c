// SPDX-License-Identifier: GPL-2.0
/*
 * fhtest - a guest-only test module for the export suite: decode a
 * connectable file handle the way nfsd does for an export with
 * subtree_check, which userspace cannot ask for (open_by_handle_at()
 * accepts any alias, so ->fh_to_parent is never called from there).
 *
 *   insmod fhtest.ko mode=encode path=/mnt/ex/a/b/c/f
 *	encodes a connectable handle (the parent's inode and generation
 *	included) of path into /sys/module/fhtest/parameters/handle as
 *	"type:len:hex".
 *   insmod fhtest.ko mode=decode path=/mnt/ex handle=type:len:hex
 *	decodes it on the filesystem mounted at path, accepting only a
 *	connected dentry.  After the caches were dropped, the file's dentry
 *	from ->fh_to_dentry is disconnected and refused, so exportfs must
 *	take the parent from the handle (->fh_to_parent), reconnect it and
 *	look the name up.  The result, "ok refused=N path=P" or "err=E", goes
 *	to /sys/module/fhtest/parameters/result.
 *
 * Both modes load and stay loaded (rmmod between runs), so that the result
 * can be read back.
 */
#include <linux/module.h>
#include <linux/exportfs.h>
#include <linux/namei.h>
#include <linux/mount.h>
#include <linux/dcache.h>
#include <linux/slab.h>
#include <linux/kernel.h>

static char *mode = "";
module_param(mode, charp, 0444);
static char *path = "";
module_param(path, charp, 0444);
static char handle[256];
module_param_string(handle, handle, sizeof(handle), 0644);
static char result[512];
module_param_string(result, result, sizeof(result), 0444);

#define FHTEST_WORDS	32

static int fhtest_encode(void)
{
	u32 fh[FHTEST_WORDS];
	int len = FHTEST_WORDS, type, n, i;
	struct path p;
	int err;

	err = kern_path(path, 0, &p);
	if (err)
		return err;
	type = exportfs_encode_fh(p.dentry, (struct fid *)fh, &len, 1);
	path_put(&p);
	if (type < 0 || type == FILEID_INVALID)
		return -EOVERFLOW;
	n = scnprintf(handle, sizeof(handle), "%d:%d:", type, len);
	for (i = 0; i < len * 4; i++)
		n += scnprintf(handle + n, sizeof(handle) - n, "%02x",
			       ((u8 *)fh)[i]);
	scnprintf(result, sizeof(result), "encoded");
	return 0;
}

struct fhtest_ctx {
	int refused;
};

/* nfsd with subtree_check wants a dentry connected to the export's root */
static int fhtest_acceptable(void *context, struct dentry *dentry)
{
	struct fhtest_ctx *ctx = context;

	if (dentry->d_flags & DCACHE_DISCONNECTED) {
		ctx->refused++;
		return 0;
	}
	return 1;
}

static int fhtest_decode(void)
{
	struct fhtest_ctx ctx = { 0 };
	u32 fh[FHTEST_WORDS];
	int type, len, off;
	struct dentry *d;
	struct path p;
	char *buf, *s;
	int err;

	if (sscanf(handle, "%d:%d:%n", &type, &len, &off) != 2 ||
	    len <= 0 || len > FHTEST_WORDS ||
	    strlen(handle + off) != len * 8 ||
	    hex2bin((u8 *)fh, handle + off, len * 4))
		return -EINVAL;
	err = kern_path(path, 0, &p);
	if (err)
		return err;
	d = exportfs_decode_fh(p.mnt, (struct fid *)fh, len, type,
			       fhtest_acceptable, &ctx);
	if (IS_ERR_OR_NULL(d)) {
		scnprintf(result, sizeof(result), "err=%ld refused=%d",
			  d ? PTR_ERR(d) : 0L, ctx.refused);
		path_put(&p);
		return 0;
	}
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	s = buf ? dentry_path_raw(d, buf, PATH_MAX) : ERR_PTR(-ENOMEM);
	scnprintf(result, sizeof(result), "ok refused=%d path=%s",
		  ctx.refused, IS_ERR(s) ? "?" : s);
	kfree(buf);
	dput(d);
	path_put(&p);
	return 0;
}

static int __init fhtest_init(void)
{
	if (!strcmp(mode, "encode"))
		return fhtest_encode();
	if (!strcmp(mode, "decode"))
		return fhtest_decode();
	return -EINVAL;
}

static void __exit fhtest_exit(void)
{
}

module_init(fhtest_init);
module_exit(fhtest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ext2hole test: decode a connectable file handle (guest only)");
