// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: reads into the page cache (read_folio, readahead).
 *
 * A folio is read with one lookup of the block map per run
 * (ext2hole_map_extent(): a mapped run contiguous on disk, or a hole as
 * long as the map says), not one get_block call per block: a page of four
 * 1 KiB holes is one walk.  Its blocks are read in one piece when they are
 * a mapped run contiguous on disk followed by holes (and the blocks at and
 * beyond EOF, which are holes to a read): the run goes into the bio being
 * built when it follows it on disk, the rest of the folio is zeroed.  A
 * folio of holes only is zeroed and uptodate without I/O.  Everything
 * else (a hole before a mapped block, blocks that are not contiguous on
 * disk, a folio that has buffers already, a map error) is read buffer by
 * buffer with block_read_full_folio(), which also reports the error.
 *
 * Sizes are the folio's, so the piecewise read holds for a folio of any
 * order; the buffer-by-buffer fallback of 6.1 and 6.12 takes order-0
 * folios only (docs/design.md, "Reads").
 */
#include <linux/fs.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/pagemap.h>
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

/*
 * The folio's layout from the map: *@mapped blocks from disk block *@pblk
 * on, contiguous, then holes to the folio's end.  False when the folio
 * is not laid out so (or the map gave an error): read it by buffers.
 * @want bounds each lookup (the blocks the read still covers).
 */
static bool ext2hole_read_layout(struct ext2hole_read *rd, struct inode *inode,
				 struct folio *folio, unsigned long want,
				 unsigned int *mapped, u32 *pblk)
{
	unsigned int bits = inode->i_blkbits;
	unsigned int n = folio_size(folio) >> bits, i = 0;
	u64 first = folio_pos(folio) >> bits;
	u64 eof = DIV_ROUND_UP_ULL(i_size_read(inode), 1U << bits);
	bool hole = false;

	*mapped = 0;
	*pblk = 0;
	while (i < n && first + i < eof) {
		u64 b = first + i;
		unsigned long take;
		u32 at;

		if (b < rd->m_first || b >= rd->m_first + rd->m_len) {
			rd->m_len = 0;
			if (ext2hole_map_extent(inode, b,
						min_t(u64, want - i, eof - b),
						false, &rd->m_pblk, &rd->m_len))
				return false;
			rd->m_first = b;
		}
		take = min_t(u64, rd->m_first + rd->m_len - b, n - i);
		if (!rd->m_pblk) {
			hole = true;
		} else {
			at = rd->m_pblk + (b - rd->m_first);
			if (hole || (i && at != *pblk + i))
				return false;
			if (!i)
				*pblk = at;
			*mapped += take;
		}
		i += take;
	}
	return true;
}

static void ext2hole_read_one(struct ext2hole_read *rd, struct folio *folio,
			      unsigned long want)
{
	struct inode *inode = folio->mapping->host;
	unsigned int bits = inode->i_blkbits;
	unsigned int mapped;
	size_t len;
	u32 pblk;

	if (folio_buffers(folio) ||
	    !ext2hole_read_layout(rd, inode, folio, want, &mapped, &pblk))
		goto by_buffers;

	len = (size_t)mapped << bits;
	if (len < folio_size(folio))
		folio_zero_segment(folio, len, folio_size(folio));
	if (!mapped) {
		folio_mark_uptodate(folio);
		folio_unlock(folio);
		return;
	}
	if (rd->bio && rd->next != pblk)
		ext2hole_read_submit(rd);
	for (;;) {
		if (!rd->bio) {
			gfp_t gfp = mapping_gfp_constraint(folio->mapping,
							   GFP_KERNEL);
			blk_opf_t opf = REQ_OP_READ;

			if (rd->readahead) {
				opf |= REQ_RAHEAD;
				gfp |= __GFP_NORETRY | __GFP_NOWARN;
			}
			rd->bio = bio_alloc(inode->i_sb->s_bdev,
					    bio_max_segs(DIV_ROUND_UP(want <<
								      bits,
								      PAGE_SIZE)),
					    opf, gfp);
			if (!rd->bio)
				goto by_buffers;
			rd->bio->bi_iter.bi_sector =
				(sector_t)pblk << (bits - SECTOR_SHIFT);
		}
		if (ext2hole_bio_add_folio(rd->bio, folio, len))
			break;
		ext2hole_read_submit(rd);
	}
	rd->next = pblk + mapped;
	/* holes after the run: the next folio's blocks are not its followers */
	if (len < folio_size(folio))
		ext2hole_read_submit(rd);
	return;

by_buffers:
	ext2hole_read_submit(rd);
	if (folio_test_uptodate(folio))
		folio_unlock(folio);
	else
		block_read_full_folio(folio, ext2hole_get_block);
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

		ext2hole_read_one(&rd, folio, want);
	}
	ext2hole_read_submit(&rd);
}
