/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole kernel compatibility: every difference between the supported
 * kernels lives here, behind a named feature.  No LINUX_VERSION_CODE test
 * may appear anywhere else in the module.
 *
 * Supported: Debian 12's packaged 6.1 series (6.1.0-*, Linux 6.1.y) and
 * its 6.12 series (6.12.*+deb12, Linux 6.12.y).  Each EXT2HOLE_HAVE_*
 * feature names the mainline release that made the change; the code is
 * written against the newer API and this header supplies it on 6.1.
 * Differences that both kernels accept in one spelling are not features:
 * the code uses that spelling.  Gone by 6.12: PG_error (dir.c rechecks a
 * corrupt page instead), file->f_version (it was never read),
 * SLAB_MEM_SPREAD (a no-op with SLUB).  __bio_add_page(), as bio_add_page()
 * is __must_check from 6.5; block_commit_write()'s result is not used (void
 * in 6.12); directories' generic_file_fsync(), which 6.12 still has and
 * which still syncs the mapping's buffers (regular files have their own
 * fsync, without i_rwsem, like 6.5's generic_buffers_fsync).
 * __filemap_get_folio() returns ERR_PTR from 6.3, but the module only
 * uses the page wrappers (grab_cache_page*, find_lock_page,
 * read_mapping_page), whose conventions did not change (NULL, or ERR_PTR
 * for read_mapping_page, on both).  ->writepage: see
 * EXT2HOLE_HAVE_AOPS_WRITEPAGE.
 */
#ifndef _EXT2HOLE_COMPAT_H
#define _EXT2HOLE_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/buffer_head.h>
#include <linux/writeback.h>

/* The one place the version is read (checkpatch: both sides are constant). */
#define EXT2HOLE_SINCE(a, b, c)	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c))

#if !EXT2HOLE_SINCE(6, 1, 0) || \
	(EXT2HOLE_SINCE(6, 2, 0) && !EXT2HOLE_SINCE(6, 12, 0)) || \
	EXT2HOLE_SINCE(6, 13, 0)
#error "ext2hole supports Linux 6.1 and 6.12 (Debian 12's packaged series) only"
#endif

#if EXT2HOLE_SINCE(6, 2, 0)
/*
 * 6.2 API change: ->get_acl(inode, type, rcu) became ->get_inode_acl,
 * ->set_acl and posix_acl_chmod() take a dentry, and the VFS handles the
 * system.posix_acl_* names itself (the handlers are listing-only nop_*).
 */
#define EXT2HOLE_HAVE_GET_INODE_ACL		1
#endif

#if EXT2HOLE_SINCE(6, 3, 0)
/* 6.3 API change: inode operations and setattr/fillattr take a mnt_idmap. */
#define EXT2HOLE_HAVE_MNT_IDMAP			1
/* 6.3 API change: write_cache_pages() callbacks take a folio. */
#define EXT2HOLE_HAVE_FOLIO_WRITEPAGE_T		1
#endif

#if EXT2HOLE_SINCE(6, 5, 0)
/* 6.5 API change: generic_file_splice_read() gave way to filemap_splice_read(). */
#define EXT2HOLE_HAVE_FILEMAP_SPLICE_READ	1
/* 6.5 API change: block_page_mkwrite_return() gave way to vmf_fs_error(). */
#define EXT2HOLE_HAVE_VMF_FS_ERROR		1
#endif

#if EXT2HOLE_SINCE(6, 6, 0) || \
	(EXT2HOLE_SINCE(6, 1, 64) && !EXT2HOLE_SINCE(6, 2, 0))
/* 6.6 API change (in 6.1.64 too): ctime only through inode_*_ctime*(). */
#define EXT2HOLE_HAVE_CTIME_ACCESSORS		1
#endif

#if EXT2HOLE_SINCE(6, 6, 0)
/* 6.6 API change: generic_fillattr() takes the statx request mask. */
#define EXT2HOLE_HAVE_FILLATTR_REQUEST_MASK	1
/* 6.6 API change: create_empty_buffers() takes a folio, returns the head. */
#define EXT2HOLE_HAVE_FOLIO_CREATE_EMPTY_BUFFERS	1
#endif

#if EXT2HOLE_SINCE(6, 7, 0)
/* 6.7 API change: atime/mtime only through inode_*_atime*()/_mtime*(). */
#define EXT2HOLE_HAVE_INODE_TIME_ACCESSORS	1
/* 6.7 API change: export_operations must name ->encode_fh to be exported. */
#define EXT2HOLE_HAVE_EXPLICIT_ENCODE_FH	1
#endif

#if EXT2HOLE_SINCE(6, 8, 0)
/* 6.8 API change: ->error_remove_page became ->error_remove_folio. */
#define EXT2HOLE_HAVE_ERROR_REMOVE_FOLIO	1
#endif

#if EXT2HOLE_SINCE(6, 8, 0)
/* 6.8 API change: ->get_dquots returns an __rcu-annotated i_dquot array. */
#define EXT2HOLE_HAVE_DQUOT_RCU			1
#endif

#if EXT2HOLE_SINCE(6, 10, 0)
/* 6.10 API change: a block device's page cache is bd_mapping (no bd_inode). */
#define EXT2HOLE_HAVE_BD_MAPPING		1
#endif

#if EXT2HOLE_SINCE(6, 12, 0)
/* 6.12 API change: write_begin/write_end and block_write_* take folios. */
#define EXT2HOLE_HAVE_FOLIO_WRITE_BEGIN		1
/*
 * wbc_account_cgroup_owner() takes a folio: mainline 6.13, in the 6.12
 * stable series that Debian packages (6.12.118 has it).
 */
#define EXT2HOLE_HAVE_FOLIO_WBC_ACCOUNT		1
#endif

#if EXT2HOLE_SINCE(6, 12, 0)
/*
 * Regular files use large folios (docs/design.md, "Folios").  Not an API
 * change but a decision: 6.1's write_begin, write_end and block_write_*
 * take pages and its generic_perform_write() copies a page at a time, so
 * 6.1 stays order 0.  6.12 has fgf_set_order(), a generic_perform_write()
 * that hands write_begin up to the largest folio's worth of bytes, and a
 * filemap_map_pages() that maps no PTE beyond EOF and no PMD across it
 * (6.12.118: the EOF rules that SIGBUS and re-faults need).
 */
#define EXT2HOLE_HAVE_LARGE_FOLIOS		1
#endif

#if EXT2HOLE_SINCE(6, 4, 0)
/* bio_add_folio() is exported from 6.4 on (6.1 has it, unexported). */
#define EXT2HOLE_HAVE_BIO_ADD_FOLIO		1
#endif

/*
 * ->writepage is still in 6.12's address_space_operations (stock ext2
 * dropped its own by then).  ext2hole keeps it on both kernels, so that
 * reclaim writes a page through the same new-style writeback on each.
 */
#define EXT2HOLE_HAVE_AOPS_WRITEPAGE		1

/* ------------------------------------------------------------------ */
/* idmapped mounts */

#ifdef EXT2HOLE_HAVE_MNT_IDMAP
#define ext2hole_idmap			mnt_idmap
#define EXT2HOLE_NOP_IDMAP		(&nop_mnt_idmap)
#define ext2hole_file_idmap(file)	file_mnt_idmap(file)
#else
#define ext2hole_idmap			user_namespace
#define EXT2HOLE_NOP_IDMAP		(&init_user_ns)
#define ext2hole_file_idmap(file)	file_mnt_user_ns(file)
#endif

static inline void ext2hole_fillattr(struct ext2hole_idmap *idmap,
				     u32 request_mask, struct inode *inode,
				     struct kstat *stat)
{
#ifdef EXT2HOLE_HAVE_FILLATTR_REQUEST_MASK
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/*
 * Quota: dquot_transfer() and is_quota_modification() take the same
 * ext2hole_idmap as setattr (a user_namespace on 6.1, a mnt_idmap from
 * 6.3), so they need nothing here.  The i_dquot array is __rcu from 6.8.
 */
#ifdef EXT2HOLE_HAVE_DQUOT_RCU
#define ext2hole_dquot_ptr		struct dquot __rcu *
#else
#define ext2hole_dquot_ptr		struct dquot *
#endif

/* ------------------------------------------------------------------ */
/* POSIX ACLs */

/*
 * The ACL fields of inode_operations: ->get_acl became ->get_inode_acl in
 * 6.2 (->set_acl kept its name and took a dentry, see include/xattr.h).
 */
#ifdef EXT2HOLE_HAVE_GET_INODE_ACL
#define EXT2HOLE_IOPS_ACL(get, set)	.get_inode_acl = (get), .set_acl = (set)
#else
#define EXT2HOLE_IOPS_ACL(get, set)	.get_acl = (get), .set_acl = (set)
#endif

/* ------------------------------------------------------------------ */
/* inode timestamps: the 6.7 accessors, on 6.1 */

/* The accessors of one timestamp field, i_@t (atime, mtime or ctime). */
#define EXT2HOLE_INODE_TIME_ACCESSORS(t)				\
static inline struct timespec64 inode_get_##t(const struct inode *inode) \
{									\
	return inode->i_##t;						\
}									\
									\
static inline struct timespec64						\
inode_set_##t##_to_ts(struct inode *inode, struct timespec64 ts)	\
{									\
	inode->i_##t = ts;						\
	return ts;							\
}									\
									\
static inline struct timespec64						\
inode_set_##t(struct inode *inode, time64_t sec, long nsec)		\
{									\
	return inode_set_##t##_to_ts(inode, (struct timespec64){	\
					.tv_sec = sec, .tv_nsec = nsec }); \
}

/* Its seconds: inode_get_@t_sec() (6.7). */
#define EXT2HOLE_INODE_TIME_SEC(t)					\
static inline time64_t inode_get_##t##_sec(const struct inode *inode)	\
{									\
	return inode_get_##t(inode).tv_sec;				\
}

#ifndef EXT2HOLE_HAVE_CTIME_ACCESSORS
EXT2HOLE_INODE_TIME_ACCESSORS(ctime)

static inline struct timespec64 inode_set_ctime_current(struct inode *inode)
{
	return inode_set_ctime_to_ts(inode, current_time(inode));
}
#endif

#ifndef EXT2HOLE_HAVE_INODE_TIME_ACCESSORS
EXT2HOLE_INODE_TIME_ACCESSORS(atime)
EXT2HOLE_INODE_TIME_ACCESSORS(mtime)
EXT2HOLE_INODE_TIME_SEC(atime)
EXT2HOLE_INODE_TIME_SEC(mtime)
EXT2HOLE_INODE_TIME_SEC(ctime)

/* A new inode's atime, mtime and ctime: now. */
static inline struct timespec64 simple_inode_init_ts(struct inode *inode)
{
	struct timespec64 ts = inode_set_ctime_current(inode);

	inode->i_atime = ts;
	inode->i_mtime = ts;
	return ts;
}
#endif

/* ------------------------------------------------------------------ */
/* NFS export: the generic handle (inode number and generation) */

#ifdef EXT2HOLE_HAVE_EXPLICIT_ENCODE_FH
#define EXT2HOLE_EXPORT_ENCODE_FH	.encode_fh = generic_encode_ino32_fh,
#else
#define EXT2HOLE_EXPORT_ENCODE_FH	/* NULL: the same generic encoder */
#endif

/* ------------------------------------------------------------------ */
/* page cache, buffers and writeback */

/*
 * EXT2HOLE_WB_PAGE is what write_begin hands back and write_end takes, and
 * what block_write_begin(), __block_write_begin(), block_write_end() and
 * generic_write_end() use: a folio from 6.12, a page before.  On 6.1 every
 * folio is order 0, so the two name the same memory; on 6.12 a folio may be
 * large, and ext2hole_wb_page() gives its head page, ext2hole_page_wb() the
 * folio holding a page.  ext2hole_folio_wb() gives the one of a folio.
 */
#ifdef EXT2HOLE_HAVE_FOLIO_WRITE_BEGIN
#define EXT2HOLE_WB_PAGE		struct folio
#define ext2hole_wb_page(p)		(&(p)->page)
#define ext2hole_page_wb(pg)		page_folio(pg)
#define ext2hole_folio_wb(f)		(f)
#else
#define EXT2HOLE_WB_PAGE		struct page
#define ext2hole_wb_page(p)		(p)
#define ext2hole_page_wb(pg)		(pg)
#define ext2hole_folio_wb(f)		(&(f)->page)
#endif

/* The page cache of the device under @sb: its metadata buffers live there. */
static inline struct address_space *ext2hole_bdev_mapping(struct super_block *sb)
{
#ifdef EXT2HOLE_HAVE_BD_MAPPING
	return sb->s_bdev->bd_mapping;
#else
	return sb->s_bdev->bd_inode->i_mapping;
#endif
}

/* Attach empty buffers to @folio (which has none); returns the head. */
static inline struct buffer_head *
ext2hole_create_empty_buffers(struct folio *folio, unsigned long blocksize,
			      unsigned long b_state)
{
#ifdef EXT2HOLE_HAVE_FOLIO_CREATE_EMPTY_BUFFERS
	return create_empty_buffers(folio, blocksize, b_state);
#else
	create_empty_buffers(&folio->page, blocksize, b_state);
	return folio_buffers(folio);
#endif
}

/* write_cache_pages() callback argument: a folio from 6.3, a page before. */
#ifdef EXT2HOLE_HAVE_FOLIO_WRITEPAGE_T
#define EXT2HOLE_WCP_PAGE		struct folio
#define ext2hole_wcp_page(p)		(&(p)->page)
#define ext2hole_wcp_folio(p)		(p)
#else
#define EXT2HOLE_WCP_PAGE		struct page
#define ext2hole_wcp_page(p)		(p)
#define ext2hole_wcp_folio(p)		page_folio(p)
#endif

#ifndef EXT2HOLE_HAVE_VMF_FS_ERROR
/* The page-fault return for an errno, as 6.5's vmf_fs_error(). */
static inline vm_fault_t vmf_fs_error(int err)
{
	return block_page_mkwrite_return(err);
}
#endif

#ifdef EXT2HOLE_HAVE_FILEMAP_SPLICE_READ
#define ext2hole_splice_read		filemap_splice_read
#else
#define ext2hole_splice_read		generic_file_splice_read
#endif

#ifdef EXT2HOLE_HAVE_ERROR_REMOVE_FOLIO
#define EXT2HOLE_AOPS_ERROR_REMOVE \
	.error_remove_folio = generic_error_remove_folio
#else
#define EXT2HOLE_AOPS_ERROR_REMOVE \
	.error_remove_page = generic_error_remove_page
#endif

/*
 * The folio at @index, locked, or NULL when none is cached:
 * filemap_lock_folio() returns NULL up to 6.3, an ERR_PTR from 6.4.
 */
static inline struct folio *ext2hole_lock_folio(struct address_space *mapping,
						pgoff_t index)
{
	struct folio *folio = filemap_lock_folio(mapping, index);

	return IS_ERR_OR_NULL(folio) ? NULL : folio;
}

/*
 * Large folios for the regular file @inode when the mount wants them
 * (EXT2HOLE_HAVE_LARGE_FOLIOS).  Called while the inode is being set up,
 * before anything can reach its mapping.
 */
static inline void ext2hole_mapping_set_large(struct inode *inode, bool large)
{
#ifdef EXT2HOLE_HAVE_LARGE_FOLIOS
	if (large)
		mapping_set_large_folios(inode->i_mapping);
#endif
}

/*
 * The folio a buffered write of @len bytes at @pos goes into, locked, or
 * NULL without memory.  On 6.12, with large folios, a new folio is sized
 * for the write (fgf_set_order(), as iomap does); a cached one may be of
 * any order.  Before, grab_cache_page_write_begin()'s order-0 folio.
 */
static inline struct folio *
ext2hole_write_folio(struct address_space *mapping, loff_t pos, size_t len)
{
#ifdef EXT2HOLE_HAVE_LARGE_FOLIOS
	struct folio *folio;

	folio = __filemap_get_folio(mapping, pos >> PAGE_SHIFT,
				    FGP_WRITEBEGIN | fgf_set_order(len),
				    mapping_gfp_mask(mapping));
	return IS_ERR(folio) ? NULL : folio;
#else
	struct page *page;

	page = grab_cache_page_write_begin(mapping, pos >> PAGE_SHIFT);
	return page ? page_folio(page) : NULL;
#endif
}

/* The folio of a buffer: b_folio from 6.2, the page's before. */
#if EXT2HOLE_SINCE(6, 2, 0)
#define ext2hole_bh_folio(bh)		((bh)->b_folio)
#else
#define ext2hole_bh_folio(bh)		page_folio((bh)->b_page)
#endif

/* @len bytes of a folio from byte @off into a bio: bio_add_folio() from 6.4. */
static inline bool ext2hole_bio_add_folio(struct bio *bio, struct folio *folio,
					  size_t len, size_t off)
{
#ifdef EXT2HOLE_HAVE_BIO_ADD_FOLIO
	return bio_add_folio(bio, folio, len, off);
#else
	return len <= UINT_MAX && off <= UINT_MAX &&
	       bio_add_page(bio, &folio->page, len, off) > 0;
#endif
}

/*
 * Account @bytes of @page written by a writeback bio to the cgroup that
 * owns the page (cgroup writeback).  @page is the page cache page, never
 * a bounce copy, which belongs to no cgroup.
 */

static inline void ext2hole_wbc_account(struct writeback_control *wbc,
					struct page *page, size_t bytes)
{
#ifdef EXT2HOLE_HAVE_FOLIO_WBC_ACCOUNT
	wbc_account_cgroup_owner(wbc, page_folio(page), bytes);
#else
	wbc_account_cgroup_owner(wbc, page, bytes);
#endif
}

#endif /* _EXT2HOLE_COMPAT_H */
