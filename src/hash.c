// SPDX-License-Identifier: GPL-2.0
/*
 * ext2hole: the name hashes of indexed (dir_index, "htree") directories.
 *
 * Three hash versions exist on ext2/ext3/ext4 disks: the legacy hash, half
 * MD4 and TEA, each in a "signed" and an "unsigned" variant that differ in
 * how the bytes of the name are widened (the char signedness of the machine
 * that created the filesystem, recorded in the superblock's s_flags).  Half
 * MD4 and TEA are keyed by the superblock's s_hash_seed, or by the MD4
 * initial state when the seed is all zero.  The result's low bit is always
 * clear: in an index entry it marks a hash collision continued from the
 * previous leaf (docs/design.md, "On-disk decisions", indexed directories).
 */
#include <linux/bitops.h>
#include "ext2hole.h"

/* MD4 initial state: the default seed. */
static const u32 ext2hole_dx_default_seed[4] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
};

/* The legacy hash, one byte at a time; @c is the byte widened to int. */
static u32 ext2hole_legacy_hash(const char *name, int len, bool unsig)
{
	u32 h0 = 0x12a3fe2d, h1 = 0x37abe8f9, h;
	int i;

	for (i = 0; i < len; i++) {
		int c = unsig ? (int)(unsigned char)name[i] :
				(int)(signed char)name[i];

		h = h1 + (h0 ^ (u32)(c * 7152373));
		if (h & 0x80000000)
			h -= 0x7fffffff;
		h1 = h0;
		h0 = h;
	}
	return h0 << 1;
}

/*
 * Pack up to @words * 4 bytes of the name into @out, big-endian-ish as the
 * format wants: each byte is shifted in from the right, starting from a
 * padding word made of the (whole) remaining length.  Words beyond the
 * name hold the padding.
 */
static void ext2hole_name_words(const char *name, int len, u32 *out,
				int words, bool unsig)
{
	u32 pad = (u32)len | ((u32)len << 8);
	u32 val;
	int i, n;

	pad |= pad << 16;
	val = pad;
	n = min(len, words * 4);
	for (i = 0; i < n; i++) {
		int c = unsig ? (int)(unsigned char)name[i] :
				(int)(signed char)name[i];

		val = (u32)c + (val << 8);
		if ((i & 3) == 3) {
			*out++ = val;
			val = pad;
			words--;
		}
	}
	if (words-- > 0)
		*out++ = val;
	while (words-- > 0)
		*out++ = pad;
}

/* The three MD4 round functions and constants. */
#define DX_F(x, y, z)	((z) ^ ((x) & ((y) ^ (z))))
#define DX_G(x, y, z)	(((x) & (y)) + (((x) ^ (y)) & (z)))
#define DX_H(x, y, z)	((x) ^ (y) ^ (z))
#define DX_K2		0x5a827999U
#define DX_K3		0x6ed9eba1U
#define DX_STEP(f, a, b, c, d, x, s) \
	((a) = rol32((a) + f((b), (c), (d)) + (x), (s)))

/* Half MD4: MD4 with eight input words and three short rounds. */
static void ext2hole_half_md4(u32 st[4], const u32 in[8])
{
	u32 a = st[0], b = st[1], c = st[2], d = st[3];

	DX_STEP(DX_F, a, b, c, d, in[0], 3);
	DX_STEP(DX_F, d, a, b, c, in[1], 7);
	DX_STEP(DX_F, c, d, a, b, in[2], 11);
	DX_STEP(DX_F, b, c, d, a, in[3], 19);
	DX_STEP(DX_F, a, b, c, d, in[4], 3);
	DX_STEP(DX_F, d, a, b, c, in[5], 7);
	DX_STEP(DX_F, c, d, a, b, in[6], 11);
	DX_STEP(DX_F, b, c, d, a, in[7], 19);

	DX_STEP(DX_G, a, b, c, d, in[1] + DX_K2, 3);
	DX_STEP(DX_G, d, a, b, c, in[3] + DX_K2, 5);
	DX_STEP(DX_G, c, d, a, b, in[5] + DX_K2, 9);
	DX_STEP(DX_G, b, c, d, a, in[7] + DX_K2, 13);
	DX_STEP(DX_G, a, b, c, d, in[0] + DX_K2, 3);
	DX_STEP(DX_G, d, a, b, c, in[2] + DX_K2, 5);
	DX_STEP(DX_G, c, d, a, b, in[4] + DX_K2, 9);
	DX_STEP(DX_G, b, c, d, a, in[6] + DX_K2, 13);

	DX_STEP(DX_H, a, b, c, d, in[3] + DX_K3, 3);
	DX_STEP(DX_H, d, a, b, c, in[7] + DX_K3, 9);
	DX_STEP(DX_H, c, d, a, b, in[2] + DX_K3, 11);
	DX_STEP(DX_H, b, c, d, a, in[6] + DX_K3, 15);
	DX_STEP(DX_H, a, b, c, d, in[1] + DX_K3, 3);
	DX_STEP(DX_H, d, a, b, c, in[5] + DX_K3, 9);
	DX_STEP(DX_H, c, d, a, b, in[0] + DX_K3, 11);
	DX_STEP(DX_H, b, c, d, a, in[4] + DX_K3, 15);

	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

/* TEA, 16 cycles, keyed by four input words, on the first two state words. */
static void ext2hole_tea(u32 st[4], const u32 in[4])
{
	u32 v0 = st[0], v1 = st[1], sum = 0;
	int n;

	for (n = 0; n < 16; n++) {
		sum += 0x9e3779b9;
		v0 += ((v1 << 4) + in[0]) ^ (v1 + sum) ^ ((v1 >> 5) + in[1]);
		v1 += ((v0 << 4) + in[2]) ^ (v0 + sum) ^ ((v0 >> 5) + in[3]);
	}
	st[0] += v0;
	st[1] += v1;
}

/*
 * Run @transform over the whole name, @words words of it at a time
 * (ext2hole_name_words()), on the state @st.
 */
static void ext2hole_hash_words(u32 st[4], const char *name, int len,
				int words, bool unsig,
				void (*transform)(u32 st[4], const u32 *in))
{
	u32 in[8];
	int i;

	for (i = 0; i < len; i += words * 4) {
		ext2hole_name_words(name + i, len - i, in, words, unsig);
		transform(st, in);
	}
}

/**
 * ext2hole_dx_hash2 - the major and minor hashes of a name
 * @name: the name
 * @len: its length
 * @version: EXT2HOLE_DX_HASH_* (an unsigned variant included)
 * @seed: the superblock's s_hash_seed, CPU order
 * @hash: where the major hash is stored (low bit clear)
 * @minor: where the minor hash is stored (0 for the legacy hash), or NULL
 *
 * The index orders names by the major hash only; readdir positions of an
 * indexed directory use both, as the ext4 driver's do.
 *
 * Return: 0, or -EINVAL for an unknown version.
 */
int ext2hole_dx_hash2(const char *name, int len, unsigned int version,
		      const u32 seed[4], u32 *hash, u32 *minor)
{
	void (*transform)(u32 st[4], const u32 *in) = NULL;
	bool unsig = version >= EXT2HOLE_DX_HASH_LEGACY_UNSIGNED;
	int i, words = 0, at = 0;
	u32 m = 0;
	u32 st[4];
	u32 h = 0;

	memcpy(st, ext2hole_dx_default_seed, sizeof(st));
	for (i = 0; i < 4; i++) {
		if (seed[i]) {
			memcpy(st, seed, sizeof(st));
			break;
		}
	}

	/* half MD4 takes 8 words a step, TEA 4; each leaves (major, minor) at @at */
	switch (version) {
	case EXT2HOLE_DX_HASH_LEGACY:
	case EXT2HOLE_DX_HASH_LEGACY_UNSIGNED:
		h = ext2hole_legacy_hash(name, len, unsig);
		break;
	case EXT2HOLE_DX_HASH_HALF_MD4:
	case EXT2HOLE_DX_HASH_HALF_MD4_UNSIGNED:
		words = 8;
		transform = ext2hole_half_md4;
		at = 1;
		break;
	case EXT2HOLE_DX_HASH_TEA:
	case EXT2HOLE_DX_HASH_TEA_UNSIGNED:
		words = 4;
		transform = ext2hole_tea;
		at = 0;
		break;
	default:
		return -EINVAL;
	}
	if (transform) {
		ext2hole_hash_words(st, name, len, words, unsig, transform);
		h = st[at];
		m = st[at + 1];
	}
	h &= ~1U;
	/* The largest value means "end of directory" to 32-bit telldir. */
	if (h == 0xfffffffe)
		h = 0xfffffffc;
	*hash = h;
	if (minor)
		*minor = m;
	return 0;
}
