// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: reads into the page cache (read_folio, readahead).
 *
 * A folio is read with one lookup of the block map per run
 * (ext2hole_map_extent(): a mapped run contiguous on disk, or a hole as
 * long as the map says), not one get_block call per block: a page of four
 * 1 KiB holes is one walk.  Holes, and the blocks at and beyond EOF, are
 * zeroed in the folio; each mapped run is read with one bio segment.  A
 * folio with one mapped run joins the bio being built when the run
 * follows that bio's last block on disk, so a file laid out contiguously
 * is read with bios of many folios.  A folio with several runs (a hole
 * between data blocks, blocks apart on disk, an indirect block between
 * two runs inside a large folio) gets a bio per run, and is uptodate when
 * the last of them completes.  A folio of holes only is zeroed and
 * uptodate without I/O.
 *
 * A folio that already has buffers (a write into part of it before it
 * was read), or whose map lookup failed, is read buffer by buffer,
 * synchronously, with get_block, which also reports the damage.
 *
 * Sizes are the folio's, never PAGE_SIZE: every path takes a folio of any
 * order (docs/design.md, "Reads").
 */
#include <linux/fs.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include "compat.h"
#include "ext2hole.h"

/* A read in progress: the bio being built, and the last map lookup. */
struct ext2hole_read {
	struct bio *bio;
	sector_t next;			/* the disk block after the bio's last */
	bool readahead;
	u64 m_first;			/* the lookup: logical blocks ... */
	unsigned long m_len;		/* ... [m_first, m_first + m_len) */
	u32 m_pblk;			/* at disk block m_pblk, 0: a hole */
};

/*
 * A folio read by several bios: uptodate when the last one completes
 * without error.  @pending holds one count per bio in flight and one for
 * the reader until it has issued them all.
 */
struct ext2hole_read_split {
	atomic_t pending;
	bool failed;
	struct folio *folio;
};

/* A mapped run of a folio: @len bytes at byte @off, from disk block @pblk. */
struct ext2hole_read_run {
	size_t off;
	size_t len;
	u32 pblk;
};

static void ext2hole_read_end_io(struct bio *bio)
{
	bool ok = !bio->bi_status;
	struct folio_iter fi;

	bio_for_each_folio_all(fi, bio) {
		if (ok)
			folio_mark_uptodate(fi.folio);
		folio_unlock(fi.folio);
	}
	bio_put(bio);
}

static void ext2hole_read_submit(struct ext2hole_read *rd)
{
	if (!rd->bio)
		return;
	rd->bio->bi_end_io = ext2hole_read_end_io;
	submit_bio(rd->bio);
	rd->bio = NULL;
}

static void ext2hole_split_put(struct ext2hole_read_split *sp)
{
	if (!atomic_dec_and_test(&sp->pending))
		return;
	if (!READ_ONCE(sp->failed))
		folio_mark_uptodate(sp->folio);
	folio_unlock(sp->folio);
	kfree(sp);
}

static void ext2hole_split_end_io(struct bio *bio)
{
	struct ext2hole_read_split *sp = bio->bi_private;

	if (bio->bi_status)
		WRITE_ONCE(sp->failed, true);
	bio_put(bio);
	ext2hole_split_put(sp);
}

/* A read bio at disk block @pblk with room for @vecs segments. */
static struct bio *ext2hole_read_bio(struct ext2hole_read *rd,
				     struct inode *inode, u32 pblk,
				     unsigned short vecs, bool may_fail)
{
	gfp_t gfp = mapping_gfp_constraint(inode->i_mapping, GFP_KERNEL);
	unsigned int bits = inode->i_blkbits;
	blk_opf_t opf = REQ_OP_READ;
	struct bio *bio;

	if (rd->readahead) {
		opf |= REQ_RAHEAD;
		if (may_fail)
			gfp |= __GFP_NORETRY | __GFP_NOWARN;
	}
	bio = bio_alloc(inode->i_sb->s_bdev, vecs, opf, gfp);
	if (bio)
		bio->bi_iter.bi_sector = (sector_t)pblk << (bits - SECTOR_SHIFT);
	return bio;
}

/*
 * Read one run of a folio that has several: its own bio, counted in @sp.
 * The allocation may sleep and does not fail (a mempool behind it).
 */
static void ext2hole_read_split_run(struct ext2hole_read *rd,
				    struct ext2hole_read_split *sp,
				    struct folio *folio,
				    const struct ext2hole_read_run *run)
{
	struct inode *inode = folio->mapping->host;
	/* one segment: the run, however many pages of the folio it spans */
	struct bio *bio = ext2hole_read_bio(rd, inode, run->pblk, 1, false);

	if (!ext2hole_bio_add_folio(bio, folio, run->len, run->off)) {
		/* cannot happen: one segment into an empty bio */
		bio_put(bio);
		WRITE_ONCE(sp->failed, true);
		return;
	}
	bio->bi_private = sp;
	bio->bi_end_io = ext2hole_split_end_io;
	atomic_inc(&sp->pending);
	submit_bio(bio);
}

/*
 * Read @folio buffer by buffer, synchronously: a folio that has buffers
 * already (some of them may be uptodate, or dirty), or whose map lookup
 * failed.  get_block maps each block and reports damage; holes and
 * blocks past EOF are zeroed.  Unlocks @folio.
 */
static int ext2hole_read_buffers(struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	unsigned int bits = inode->i_blkbits;
	size_t bsize = 1UL << bits, off = 0;
	u64 iblock = folio_pos(folio) >> bits;
	u64 eof = DIV_ROUND_UP_ULL(i_size_read(inode), bsize);
	struct buffer_head *head, *bh;
	int err = 0;

	atomic64_inc(&EXT2HOLE_SB(inode->i_sb)->s_read_buffers);
	head = folio_buffers(folio);
	if (!head)
		head = ext2hole_create_empty_buffers(folio, bsize, 0);
	bh = head;
	do {
		if (buffer_uptodate(bh))
			continue;
		if (!buffer_mapped(bh)) {
			int e = 0;

			if (iblock < eof)
				e = ext2hole_get_block(inode, iblock, bh, 0);
			if (e) {
				err = err ?: e;
				continue;
			}
			if (!buffer_mapped(bh)) {
				folio_zero_range(folio, off, bsize);
				set_buffer_uptodate(bh);
				continue;
			}
		}
		lock_buffer(bh);
		if (buffer_uptodate(bh)) {
			unlock_buffer(bh);
			continue;
		}
		get_bh(bh);
		bh->b_end_io = end_buffer_read_sync;
		submit_bh(REQ_OP_READ, bh);
	} while (iblock++, off += bsize, (bh = bh->b_this_page) != head);

	bh = head;
	do {
		wait_on_buffer(bh);
		if (!buffer_uptodate(bh))
			err = err ?: -EIO;
	} while ((bh = bh->b_this_page) != head);
	if (!err)
		folio_mark_uptodate(folio);
	folio_unlock(folio);
	return err;
}

/*
 * Read @folio (locked, no buffers) from the map: zero its holes, read its
 * mapped runs.  @want bounds each lookup (the blocks the read still
 * covers).  Returns false, with nothing done, when the map lookup failed
 * before any I/O was issued: the caller reads the folio by buffers.
 */
static bool ext2hole_read_map(struct ext2hole_read *rd, struct folio *folio,
			      unsigned long want)
{
	struct inode *inode = folio->mapping->host;
	unsigned int bits = inode->i_blkbits;
	unsigned int n = folio_size(folio) >> bits, i = 0;
	u64 first = folio_pos(folio) >> bits;
	u64 eof = DIV_ROUND_UP_ULL(i_size_read(inode), 1U << bits);
	struct ext2hole_read_split *sp = NULL;
	struct ext2hole_read_run run = { };

	while (i < n && first + i < eof) {
		u64 b = first + i;
		unsigned long take;
		size_t off = (size_t)i << bits;

		if (b < rd->m_first || b >= rd->m_first + rd->m_len) {
			rd->m_len = 0;
			if (ext2hole_map_extent(inode, b,
						min_t(u64, want > i ? want - i : 1,
						      eof - b),
						false, &rd->m_pblk, &rd->m_len)) {
				if (!sp)
					return false;
				WRITE_ONCE(sp->failed, true);
				break;
			}
			rd->m_first = b;
		}
		take = min_t(u64, rd->m_first + rd->m_len - b, n - i);
		i += take;
		if (!rd->m_pblk) {
			folio_zero_range(folio, off, take << bits);
			continue;
		}
		/* a mapped run: the one before it, if it follows on disk */
		if (run.len && run.off + run.len == off &&
		    run.pblk + (run.len >> bits) == rd->m_pblk + (b - rd->m_first)) {
			run.len += take << bits;
			continue;
		}
		if (run.len) {
			/* a second run: a bio per run */
			if (!sp) {
				ext2hole_read_submit(rd);
				sp = kmalloc(sizeof(*sp),
					     mapping_gfp_constraint(folio->mapping,
								    GFP_KERNEL) |
					     __GFP_NOFAIL);
				atomic_set(&sp->pending, 1);
				atomic64_inc(&EXT2HOLE_SB(inode->i_sb)->s_read_split);
				sp->failed = false;
				sp->folio = folio;
			}
			ext2hole_read_split_run(rd, sp, folio, &run);
		}
		run.off = off;
		run.len = take << bits;
		run.pblk = rd->m_pblk + (b - rd->m_first);
	}
	if (i < n)
		folio_zero_range(folio, (size_t)i << bits,
				 folio_size(folio) - ((size_t)i << bits));

	if (sp) {
		if (run.len && !READ_ONCE(sp->failed))
			ext2hole_read_split_run(rd, sp, folio, &run);
		ext2hole_split_put(sp);
		return true;
	}
	if (!run.len) {
		folio_mark_uptodate(folio);
		folio_unlock(folio);
		return true;
	}

	/* one run: into the bio being built if it follows it on disk */
	if (rd->bio && rd->next != run.pblk)
		ext2hole_read_submit(rd);
	for (;;) {
		if (!rd->bio) {
			unsigned long blocks = max_t(unsigned long, want,
						     run.len >> bits);

			rd->bio = ext2hole_read_bio(rd, inode, run.pblk,
						    bio_max_segs(DIV_ROUND_UP(blocks << bits,
									      PAGE_SIZE)),
						    true);
			if (!rd->bio)
				break;
		}
		if (ext2hole_bio_add_folio(rd->bio, folio, run.len, run.off)) {
			rd->next = run.pblk + (run.len >> bits);
			return true;
		}
		ext2hole_read_submit(rd);
	}
	/* no bio (readahead under memory pressure): by buffers */
	return false;
}

static void ext2hole_read_one(struct ext2hole_read *rd, struct folio *folio,
			      unsigned long want)
{
	if (!folio_buffers(folio) && ext2hole_read_map(rd, folio, want))
		return;
	ext2hole_read_submit(rd);
	if (folio_test_uptodate(folio))
		folio_unlock(folio);
	else
		ext2hole_read_buffers(folio);
}

int ext2hole_read_folio(struct file *file, struct folio *folio)
{
	struct ext2hole_read rd = { };

	ext2hole_read_one(&rd, folio, folio_size(folio) >>
				      folio->mapping->host->i_blkbits);
	ext2hole_read_submit(&rd);
	return 0;
}

void ext2hole_readahead(struct readahead_control *rac)
{
	unsigned int bits = rac->mapping->host->i_blkbits;
	struct ext2hole_read rd = { .readahead = true };
	struct folio *folio;

	while ((folio = readahead_folio(rac))) {
		/* this folio and those still to come */
		unsigned long want = readahead_length(rac) >> bits;

		if (folio_test_large(folio))
			atomic64_inc(&EXT2HOLE_SB(rac->mapping->host->i_sb)->s_large_folios);
		ext2hole_read_one(&rd, folio, want);
	}
	ext2hole_read_submit(&rd);
}
