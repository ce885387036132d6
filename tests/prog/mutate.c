// SPDX-License-Identifier: GPL-2.0
/*
 * mutate - seeded hostile-image mutator for ext2 images
 *
 * usage: mutate -s SEED [-n COUNT] [-c CLASS] [-o OUT] IMAGE
 *
 * Reads a valid ext2 image (file or block device), applies COUNT (default 1)
 * corruptions chosen from CLASS (default: any) and writes the result back to
 * IMAGE, or to OUT when given (OUT may be a block device at least as large).
 * Prints "seed=N" first, then one "mutate: ..." line per corruption, so a run
 * replays exactly from its seed.  The geometry is parsed once, from the valid
 * image, before any corruption.
 *
 * Classes:
 *   sb      superblock fields (counts, geometry, features, state, magic)
 *   gd      group descriptor fields (bitmap/table locations, counts)
 *   inode   inode fields (mode, size, links, blocks, flags, dtime, acl)
 *   bptr    block pointers: out of range, into metadata, shared by two files
 *   loop    indirect chains that loop: an indirect block pointing at itself
 *           or at its parent, two files sharing one indirect block
 *   dirent  directory entries: rec_len 0/odd/short/past the block,
 *           name_len > rec_len, inode out of range, broken '.'/'..'
 *   dx      an indexed directory's dx_root (and dx_node): hash version,
 *           info length, indirect levels, limit and count, hashes out of
 *           order, a leaf past the directory's end, reserved bits
 *   xattr   an xattr block: magic, h_refcount (0, huge, or 1 while a
 *           second inode is made to share the block), h_blocks, entries
 *           (value offset and size overlapping or past the block, name
 *           length and index, value inode, no list end)
 *   ibody   in-inode attributes: i_extra_isize (odd, too large, too
 *           small), the ibody magic, an entry's value offset and size
 *   acl     a POSIX ACL value: version, tags, permissions, a size that is
 *           not a whole number of entries, a duplicate owner entry
 *   xtime   the extra time words: nanoseconds >= 10^9, epoch bits, birth
 *           time
 *
 * Exit status: 0 when every corruption was applied, 1 on usage or I/O
 * errors, 2 when the image has nothing the chosen class can corrupt.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <unistd.h>

#include "common.h"

#include "ext2hole_fs.h"

#define MAX_INODES	4096
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct mutate_geo {
	uint8_t *img;
	size_t len;
	uint32_t bs;		/* block size */
	uint32_t blocks;	/* s_blocks_count */
	uint32_t first_data;
	uint32_t bpg, ipg;
	uint32_t ngroups;
	uint32_t inodes;
	uint32_t inode_size;
	uint32_t first_ino;
	uint32_t gdt_block;
	uint32_t itable[128];	/* inode table of each group, from the valid image */
	uint32_t nfiles, ndirs, nind, ndind;
	uint32_t files[MAX_INODES];	/* in use, with a data block */
	uint32_t dirs[MAX_INODES];
	uint32_t ind[MAX_INODES];	/* regular files with an IND block */
	uint32_t dind[MAX_INODES];	/* regular files with a DIND block */
	uint32_t inuse[MAX_INODES];
	uint32_t ninuse;
	uint32_t nidx, nxblk, nibody, nacl, nxtime;
	uint32_t idx[MAX_INODES];	/* indexed directories */
	uint32_t xblk[MAX_INODES];	/* inodes with an xattr block */
	uint32_t ibody[MAX_INODES];	/* inodes with in-inode attributes */
	uint32_t acl[MAX_INODES];	/* inodes with an ACL (in the inode or block) */
	uint32_t xtime[MAX_INODES];	/* inodes with the extra time words */
};

static uint64_t mutate_rng;

static uint64_t mutate_rand64(void)
{
	return splitmix64(&mutate_rng);
}

/* uniform-ish in [0, n); n > 0 */
static uint32_t mutate_rand(uint32_t n)
{
	return (uint32_t)(mutate_rand64() % n);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mutate: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint32_t get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint16_t get16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static void put32(void *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put16(void *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

/* A block of the image, or NULL when it lies outside. */
static uint8_t *blk(struct mutate_geo *g, uint32_t b)
{
	if (b == 0 && g->first_data)
		return NULL;
	if (b >= g->blocks || ((size_t)b + 1) * g->bs > g->len)
		return NULL;
	return g->img + (size_t)b * g->bs;
}

static struct ext2hole_super_block *sbp(struct mutate_geo *g)
{
	return (struct ext2hole_super_block *)(g->img + EXT2HOLE_SB_OFFSET);
}

static struct ext2hole_group_desc *gdp(struct mutate_geo *g, uint32_t group)
{
	uint8_t *gdt = g->img + (size_t)g->gdt_block * g->bs;

	return (struct ext2hole_group_desc *)(gdt + group * sizeof(struct ext2hole_group_desc));
}

static struct ext2hole_inode *inop(struct mutate_geo *g, uint32_t ino)
{
	uint32_t group, idx, table;
	size_t off;

	if (ino < 1 || ino > g->inodes)
		return NULL;
	group = (ino - 1) / g->ipg;
	idx = (ino - 1) % g->ipg;
	table = g->itable[group];
	off = (size_t)table * g->bs + (size_t)idx * g->inode_size;
	if (off + g->inode_size > g->len)
		return NULL;
	return (struct ext2hole_inode *)(g->img + off);
}

static int is_type(struct ext2hole_inode *in, uint16_t type)
{
	return (get16(&in->i_mode) & 0xF000) == type;
}


static uint32_t pick(const uint32_t *list, uint32_t n);

/*
 * The in-inode attribute area of inode @in, or NULL: its first entry,
 * its end (the inode's end) through @end.
 */
static uint8_t *ibody_entries(struct mutate_geo *g, struct ext2hole_inode *in, uint8_t **end)
{
	uint8_t *raw = (uint8_t *)in;
	uint32_t extra;

	if (g->inode_size <= EXT2HOLE_GOOD_OLD_INODE_SIZE)
		return NULL;
	extra = get16(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE);
	if (extra < 4 || (extra & 3) ||
	    EXT2HOLE_GOOD_OLD_INODE_SIZE + extra + 4 + 16 > g->inode_size)
		return NULL;
	if (get32(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE + extra) != EXT2HOLE_XATTR_MAGIC)
		return NULL;
	*end = raw + g->inode_size;
	return raw + EXT2HOLE_GOOD_OLD_INODE_SIZE + extra + 4;
}

/*
 * An ACL value among the entries from @e (values from @vbase, area end
 * @end): its entry, or NULL.
 */
static uint8_t *find_acl(uint8_t *e, uint8_t *vbase, uint8_t *end, uint8_t **val)
{
	while (e + 16 <= end && get32(e)) {
		uint32_t len = EXT2HOLE_XATTR_LEN(e[0]);

		if ((e[1] == EXT2HOLE_XATTR_INDEX_POSIX_ACL_ACCESS ||
		     e[1] == EXT2HOLE_XATTR_INDEX_POSIX_ACL_DEFAULT) && e[0] == 0) {
			uint32_t off = get16(e + 2), size = get32(e + 8);

			if (vbase + off + size <= end && size >= 4) {
				*val = vbase + off;
				return e;
			}
		}
		if (e + len > end)
			break;
		e += len;
	}
	return NULL;
}

static void parse_new(struct mutate_geo *g)
{
	uint32_t k;

	for (k = 0; k < g->ninuse; k++) {
		uint32_t ino = g->inuse[k];
		struct ext2hole_inode *in = inop(g, ino);
		uint8_t *e, *end, *val, *b;
		uint32_t xb = get32(&in->i_file_acl);

		if (is_type(in, 0x4000) && (get32(&in->i_flags) & EXT2HOLE_INDEX_FL) &&
		    get32(&in->i_block[0]) && g->nidx < MAX_INODES)
			g->idx[g->nidx++] = ino;
		b = xb ? blk(g, xb) : NULL;
		if (b && get32(b) == EXT2HOLE_XATTR_MAGIC && g->nxblk < MAX_INODES)
			g->xblk[g->nxblk++] = ino;
		e = ibody_entries(g, in, &end);
		if (e && get32(e) && g->nibody < MAX_INODES)
			g->ibody[g->nibody++] = ino;
		if (((e && find_acl(e, e, end, &val)) ||
		     (b && get32(b) == EXT2HOLE_XATTR_MAGIC &&
		      find_acl(b + 32, b, b + g->bs, &val))) && g->nacl < MAX_INODES)
			g->acl[g->nacl++] = ino;
		if (g->inode_size > EXT2HOLE_GOOD_OLD_INODE_SIZE &&
		    get16((uint8_t *)in + EXT2HOLE_GOOD_OLD_INODE_SIZE) >= 24 &&
		    g->nxtime < MAX_INODES)
			g->xtime[g->nxtime++] = ino;
	}
}

static int mutate_dx(struct mutate_geo *g)
{
	struct ext2hole_inode *in;
	uint32_t ino, nblocks, limit, count, i;
	uint8_t *root, *info, *cl, *ent;

	if (!g->nidx)
		return 2;
	ino = pick(g->idx, g->nidx);
	in = inop(g, ino);
	root = blk(g, get32(&in->i_block[0]));
	if (!root)
		return 2;
	nblocks = get32(&in->i_size) / g->bs;
	info = root + EXT2HOLE_DX_ROOT_INFO_OFFS;
	cl = root + EXT2HOLE_DX_ROOT_ENTRIES_OFFS;
	limit = get16(cl);
	count = get16(cl + 2);
	ent = cl;	/* entry i at ent + 8 i; entry 0's hash is the countlimit */
	printf("mutate: dx dir inode %u root block %u (hash %u levels %u limit %u count %u): ",
	       ino, get32(&in->i_block[0]), info[4], info[6], limit, count);
	switch (mutate_rand(9)) {
	case 0: {
		static const uint8_t hv[] = { 6, 7, 8, 100, 255 };

		info[4] = hv[mutate_rand(ARRAY_SIZE(hv))];
		printf("hash_version -> %u\n", info[4]);
		break;
	}
	case 1: {
		static const uint8_t il[] = { 0, 4, 7, 16, 255 };

		info[5] = il[mutate_rand(ARRAY_SIZE(il))];
		printf("info_length -> %u\n", info[5]);
		break;
	}
	case 2:
		info[6] = info[6] ? 0 : (uint8_t)(1 + mutate_rand(2) * 254);
		if (!info[6] && mutate_rand(2))
			info[6] = 2;
		printf("indirect_levels -> %u\n", info[6]);
		break;
	case 3: {
		uint32_t v = mutate_rand(2) ? 0 : (mutate_rand(2) ? 0xffff : count - 1);

		put16(cl, (uint16_t)v);
		printf("limit -> %u\n", v);
		break;
	}
	case 4: {
		uint32_t v = mutate_rand(3) == 0 ? 0 : (mutate_rand(2) ? limit + 1 : 0xffff);

		put16(cl + 2, (uint16_t)v);
		printf("count -> %u\n", v);
		break;
	}
	case 5:
		if (count < 3) {
			put16(cl + 2, 0);
			printf("count -> 0 (too few entries to disorder)\n");
			break;
		}
		i = 1 + mutate_rand(count - 2);
		{
			uint32_t h1 = get32(ent + 8 * i), h2 = get32(ent + 8 * (i + 1));

			put32(ent + 8 * i, h2);
			put32(ent + 8 * (i + 1), h1);
			printf("hashes of entries %u and %u swapped (%#x, %#x): out of order\n",
			       i, i + 1, h1, h2);
		}
		break;
	case 6:
		i = count ? mutate_rand(count) : 0;
		{
			uint32_t old = get32(ent + 8 * i + 4);
			uint32_t v = mutate_rand(3) == 0 ? 0 :
				     mutate_rand(2) ? nblocks + mutate_rand(8) : 0xfffffff0u;

			put32(ent + 8 * i + 4, v);
			printf("entry %u block %u -> %u (the directory has %u blocks)\n", i, old, v,
			       nblocks);
		}
		break;
	case 7:
		if (mutate_rand(2)) {
			put32(info, 1u << mutate_rand(32));
			printf("reserved_zero -> %#x\n", get32(info));
		} else {
			info[7] |= (uint8_t)(1u << mutate_rand(8));
			printf("unused_flags -> %#x\n", info[7]);
		}
		break;
	default:
		/* '..' shortened: the root info is read as an entry */
		put16(root + 12 + 4, 12);
		printf("'..' rec_len -> 12 (the dx root info exposed as entries)\n");
		break;
	}
	return 0;
}

static int mutate_xattr(struct mutate_geo *g)
{
	struct ext2hole_inode *in;
	uint32_t ino, b, n = 0, k;
	uint8_t *p, *e, *ents[64];

	if (!g->nxblk)
		return 2;
	ino = pick(g->xblk, g->nxblk);
	in = inop(g, ino);
	b = get32(&in->i_file_acl);
	p = blk(g, b);
	if (!p)
		return 2;
	for (e = p + 32; e + 16 <= p + g->bs && get32(e) && n < 64;
	     e += EXT2HOLE_XATTR_LEN(e[0]))
		ents[n++] = e;
	printf("mutate: xattr block %u of inode %u (refcount %u, %u entries): ", b, ino,
	       get32(p + 4), n);
	switch (mutate_rand(n ? 10 : 4)) {
	case 0:
		put32(p, mutate_rand(2) ? 0 : EXT2HOLE_XATTR_MAGIC ^ (1u << mutate_rand(32)));
		printf("h_magic -> %#x\n", get32(p));
		break;
	case 1: {
		/* a second inode made to share the block, the count left alone */
		uint32_t other = 0, tries;

		for (tries = 0; tries < 32 && (!other || other == ino); tries++)
			other = pick(g->files, g->nfiles);
		if (!other || other == ino) {
			put32(p + 4, 0);
			printf("h_refcount -> 0\n");
			break;
		}
		put32(&inop(g, other)->i_file_acl, b);
		printf("shared with inode %u, h_refcount left %u\n", other, get32(p + 4));
		break;
	}
	case 2: {
		static const uint32_t rc[] = { 0, 2, 1025, 0xffffffffu };

		put32(p + 4, rc[mutate_rand(ARRAY_SIZE(rc))]);
		printf("h_refcount -> %u\n", get32(p + 4));
		break;
	}
	case 3: {
		static const uint32_t hb[] = { 0, 2, 0xffffffffu };

		put32(p + 8, hb[mutate_rand(ARRAY_SIZE(hb))]);
		printf("h_blocks -> %u\n", get32(p + 8));
		break;
	}
	case 4:
		e = ents[mutate_rand(n)];
		{
			static const char * const what[] = { "into the header", "into the entry list",
						      "at the block end", "past the block" };
			uint32_t w = mutate_rand(4);
			uint32_t v = w == 0 ? 8 : w == 1 ? 32 : w == 2 ? g->bs - 4 : g->bs + 64;

			put16(e + 2, (uint16_t)v);
			printf("entry '%.*s' e_value_offs -> %u (%s)\n", e[0], e + 16, v, what[w]);
		}
		break;
	case 5:
		e = ents[mutate_rand(n)];
		{
			uint32_t v = mutate_rand(2) ? 0xffffffffu : g->bs;

			put32(e + 8, v);
			printf("entry '%.*s' e_value_size -> %u\n", e[0], e + 16, v);
		}
		break;
	case 6:
		e = ents[mutate_rand(n)];
		k = e[0];
		e[0] = mutate_rand(2) ? 0 : 255;
		printf("entry e_name_len %u -> %u\n", k, e[0]);
		break;
	case 7:
		e = ents[mutate_rand(n)];
		k = e[1];
		e[1] = mutate_rand(2) ? 0 : (uint8_t)(7 + mutate_rand(249));
		printf("entry e_name_index %u -> %u\n", k, e[1]);
		break;
	case 8:
		e = ents[mutate_rand(n)];
		put32(e + 4, 1 + mutate_rand(g->inodes));
		printf("entry '%.*s' e_value_block/inum -> %u\n", e[0], e + 16, get32(e + 4));
		break;
	default:
		/* the list's end overwritten: the values read as entries */
		e = ents[n - 1] + EXT2HOLE_XATTR_LEN(ents[n - 1][0]);
		if (e + 4 <= p + g->bs) {
			put32(e, 0x01020304);
			printf("list end at %u -> 0x01020304\n", (uint32_t)(e - p));
		} else {
			put32(p, 0);
			printf("h_magic -> 0\n");
		}
		break;
	}
	return 0;
}

static int mutate_ibody(struct mutate_geo *g)
{
	struct ext2hole_inode *in;
	uint8_t *raw, *e, *end;
	uint32_t ino, extra;

	if (!g->nibody)
		return 2;
	ino = pick(g->ibody, g->nibody);
	in = inop(g, ino);
	raw = (uint8_t *)in;
	e = ibody_entries(g, in, &end);
	if (!e)
		return 2;
	extra = get16(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE);
	printf("mutate: inode %u in-inode xattrs (i_extra_isize %u): ", ino, extra);
	switch (mutate_rand(6)) {
	case 0: {
		static const uint16_t v[] = { 1, 2, 33, 35 };
		uint16_t x = v[mutate_rand(4)];

		put16(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE, x);
		printf("i_extra_isize -> %u (odd or short)\n", x);
		break;
	}
	case 1: {
		uint16_t x = (uint16_t)(g->inode_size - EXT2HOLE_GOOD_OLD_INODE_SIZE +
					4 * mutate_rand(3));

		put16(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE, x);
		printf("i_extra_isize -> %u (too large)\n", x);
		break;
	}
	case 2: {
		uint16_t x = mutate_rand(2) ? 0xfffc : 0;

		put16(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE, x);
		printf("i_extra_isize -> %u\n", x);
		break;
	}
	case 3:
		put32(e - 4, mutate_rand(2) ? 0 : 0xEA020001);
		printf("ibody magic -> %#x\n", get32(e - 4));
		break;
	case 4: {
		uint32_t v = mutate_rand(2) ? (uint32_t)(end - e) + 4 : 0xfff0;

		put16(e + 2, (uint16_t)v);
		printf("first entry e_value_offs -> %u (the area is %u bytes)\n", v,
		       (uint32_t)(end - e));
		break;
	}
	default: {
		uint32_t v = mutate_rand(2) ? (uint32_t)(end - e) : 0x7fffffff;

		put32(e + 8, v);
		printf("first entry e_value_size -> %u\n", v);
		break;
	}
	}
	return 0;
}

static int mutate_acl(struct mutate_geo *g)
{
	struct ext2hole_inode *in;
	uint8_t *e, *end, *val = NULL, *ent = NULL, *b;
	uint32_t ino, size, n, k;

	if (!g->nacl)
		return 2;
	ino = pick(g->acl, g->nacl);
	in = inop(g, ino);
	e = ibody_entries(g, in, &end);
	if (e)
		ent = find_acl(e, e, end, &val);
	if (!ent) {
		b = get32(&in->i_file_acl) ? blk(g, get32(&in->i_file_acl)) : NULL;
		if (!b)
			return 2;
		ent = find_acl(b + 32, b, b + g->bs, &val);
		if (!ent)
			return 2;
	}
	size = get32(ent + 8);
	n = (size - 4) / 4;	/* 4-byte units past the header */
	printf("mutate: inode %u ACL (%s, %u bytes): ",
	       ino, ent[1] == EXT2HOLE_XATTR_INDEX_POSIX_ACL_ACCESS ? "access" : "default",
	       size);
	switch (mutate_rand(6)) {
	case 0:
		put32(val, mutate_rand(2) ? 0 : 2);
		printf("a_version -> %u\n", get32(val));
		break;
	case 1:
		k = 4 + 4 * mutate_rand(n ? n : 1);
		if (k + 2 > size)
			k = 4;
		put16(val + k, mutate_rand(2) ? 0x40 : 0xffff);
		printf("the tag at +%u -> %#x (unknown)\n", k, get16(val + k));
		break;
	case 2:
		put16(val + 6, 0xffff);
		printf("the first entry's permissions -> 0xffff\n");
		break;
	case 3:
		put32(ent + 8, size - 1 - 2 * mutate_rand(2));
		printf("value size -> %u (not a whole number of entries)\n", get32(ent + 8));
		break;
	case 4:
		put32(ent + 8, 4);
		printf("value size -> 4 (a header and no entry)\n");
		break;
	default:
		/* the last short entry (OTHER) turned into a second USER_OBJ */
		put16(val + size - 4, 0x01);
		printf("the last entry's tag -> USER_OBJ (a duplicate owner)\n");
		break;
	}
	return 0;
}

static int mutate_xtime(struct mutate_geo *g)
{
	static const char * const names[] = { "i_ctime_extra", "i_mtime_extra", "i_atime_extra",
				       "i_crtime", "i_crtime_extra" };
	struct ext2hole_inode *in;
	uint32_t ino, k, v;
	uint8_t *raw;

	if (!g->nxtime)
		return 2;
	ino = mutate_rand(4) == 0 ? EXT2HOLE_ROOT_INO : pick(g->xtime, g->nxtime);
	in = inop(g, ino);
	raw = (uint8_t *)in;
	if (get16(raw + EXT2HOLE_GOOD_OLD_INODE_SIZE) < 24)
		return 2;
	k = mutate_rand(5);
	switch (mutate_rand(3)) {
	case 0:
		v = 0xffffffffu;	/* nanoseconds 2^30 - 1, epoch 3 */
		break;
	case 1:
		v = (1000000000u << 2) | mutate_rand(4);	/* 10^9 ns */
		break;
	default:
		v = (uint32_t)mutate_rand64();
		break;
	}
	printf("mutate: inode %u %s %#x -> %#x\n", ino, names[k],
	       get32(raw + 0x84 + 4 * k), v);
	put32(raw + 0x84 + 4 * k, v);
	return 0;
}

static void parse(struct mutate_geo *g)
{
	struct ext2hole_super_block *sb;
	uint32_t ino;

	if (g->len < 2048 + sizeof(*sb))
		die("image too small");
	sb = sbp(g);
	if (get16(&sb->s_magic) != EXT2HOLE_SUPER_MAGIC)
		die("not an ext2 image (bad magic)");
	if (get32(&sb->s_log_block_size) > 2)
		die("unsupported block size");
	g->bs = 1024u << get32(&sb->s_log_block_size);
	g->blocks = get32(&sb->s_blocks_count);
	g->first_data = get32(&sb->s_first_data_block);
	g->bpg = get32(&sb->s_blocks_per_group);
	g->ipg = get32(&sb->s_inodes_per_group);
	g->inodes = get32(&sb->s_inodes_count);
	if (!g->bpg || !g->ipg || g->blocks <= g->first_data)
		die("bad geometry");
	g->ngroups = (g->blocks - g->first_data + g->bpg - 1) / g->bpg;
	if (get32(&sb->s_rev_level) >= EXT2HOLE_DYNAMIC_REV) {
		g->inode_size = get16(&sb->s_inode_size);
		g->first_ino = get32(&sb->s_first_ino);
	} else {
		g->inode_size = EXT2HOLE_GOOD_OLD_INODE_SIZE;
		g->first_ino = EXT2HOLE_GOOD_OLD_FIRST_INO;
	}
	if (g->inode_size < 128 || g->inode_size > g->bs)
		die("bad inode size");
	g->gdt_block = g->first_data + 1;
	if ((size_t)g->blocks * g->bs > g->len)
		die("image shorter than s_blocks_count");
	if (((size_t)g->gdt_block + 1) * g->bs > g->len ||
	    g->ngroups * sizeof(struct ext2hole_group_desc) > g->bs)
		die("group descriptors do not fit in one block");
	for (ino = 0; ino < g->ngroups && ino < 128; ino++)
		g->itable[ino] = get32(&gdp(g, ino)->bg_inode_table);

	for (ino = 1; ino <= g->inodes; ino++) {
		struct ext2hole_inode *in = inop(g, ino);

		if (!in)
			die("inode %u outside the image", ino);
		if (ino != EXT2HOLE_ROOT_INO && ino < g->first_ino)
			continue;
		if (!get16(&in->i_links_count) || !get16(&in->i_mode) ||
		    get32(&in->i_dtime))
			continue;
		if (g->ninuse < MAX_INODES)
			g->inuse[g->ninuse++] = ino;
		if (is_type(in, 0x4000) && g->ndirs < MAX_INODES)
			g->dirs[g->ndirs++] = ino;
		/* fast symlinks keep text in i_block: not pointers */
		if (!is_type(in, 0x8000) && !is_type(in, 0x4000))
			continue;
		if (get32(&in->i_block[0]) && g->nfiles < MAX_INODES)
			g->files[g->nfiles++] = ino;
		if (is_type(in, 0x8000) && get32(&in->i_block[EXT2HOLE_IND_BLOCK]) &&
		    g->nind < MAX_INODES)
			g->ind[g->nind++] = ino;
		if (is_type(in, 0x8000) && get32(&in->i_block[EXT2HOLE_DIND_BLOCK]) &&
		    g->ndind < MAX_INODES)
			g->dind[g->ndind++] = ino;
	}
	parse_new(g);
}

/* A metadata block: superblock, GDT, a bitmap or a block of an inode table. */
static uint32_t pick_meta_block(struct mutate_geo *g, const char **what)
{
	uint32_t group = mutate_rand(g->ngroups);
	struct ext2hole_group_desc *d = gdp(g, group);
	uint32_t itb = (g->ipg * g->inode_size + g->bs - 1) / g->bs;

	switch (mutate_rand(5)) {
	case 0:
		*what = "superblock";
		return g->first_data ? 1 : 0;
	case 1:
		*what = "gdt";
		return g->gdt_block;
	case 2:
		*what = "block-bitmap";
		return get32(&d->bg_block_bitmap);
	case 3:
		*what = "inode-bitmap";
		return get32(&d->bg_inode_bitmap);
	default:
		*what = "inode-table";
		return get32(&d->bg_inode_table) + mutate_rand(itb);
	}
}

static uint32_t pick_bad_block(struct mutate_geo *g, const char **what)
{
	switch (mutate_rand(4)) {
	case 0:
		*what = "past-end";
		return g->blocks + mutate_rand(16);
	case 1:
		*what = "all-ones";
		return 0xffffffffu;
	case 2:
		*what = "random";
		return (uint32_t)mutate_rand64();
	default:
		return pick_meta_block(g, what);
	}
}

/* A value for a 32-bit or 16-bit field, derived from the old one. */
static uint32_t pick_value(uint32_t old, int bits, const char **how)
{
	uint32_t mask = bits == 32 ? 0xffffffffu : 0xffffu;

	switch (mutate_rand(8)) {
	case 0:
		*how = "zero";
		return 0;
	case 1:
		*how = "all-ones";
		return mask;
	case 2:
		*how = "plus-one";
		return (old + 1) & mask;
	case 3:
		*how = "minus-one";
		return (old - 1) & mask;
	case 4:
		*how = "double";
		return (old * 2) & mask;
	case 5:
		*how = "small";
		return 1 + mutate_rand(16);
	case 6:
		*how = "bitflip";
		return (old ^ (1u << mutate_rand(bits))) & mask;
	default:
		*how = "random";
		return (uint32_t)mutate_rand64() & mask;
	}
}

struct mutate_field {
	const char *name;
	size_t off;
	int bits;
};

#define SBF(f, b) { #f, offsetof(struct ext2hole_super_block, f), b }
static const struct mutate_field mutate_sb_fields[] = {
	SBF(s_inodes_count, 32), SBF(s_blocks_count, 32),
	SBF(s_r_blocks_count, 32), SBF(s_free_blocks_count, 32),
	SBF(s_free_inodes_count, 32), SBF(s_first_data_block, 32),
	SBF(s_log_block_size, 32), SBF(s_blocks_per_group, 32),
	SBF(s_inodes_per_group, 32), SBF(s_magic, 16), SBF(s_state, 16),
	SBF(s_errors, 16), SBF(s_rev_level, 32), SBF(s_first_ino, 32),
	SBF(s_inode_size, 16), SBF(s_feature_compat, 32),
	SBF(s_feature_incompat, 32), SBF(s_feature_ro_compat, 32),
	SBF(s_reserved_gdt_blocks, 16), SBF(s_log_frag_size, 32),
	SBF(s_first_meta_bg, 32), SBF(s_last_orphan, 32),
	SBF(s_def_hash_version, 8), SBF(s_default_mount_opts, 32),
	SBF(s_min_extra_isize, 16), SBF(s_want_extra_isize, 16),
	SBF(s_flags, 32),
	/* ext4's quota inode numbers (0x240, 0x244, 0x26c), in s_reserved */
	{ "s_usr_quota_inum", 0x240, 32 }, { "s_grp_quota_inum", 0x244, 32 },
	{ "s_prj_quota_inum", 0x26c, 32 },
};

#define GDF(f, b) { #f, offsetof(struct ext2hole_group_desc, f), b }
static const struct mutate_field mutate_gd_fields[] = {
	GDF(bg_block_bitmap, 32), GDF(bg_inode_bitmap, 32),
	GDF(bg_inode_table, 32), GDF(bg_free_blocks_count, 16),
	GDF(bg_free_inodes_count, 16), GDF(bg_used_dirs_count, 16),
};

static uint32_t get_field(const uint8_t *base, const struct mutate_field *f)
{
	if (f->bits == 8)
		return base[f->off];
	return f->bits == 32 ? get32(base + f->off) : get16(base + f->off);
}

static void set_field(uint8_t *base, const struct mutate_field *f, uint32_t v,
		      const char *what, const char *how)
{
	uint32_t old = get_field(base, f);

	if (f->bits == 8)
		v &= 0xff;
	if (v == old)
		v ^= 1;
	if (f->bits == 32)
		put32(base + f->off, v);
	else if (f->bits == 16)
		put16(base + f->off, (uint16_t)v);
	else
		base[f->off] = (uint8_t)v;
	printf("mutate: %s %s %u -> %u (%s)\n", what, f->name, old, v, how);
}

static int mutate_sb(struct mutate_geo *g)
{
	const struct mutate_field *f =
		&mutate_sb_fields[mutate_rand(ARRAY_SIZE(mutate_sb_fields))];
	uint8_t *base = (uint8_t *)sbp(g);
	uint32_t old = get_field(base, f);
	const char *how;
	uint32_t v;

	if (!strcmp(f->name, "s_def_hash_version")) {
		static const uint8_t hv[] = { 3, 4, 5, 6, 7, 255 };

		v = hv[mutate_rand(ARRAY_SIZE(hv))];
		how = "hash-version";
	} else if (strstr(f->name, "quota_inum")) {
		static const uint32_t qi[] = { 1, 2, 3, 5, 7, 11 };

		v = mutate_rand(2) ? qi[mutate_rand(ARRAY_SIZE(qi))] : pick_value(old, 32, &how);
		how = "quota-inode";
	} else if (!strcmp(f->name, "s_log_block_size")) {
		v = 1 + mutate_rand(30);
		how = "huge-or-other-size";
	} else if (strstr(f->name, "feature") && mutate_rand(2)) {
		v = old | (1u << (8 + mutate_rand(24)));
		how = "unknown-feature-bit";
	} else {
		v = pick_value(old, f->bits, &how);
	}
	if (v == old)
		v = old ^ 1;
	set_field(base, f, v, "superblock", how);
	return 0;
}

static int mutate_gd(struct mutate_geo *g)
{
	uint32_t group = mutate_rand(g->ngroups);
	const struct mutate_field *f =
		&mutate_gd_fields[mutate_rand(ARRAY_SIZE(mutate_gd_fields))];
	uint8_t *base = (uint8_t *)gdp(g, group);
	char what[64];
	const char *how;
	uint32_t v;

	if (f->bits == 32)
		v = pick_bad_block(g, &how);
	else
		v = pick_value(get16(base + f->off), 16, &how);
	if (f->bits == 32 && mutate_rand(4) == 0) {
		/* another group's table or bitmap: overlapping metadata */
		uint32_t other = mutate_rand(g->ngroups);

		v = mutate_rand(2) ? get32(&gdp(g, other)->bg_inode_table) :
				     get32(&gdp(g, other)->bg_block_bitmap);
		how = "other-group-metadata";
	}
	snprintf(what, sizeof(what), "group %u", group);
	set_field(base, f, v, what, how);
	return 0;
}

static uint32_t pick(const uint32_t *list, uint32_t n)
{
	return list[mutate_rand(n)];
}

static int mutate_inode(struct mutate_geo *g)
{
	static const uint16_t modes[] = {
		0x41ed, 0x81a4, 0xa1ff, 0xc1a4, 0x21a4, 0x61a4, 0x11a4, 0, 0xffff,
		0xf1ff, 0x01a4,
	};
	static const uint32_t flags[] = {
		EXT2HOLE_INDEX_FL, EXT2HOLE_IMMUTABLE_FL, EXT2HOLE_APPEND_FL,
		EXT2HOLE_COMPR_FL, 0xffffffffu, 0x80000, 0x10000000,
	};
	struct ext2hole_inode *in;
	char what[64];
	uint32_t ino, v;
	const char *how;

	if (!g->ninuse)
		return 2;
	ino = mutate_rand(4) == 0 ? EXT2HOLE_ROOT_INO : pick(g->inuse, g->ninuse);
	in = inop(g, ino);
	snprintf(what, sizeof(what), "inode %u", ino);
	switch (mutate_rand(9)) {
	case 0: {
		uint16_t m = modes[mutate_rand(ARRAY_SIZE(modes))];

		if (m == get16(&in->i_mode))
			m ^= 0x6000;

		printf("mutate: %s i_mode 0%o -> 0%o\n", what, get16(&in->i_mode), m);
		put16(&in->i_mode, m);
		break;
	}
	case 1: {
		static const struct mutate_field f = { "i_size", 0x04, 32 };

		v = pick_value(get32(&in->i_size), 32, &how);
		set_field((uint8_t *)in, &f, v, what, how);
		break;
	}
	case 2: {
		static const struct mutate_field f = { "i_size_high", 0x6c, 32 };

		v = mutate_rand(2) ? 0xffffffffu : 1 + mutate_rand(0x1000);
		set_field((uint8_t *)in, &f, v, what, "huge");
		break;
	}
	case 3: {
		static const struct mutate_field f = { "i_links_count", 0x1a, 16 };
		static const uint16_t vals[] = { 0, 1, 65535, 2 };

		set_field((uint8_t *)in, &f, vals[mutate_rand(4)], what, "links");
		break;
	}
	case 4: {
		static const struct mutate_field f = { "i_blocks", 0x1c, 32 };

		v = pick_value(get32(&in->i_blocks), 32, &how);
		set_field((uint8_t *)in, &f, v, what, how);
		break;
	}
	case 5: {
		static const struct mutate_field f = { "i_flags", 0x20, 32 };

		v = get32(&in->i_flags) | flags[mutate_rand(ARRAY_SIZE(flags))];
		set_field((uint8_t *)in, &f, v, what, "flag");
		break;
	}
	case 6: {
		static const struct mutate_field f = { "i_dtime", 0x14, 32 };

		set_field((uint8_t *)in, &f, 1 + mutate_rand(0x7fffffff), what,
			  "deleted-but-linked");
		break;
	}
	case 7: {
		static const struct mutate_field f = { "i_file_acl", 0x68, 32 };

		v = pick_bad_block(g, &how);
		set_field((uint8_t *)in, &f, v, what, how);
		break;
	}
	default: {
		/* directory becomes a regular file or the reverse, size kept */
		uint16_t m = get16(&in->i_mode) ^ (0x4000 | 0x8000);

		printf("mutate: %s i_mode 0%o -> 0%o (dir<->reg)\n", what,
		       get16(&in->i_mode), m);
		put16(&in->i_mode, m);
		break;
	}
	}
	return 0;
}

/* One pointer slot of a file: in the inode or inside its IND/DIND block. */
static uint8_t *pick_slot(struct mutate_geo *g, uint32_t ino, char *desc, size_t dlen)
{
	struct ext2hole_inode *in = inop(g, ino);
	uint32_t ppb = g->bs / 4;
	uint32_t ind = get32(&in->i_block[EXT2HOLE_IND_BLOCK]);
	uint8_t *b = ind ? blk(g, ind) : NULL;
	uint32_t k, n = 0;

	if (b && mutate_rand(3) == 0) {
		for (k = 0; k < ppb && get32(b + 4 * k); k++)
			n++;
		if (n) {
			k = mutate_rand(n);
			snprintf(desc, dlen, "inode %u IND block %u [%u]", ino, ind, k);
			return b + 4 * k;
		}
	}
	for (k = 0; k < EXT2HOLE_N_BLOCKS && get32(&in->i_block[k]); k++)
		n++;
	if (!n)
		return NULL;
	k = mutate_rand(n);
	snprintf(desc, dlen, "inode %u i_block[%u]", ino, k);
	return (uint8_t *)&in->i_block[k];
}

/* any data block of another file, for sharing */
static uint32_t other_block(struct mutate_geo *g, uint32_t not_ino, uint32_t *from)
{
	uint32_t tries;

	for (tries = 0; tries < 32; tries++) {
		uint32_t ino = pick(g->files, g->nfiles);
		struct ext2hole_inode *in = inop(g, ino);

		if (ino == not_ino && g->nfiles > 1)
			continue;
		*from = ino;
		return get32(&in->i_block[0]);
	}
	return 0;
}

static int mutate_bptr(struct mutate_geo *g)
{
	char desc[96];
	uint8_t *slot;
	uint32_t ino, old, v, from;
	const char *how;

	if (!g->nfiles)
		return 2;
	ino = pick(g->files, g->nfiles);
	slot = pick_slot(g, ino, desc, sizeof(desc));
	if (!slot)
		return 2;
	old = get32(slot);
	v = mutate_rand(3) == 0 ? other_block(g, ino, &from) : 0;
	if (v) {
		printf("mutate: %s %u -> %u (shared with inode %u)\n", desc, old, v, from);
	} else {
		v = pick_bad_block(g, &how);
		printf("mutate: %s %u -> %u (%s)\n", desc, old, v, how);
	}
	put32(slot, v);
	return 0;
}

/* index of a random non-zero pointer in a block (any index if none) */
static uint32_t pick_used(const uint8_t *p, uint32_t ppb)
{
	uint32_t k, n = 0;

	for (k = 0; k < ppb; k++)
		n += get32(p + 4 * k) != 0;
	if (!n)
		return mutate_rand(ppb);
	n = mutate_rand(n);
	for (k = 0; k < ppb; k++)
		if (get32(p + 4 * k) && n-- == 0)
			break;
	return k;
}

static int mutate_loop(struct mutate_geo *g)
{
	uint32_t ppb = g->bs / 4;
	struct ext2hole_inode *in;
	uint32_t ino, b, child, k, i;
	uint8_t *p, *c;

	if (g->ndind && mutate_rand(2)) {
		ino = pick(g->dind, g->ndind);
		in = inop(g, ino);
		b = get32(&in->i_block[EXT2HOLE_DIND_BLOCK]);
		p = blk(g, b);
		if (!p)
			return 2;
		child = get32(p + 4 * pick_used(p, ppb));
		c = child ? blk(g, child) : NULL;
		if (c && mutate_rand(2)) {
			k = pick_used(c, ppb);
			printf("mutate: inode %u DIND %u -> IND %u [%u] %u -> %u (points to parent)\n",
			       ino, b, child, k, get32(c + 4 * k), b);
			put32(c + 4 * k, b);
		} else {
			k = pick_used(p, ppb);
			printf("mutate: inode %u DIND %u [%u] %u -> %u (points to itself)\n",
			       ino, b, k, get32(p + 4 * k), b);
			put32(p + 4 * k, b);
		}
		return 0;
	}
	if (!g->nind)
		return 2;
	ino = pick(g->ind, g->nind);
	in = inop(g, ino);
	b = get32(&in->i_block[EXT2HOLE_IND_BLOCK]);
	p = blk(g, b);
	if (!p)
		return 2;
	switch (mutate_rand(3)) {
	case 0:
		k = pick_used(p, ppb);
		printf("mutate: inode %u IND %u [%u] %u -> %u (points to itself)\n",
		       ino, b, k, get32(p + 4 * k), b);
		put32(p + 4 * k, b);
		break;
	case 1: {
		uint32_t other = pick(g->ind, g->nind);
		struct ext2hole_inode *o;

		for (k = 0; other == ino && k < 16; k++)
			other = pick(g->ind, g->nind);
		o = inop(g, other);
		printf("mutate: inode %u IND %u -> %u (IND of inode %u: shared)\n",
		       ino, b, get32(&o->i_block[EXT2HOLE_IND_BLOCK]), other);
		put32(&in->i_block[EXT2HOLE_IND_BLOCK],
		      get32(&o->i_block[EXT2HOLE_IND_BLOCK]));
		break;
	}
	default:
		/* one data block named twice by the same file */
		k = pick_used(p, ppb);
		child = get32(&in->i_block[0]);
		for (i = 0; (!child || child == get32(p + 4 * k)) && i < 16; i++)
			child = get32(p + 4 * pick_used(p, ppb));
		if (!child || child == get32(p + 4 * k))
			child = b;	/* a single used entry: make it a self loop */
		printf("mutate: inode %u IND %u [%u] %u -> %u (block already in the same file)\n",
		       ino, b, k, get32(p + 4 * k), child);
		put32(p + 4 * k, child);
		break;
	}
	return 0;
}

static int mutate_dirent(struct mutate_geo *g)
{
	uint32_t offs[512], n = 0, ino, nb = 0, k, b, off, rec, i;
	struct ext2hole_inode *in;
	uint8_t *p, *e;

	if (!g->ndirs)
		return 2;
	ino = mutate_rand(3) == 0 ? EXT2HOLE_ROOT_INO : pick(g->dirs, g->ndirs);
	in = inop(g, ino);
	for (k = 0; k < EXT2HOLE_NDIR_BLOCKS && get32(&in->i_block[k]); k++)
		nb++;
	if (!nb)
		return 2;
	k = mutate_rand(nb);
	b = get32(&in->i_block[k]);
	p = blk(g, b);
	if (!p)
		return 2;
	for (off = 0; off + 8 <= g->bs && n < 512; off += rec) {
		rec = get16(p + off + 4);
		if (rec < 8 || (rec & 3))
			break;
		offs[n++] = off;
	}
	if (!n)
		return 2;
	for (i = mutate_rand(n), rec = 0; rec < 8 && !get32(p + offs[i]); rec++)
		i = mutate_rand(n);
	if (k == 0 && mutate_rand(3) == 0)
		i = mutate_rand(n < 2 ? n : 2);	/* '.' or '..' */
	off = offs[i];
	e = p + off;
	rec = get16(e + 4);
	printf("mutate: dir inode %u block %u entry@%u (ino %u rec_len %u name_len %u): ",
	       ino, b, off, get32(e), rec, e[6]);
	switch (mutate_rand(9)) {
	case 0:
		put16(e + 4, 0);
		printf("rec_len -> 0\n");
		break;
	case 1:
		put16(e + 4, rec + 1);
		printf("rec_len -> %u (odd)\n", rec + 1);
		break;
	case 2:
		put16(e + 4, (uint16_t)(g->bs - off + 4 + 4 * mutate_rand(64)));
		printf("rec_len -> %u (past the block)\n", get16(e + 4));
		break;
	case 3:
		put16(e + 4, 4);
		printf("rec_len -> 4 (shorter than a header)\n");
		break;
	case 4:
		e[6] = (uint8_t)(rec - 8 + 1 + mutate_rand(255 - (rec - 8 < 254 ? rec - 8 : 254)));
		if (e[6] == 0)
			e[6] = 255;
		printf("name_len -> %u (> rec_len %u)\n", e[6], rec);
		break;
	case 5: {
		uint32_t v = mutate_rand(2) ? g->inodes + 1 + mutate_rand(1000) :
					      0xffffffffu;

		put32(e, v);
		printf("inode -> %u (out of range)\n", v);
		break;
	}
	case 6: {
		static const uint32_t res[] = { 1, 3, 5, 7 };
		uint32_t v = res[mutate_rand(4)];

		put32(e, v);
		printf("inode -> %u (reserved)\n", v);
		break;
	}
	case 7:
		if (i < 2 && k == 0) {
			/* '.' / '..' naming a non-directory or nothing */
			uint32_t v = mutate_rand(2) ? 0 : pick(g->inuse, g->ninuse);

			put32(e, v);
			printf("'%s' inode -> %u\n", i ? ".." : ".", v);
		} else {
			e[7] = (uint8_t)(e[7] == 2 ? 1 : 2);
			printf("file_type -> %u (wrong)\n", e[7]);
		}
		break;
	default:
		if (e[6] >= 1 && i < 2 && k == 0) {
			e[8] = 'x';
			printf("name of '%s' -> 'x...'\n", i ? ".." : ".");
		} else {
			e[8] = mutate_rand(2) ? '/' : 0;
			printf("name[0] -> %s\n", e[8] ? "'/'" : "NUL");
		}
		break;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct mutate_geo *g);
} mutate_classes[] = {
	{ "sb", mutate_sb },
	{ "gd", mutate_gd },
	{ "inode", mutate_inode },
	{ "bptr", mutate_bptr },
	{ "loop", mutate_loop },
	{ "dirent", mutate_dirent },
	{ "dx", mutate_dx },
	{ "xattr", mutate_xattr },
	{ "ibody", mutate_ibody },
	{ "acl", mutate_acl },
	{ "xtime", mutate_xtime },
};

static void usage(void)
{
	fprintf(stderr,
		"usage: mutate -s SEED [-n COUNT] [-c sb|gd|inode|bptr|loop|dirent|dx|xattr|ibody|acl|xtime|any] [-o OUT] IMAGE\n");
	exit(1);
}

static void read_all(int fd, uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, buf + done, len - done, (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("read: %s", r ? strerror(errno) : "short image");
		done += (size_t)r;
	}
}

static void write_all(int fd, const uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pwrite(fd, buf + done, len - done, (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write: %s", strerror(errno));
		done += (size_t)r;
	}
	if (fsync(fd))
		die("fsync: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	static struct mutate_geo g;
	const char *class = "any", *out = NULL;
	unsigned long long seed = 0;
	int have_seed = 0, count = 1, opt, i, ret = 0;
	size_t c;
	off_t end;
	int fd, ofd;

	while ((opt = getopt(argc, argv, "s:n:c:o:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			have_seed = 1;
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 'c':
			class = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (!have_seed || optind != argc - 1 || count < 1)
		usage();
	for (c = 0; c < ARRAY_SIZE(mutate_classes); c++)
		if (!strcmp(class, mutate_classes[c].name))
			break;
	if (c == ARRAY_SIZE(mutate_classes) && strcmp(class, "any"))
		usage();

	fd = open(argv[optind], out ? O_RDONLY : O_RDWR);
	if (fd < 0)
		die("%s: %s", argv[optind], strerror(errno));
	end = lseek(fd, 0, SEEK_END);
	if (end <= 0)
		die("%s: empty or unseekable", argv[optind]);
	g.len = (size_t)end;
	g.img = malloc(g.len);
	if (!g.img)
		die("out of memory");
	read_all(fd, g.img, g.len);
	parse(&g);

	mutate_rng = seed;
	printf("seed=%llu\n", seed);
	printf("image: bs=%u blocks=%u groups=%u inodes=%u files=%u dirs=%u ind=%u dind=%u indexed=%u xattr-blocks=%u ibody=%u acl=%u xtime=%u\n",
	       g.bs, g.blocks, g.ngroups, g.inodes, g.nfiles, g.ndirs, g.nind, g.ndind,
	       g.nidx, g.nxblk, g.nibody, g.nacl, g.nxtime);
	for (i = 0; i < count; i++) {
		size_t k = c;
		int r, tries;

		for (tries = 0; tries < 16; tries++) {
			if (!strcmp(class, "any"))
				k = mutate_rand(ARRAY_SIZE(mutate_classes));
			printf("class=%s ", mutate_classes[k].name);
			r = mutate_classes[k].fn(&g);
			if (r != 2)
				break;
			printf("(nothing to corrupt)\n");
		}
		if (r == 2)
			ret = 2;
	}
	fflush(stdout);

	if (out) {
		ofd = open(out, O_WRONLY | O_CREAT, 0644);
		if (ofd < 0)
			die("%s: %s", out, strerror(errno));
	} else {
		ofd = fd;
	}
	write_all(ofd, g.img, g.len);
	if (ofd != fd)
		close(ofd);
	close(fd);
	free(g.img);
	return ret;
}
