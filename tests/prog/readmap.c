// SPDX-License-Identifier: GPL-2.0
/*
 * readmap - reads from disk of files whose pages mix data and holes
 *
 *   readmap DIR [-s SEED] [-n FILES]
 *
 * Writes FILES files (default 24) in DIR, block by block in an order
 * that interleaves them, so that a page's blocks lie in every layout the
 * read path meets: data contiguous on disk, data then holes, holes then
 * data, data-hole-data, data blocks that are not neighbours on disk (the
 * other files' blocks between them), runs across the end of an indirect
 * block's array, a tail that ends inside a block, files with no block at
 * all.  Each data block holds a pattern naming its file, block and byte.
 * Then the page cache is dropped (fsync, POSIX_FADV_DONTNEED,
 * /proc/sys/vm/drop_caches) and every file is read back, three ways,
 * dropping the cache before each: read(2) from start to end (readahead),
 * page by page in a shuffled order with readahead turned off
 * (POSIX_FADV_RANDOM: the read_folio path), through a read-only
 * shared mapping in a shuffled page order, and page by page again after
 * small writes into pages not in the cache, which leave a page with
 * buffers of which only some are uptodate (the buffer-by-buffer read).
 * Every byte must be the model's: the pattern in data blocks, the small
 * writes' bytes, zeros in holes, and the size what was written.
 *
 * Last line: "readmap: ok ..." or "readmap: BUG - ...".  Exit 0 ok, 1 bug,
 * 2 setup error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "common.h"

#define die(...) die_setup("readmap", NULL, __VA_ARGS__)

#define MAXFILES 64
#define MAXBLOCKS 1100		/* past the first indirect array at 1 KiB */

#define NPATCH 4		/* small writes into each file before a read */
#define PATCHLEN 37

struct file {
	char path[4096];
	int nblocks;
	off_t size;
	bool data[MAXBLOCKS];
	int npatch;
	off_t patch[NPATCH];	/* PATCHLEN bytes of patch_byte() at each */
};

static long bs, ps;
static int bugs;

static unsigned char pattern(int f, long block, long byte)
{
	return (unsigned char)(f * 31 + block * 7 + byte / 5 + 1) | 1;
}

static unsigned char patch_byte(int f, int p)
{
	return (unsigned char)(0x80 | (f * 13 + p * 5)) & 0xfe;
}

static void drop_caches(struct file *files, int n)
{
	int i, fd;

	sync();
	for (i = 0; i < n; i++) {
		fd = open(files[i].path, O_RDONLY);
		if (fd < 0)
			die("open %s", files[i].path);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			die("drop_caches");
		close(fd);
	}
}

/* Compare @len bytes read at @off of file @f; report the first mismatch. */
static void check(struct file *files, int f, const char *how, off_t off,
		  const unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		off_t pos = off + i;
		long block = pos / bs;
		unsigned char want = 0;

		int p;

		if (pos < files[f].size && files[f].data[block])
			want = pattern(f, block, pos % bs);
		for (p = 0; p < files[f].npatch; p++)
			if (pos >= files[f].patch[p] &&
			    pos < files[f].patch[p] + PATCHLEN)
				want = patch_byte(f, p);
		if (buf[i] != want) {
			if (bugs++ < 10)
				printf("readmap: %s: file %d byte %lld (block %ld, %s): read %#x, wanted %#x\n",
				       how, f, (long long)pos, block,
				       files[f].data[block] ? "data" : "hole",
				       buf[i], want);
			return;
		}
	}
}

static void shuffle(long *v, long n, uint64_t *rs)
{
	long i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = splitmix64(rs) % (i + 1);
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

static void read_all(struct file *files, int f)
{
	unsigned char *buf = malloc(files[f].size + 1);
	off_t got = 0;
	ssize_t r;
	int fd = open(files[f].path, O_RDONLY);

	if (fd < 0 || !buf)
		die("open %s", files[f].path);
	while ((r = read(fd, buf + got, files[f].size + 1 - got)) > 0)
		got += r;
	if (r < 0)
		die("read %s", files[f].path);
	if (got != files[f].size) {
		bugs++;
		printf("readmap: read(2): file %d: %lld bytes, wanted %lld\n",
		       f, (long long)got, (long long)files[f].size);
	}
	check(files, f, "read(2)", 0, buf, got);
	close(fd);
	free(buf);
}

static void read_pages(struct file *files, int f, uint64_t *rs, bool map)
{
	long npages = (files[f].size + ps - 1) / ps, i;
	long *order = malloc(sizeof(*order) * (npages + 1));
	unsigned char *buf = malloc(ps), *m = NULL;
	int fd = open(files[f].path, O_RDONLY);

	if (fd < 0 || !buf || !order)
		die("open %s", files[f].path);
	if (!npages)
		goto out;
	for (i = 0; i < npages; i++)
		order[i] = i;
	shuffle(order, npages, rs);
	if (map) {
		m = mmap(NULL, npages * ps, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			die("mmap %s", files[f].path);
		madvise(m, npages * ps, MADV_RANDOM);
	} else {
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	}
	for (i = 0; i < npages; i++) {
		off_t off = order[i] * ps;
		size_t len = files[f].size - off < ps ? files[f].size - off : ps;

		if (map) {
			check(files, f, "mmap", off, m + off, len);
		} else {
			ssize_t r = pread(fd, buf, ps, off);

			if (r != (ssize_t)len) {
				bugs++;
				printf("readmap: pread: file %d page %ld: %zd bytes, wanted %zu\n",
				       f, order[i], r, len);
				continue;
			}
			check(files, f, "pread", off, buf, len);
		}
	}
	if (map)
		munmap(m, npages * ps);
out:
	close(fd);
	free(buf);
	free(order);
}

/*
 * Small writes into blocks of pages not in the cache: the write reads only
 * the blocks it covers part of, so the page is left with buffers, some
 * uptodate (and dirty), the others not.  Reading such a page back is the
 * read path's buffer-by-buffer case.  Patches lie inside the file, in
 * data blocks and holes alike, and never overlap.
 */
static void patch(struct file *files, int f, uint64_t *rs)
{
	struct file *fl = &files[f];
	int fd, p;

	fl->npatch = 0;
	if (fl->size < 2 * PATCHLEN)
		return;
	fd = open(fl->path, O_WRONLY);
	if (fd < 0)
		die("open %s", fl->path);
	for (p = 0; p < NPATCH; p++) {
		off_t at = splitmix64(rs) % (fl->size - PATCHLEN);
		unsigned char buf[PATCHLEN];
		int q;

		for (q = 0; q < fl->npatch; q++)
			if (at < fl->patch[q] + PATCHLEN &&
			    fl->patch[q] < at + PATCHLEN)
				break;
		if (q < fl->npatch)
			continue;
		memset(buf, patch_byte(f, fl->npatch), sizeof(buf));
		if (pwrite(fd, buf, PATCHLEN, at) != PATCHLEN)
			die("patch %s at %lld", fl->path, (long long)at);
		fl->patch[fl->npatch++] = at;
	}
	close(fd);
}

int main(int argc, char **argv)
{
	static struct file files[MAXFILES];
	unsigned int seed = 1;
	int n = 24, f, opt, round;
	uint64_t rs;
	struct statvfs sv;
	unsigned char *blk;
	long b, total = 0, maxb, holes = 0;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			seed = strtoul(optarg, NULL, 0);
		else if (opt == 'n')
			n = atoi(optarg);
	}
	if (optind != argc - 1 || n < 1 || n > MAXFILES)
		die("usage: readmap DIR [-s SEED] [-n FILES]");
	if (statvfs(argv[optind], &sv))
		die("statvfs %s", argv[optind]);
	bs = sv.f_bsize;
	ps = sysconf(_SC_PAGESIZE);
	rs = seed;
	printf("readmap: seed=%u block size %ld page size %ld files %d\n",
	       seed, bs, ps, n);
	blk = malloc(bs);
	if (!blk)
		die("malloc");

	/* the model: each file's layout, one of a few kinds by its number */
	maxb = MAXBLOCKS * 1024 / bs;
	for (f = 0; f < n; f++) {
		struct file *fl = &files[f];
		long nb = 1 + splitmix64(&rs) % maxb;
		int kind = f % 6;

		snprintf(fl->path, sizeof(fl->path), "%s/readmap.%d",
			 argv[optind], f);
		fl->nblocks = nb;
		for (b = 0; b < nb; b++) {
			switch (kind) {
			case 0:	/* all data */
				fl->data[b] = true;
				break;
			case 1:	/* no data at all */
				fl->data[b] = false;
				break;
			case 2:	/* random, half and half */
				fl->data[b] = splitmix64(&rs) & 1;
				break;
			case 3:	/* mostly data, a hole now and then */
				fl->data[b] = splitmix64(&rs) % 5;
				break;
			case 4:	/* mostly holes */
				fl->data[b] = !(splitmix64(&rs) % 5);
				break;
			default: /* alternating runs of 1..7 blocks */
				fl->data[b] = (b / (1 + f % 7)) & 1;
				break;
			}
		}
		/* a size that ends inside a block, or at a block's end */
		fl->size = (off_t)(nb - 1) * bs + 1 + splitmix64(&rs) % bs;
	}

	/* write block b of every file before block b + 1 of any */
	for (f = 0; f < n; f++) {
		int fd = open(files[f].path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

		if (fd < 0)
			die("create %s", files[f].path);
		close(fd);
	}
	for (b = 0; b < maxb; b++) {
		for (f = 0; f < n; f++) {
			struct file *fl = &files[f];
			long i, len;
			int fd;

			if (b >= fl->nblocks)
				continue;
			if (!fl->data[b]) {
				holes++;
				continue;
			}
			len = (off_t)(b + 1) * bs > fl->size ?
			      fl->size - (off_t)b * bs : bs;
			for (i = 0; i < len; i++)
				blk[i] = pattern(f, b, i);
			fd = open(fl->path, O_WRONLY);
			if (fd < 0 || pwrite(fd, blk, len, (off_t)b * bs) != len)
				die("write %s block %ld", fl->path, b);
			/* to disk now, so the next file's block comes after it */
			if (fsync(fd))
				die("fsync %s", fl->path);
			close(fd);
			total++;
		}
	}
	for (f = 0; f < n; f++)
		if (truncate(files[f].path, files[f].size))
			die("truncate %s", files[f].path);
	printf("readmap: %ld data blocks, %ld holes written\n", total, holes);

	for (round = 0; round < 4; round++) {
		drop_caches(files, n);
		for (f = 0; f < n; f++) {
			if (round == 0) {
				read_all(files, f);
			} else if (round == 3) {
				patch(files, f, &rs);
				read_pages(files, f, &rs, false);
			} else {
				read_pages(files, f, &rs, round == 2);
			}
		}
	}
	for (f = 0; f < n; f++)
		unlink(files[f].path);
	if (bugs) {
		printf("readmap: BUG - %d mismatches (first ones above)\n", bugs);
		return 1;
	}
	printf("readmap: ok - %d files, %ld data blocks, read back 4 ways\n",
	       n, total);
	return 0;
}
