// SPDX-License-Identifier: GPL-2.0
/*
 * seekmap - SEEK_DATA, SEEK_HOLE and FIEMAP against a model of which
 * blocks of a sparse file hold data.
 *
 *   seekmap DIR [-s SEED] [-d]
 *
 * Builds files of several shapes in DIR (holes at the start, middle and
 * end, all hole, all data, blocks on both sides of the direct / single /
 * double / triple indirect boundaries, a seeded random pattern), fsyncs
 * them and drops their pages, then checks for every block boundary and a
 * few offsets inside blocks:
 *   - lseek(SEEK_DATA) and lseek(SEEK_HOLE) give exactly the model's
 *     answer (the map is clean: no page is dirty);
 *   - FIEMAP's extents cover exactly the data blocks, in order, without
 *     overlap, each maximal (no two adjacent extents contiguous on disk),
 *     FIEMAP_EXTENT_LAST on the last one only, and agree with FIBMAP.
 * With -d it also checks dirty data over holes: a store through a shared
 * mapping into a hole inside i_size must be data for SEEK_DATA/SEEK_HOLE
 * before writeback (whatever mkwrite policy), and FIEMAP must show an
 * extent there (delayed or mapped); FIEMAP_FLAG_SYNC must show it mapped.
 *
 * Last line: "seekmap: ok ..." or "seekmap: BUG - ...".  Exit 0 ok, 1 bug,
 * 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>

#include "common.h"

#define MAXEXT	512

static const char *dir;
static long bs;
static int bugs;
static unsigned int seed = 1;

#define die(...) die_setup("seekmap", NULL, __VA_ARGS__)

static void bug(const char *shape, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bug(const char *shape, const char *fmt, ...)
{
	va_list ap;

	if (bugs++ >= 10)
		return;
	printf("seekmap: %s: ", shape);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

struct shape {
	const char *name;
	long long nblocks;	/* i_size in blocks */
	long long *data;	/* sorted data blocks */
	int ndata;
};

static int is_data(const struct shape *s, long long b)
{
	int lo = 0, hi = s->ndata - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (s->data[mid] == b)
			return 1;
		if (s->data[mid] < b)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}

/* The model's SEEK_DATA / SEEK_HOLE answer for byte @off. */
static long long model_seek(const struct shape *s, long long off, int whence)
{
	long long size = s->nblocks * bs, b = off / bs;
	int i;

	if (off >= size)
		return -ENXIO;
	if (whence == SEEK_DATA) {
		if (is_data(s, b))
			return off;
		for (i = 0; i < s->ndata; i++)
			if (s->data[i] > b)
				return s->data[i] * bs;
		return -ENXIO;
	}
	if (!is_data(s, b))
		return off;
	for (b = b + 1; b < s->nblocks; b++)
		if (!is_data(s, b))
			return b * bs;
	return size;
}

static long long do_seek(int fd, long long off, int whence)
{
	off_t r = lseek(fd, off, whence);

	return r < 0 ? -errno : r;
}

static int get_fiemap(int fd, struct fiemap *fm, unsigned int flags)
{
	memset(fm, 0, sizeof(*fm) + MAXEXT * sizeof(struct fiemap_extent));
	fm->fm_start = 0;
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = flags;
	fm->fm_extent_count = MAXEXT;
	return ioctl(fd, FS_IOC_FIEMAP, fm);
}

static void check_fiemap(const struct shape *s, int fd)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) + MAXEXT * sizeof(struct fiemap_extent));
	long long covered = 0, b;
	unsigned int i;
	int fib;

	if (!fm)
		die("calloc");
	if (get_fiemap(fd, fm, 0)) {
		bug(s->name, "FIEMAP failed: %s", strerror(errno));
		free(fm);
		return;
	}
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		struct fiemap_extent *e = &fm->fm_extents[i];
		int last = !!(e->fe_flags & FIEMAP_EXTENT_LAST);

		if (last != (i == fm->fm_mapped_extents - 1))
			bug(s->name, "extent %u of %u: FIEMAP_EXTENT_LAST is %d",
			    i, fm->fm_mapped_extents, last);
		if (e->fe_logical % bs || e->fe_length % bs || e->fe_physical % bs)
			bug(s->name, "extent %u not block aligned", i);
		if (i && e->fe_logical < fm->fm_extents[i - 1].fe_logical +
					   fm->fm_extents[i - 1].fe_length)
			bug(s->name, "extent %u overlaps or is out of order", i);
		if (i && e->fe_logical == fm->fm_extents[i - 1].fe_logical +
					   fm->fm_extents[i - 1].fe_length &&
		    e->fe_physical == fm->fm_extents[i - 1].fe_physical +
				      fm->fm_extents[i - 1].fe_length)
			bug(s->name, "extents %u and %u are contiguous but not merged",
			    i - 1, i);
		if (e->fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
			bug(s->name, "extent %u is delayed (flags 0x%x) on a clean file",
			    i, e->fe_flags);
		for (b = e->fe_logical / bs;
		     b < (long long)((e->fe_logical + e->fe_length) / bs); b++) {
			if (!is_data(s, b)) {
				bug(s->name, "extent %u covers block %lld, a hole", i, b);
				break;
			}
			covered++;
			fib = b;
			if (ioctl(fd, FIBMAP, &fib) == 0 &&
			    (long long)fib * bs != (long long)(e->fe_physical + (b * bs - e->fe_logical)))
				bug(s->name, "block %lld: FIBMAP %d, FIEMAP %llu", b, fib,
				    (unsigned long long)(e->fe_physical + (b * bs - e->fe_logical)) / bs);
		}
	}
	if (covered != s->ndata)
		bug(s->name, "FIEMAP covers %lld blocks, the file has %d data blocks",
		    covered, s->ndata);
	free(fm);
}

static void check_shape(struct shape *s)
{
	char path[4096], *buf;
	long long b, off;
	int fd, i, k;

	snprintf(path, sizeof(path), "%s/seekmap.%s", dir, s->name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s", path);
	buf = malloc(bs);
	if (!buf)
		die("malloc");
	for (i = 0; i < s->ndata; i++) {
		memset(buf, 'a' + i % 26, bs);
		if (pwrite(fd, buf, bs, s->data[i] * bs) != bs)
			die("pwrite block %lld", s->data[i]);
	}
	if (ftruncate(fd, s->nblocks * bs) || fsync(fd))
		die("ftruncate/fsync");
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	for (b = 0; b <= s->nblocks; b++) {
		for (k = 0; k < 3; k++) {
			long long want, got;
			int w;

			off = b * bs + (k == 0 ? 0 : k == 1 ? 1 : bs - 1);
			for (w = SEEK_DATA; w <= SEEK_HOLE; w++) {
				want = model_seek(s, off, w);
				got = do_seek(fd, off, w);
				if (want != got)
					bug(s->name, "%s(%lld): %lld, the model says %lld",
					    w == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE",
					    off, got, want);
			}
		}
		/* large files: only around the data and at a stride */
		if (s->nblocks > 4096) {
			long long next = s->nblocks;

			for (i = 0; i < s->ndata; i++)
				if (s->data[i] > b + 1) {
					next = s->data[i] - 1;
					break;
				}
			if (next > b + 1 && next - b > 1024)
				b = next - 1;
		}
	}
	check_fiemap(s, fd);
	close(fd);
	unlink(path);
	free(buf);
}

/* A store through a mapping into a hole, before writeback. */
static void check_dirty(void)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) + MAXEXT * sizeof(struct fiemap_extent));
	long long size = 1 << 20, at = 512 * 1024 + 100, d, h;
	char path[4096], *map;
	unsigned int i;
	int fd, found = 0;

	snprintf(path, sizeof(path), "%s/seekmap.dirty", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !fm || ftruncate(fd, size))
		die("open/ftruncate %s", path);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	map[at] = 'x';
	d = do_seek(fd, 0, SEEK_DATA);
	h = d >= 0 ? do_seek(fd, d, SEEK_HOLE) : d;
	if (d < 0 || d > at || h <= at)
		bug("dirty", "a store at %lld before writeback: SEEK_DATA(0) %lld, SEEK_HOLE(%lld) %lld",
		    at, d, d, h);
	if (get_fiemap(fd, fm, 0))
		bug("dirty", "FIEMAP failed: %s", strerror(errno));
	for (i = 0; i < fm->fm_mapped_extents; i++)
		if ((long long)fm->fm_extents[i].fe_logical <= at &&
		    (long long)(fm->fm_extents[i].fe_logical + fm->fm_extents[i].fe_length) > at)
			found = 1;
	if (!found)
		bug("dirty", "FIEMAP before writeback has no extent over the store at %lld", at);
	found = 0;
	if (get_fiemap(fd, fm, FIEMAP_FLAG_SYNC))
		bug("dirty", "FIEMAP(SYNC) failed: %s", strerror(errno));
	for (i = 0; i < fm->fm_mapped_extents; i++)
		if ((long long)fm->fm_extents[i].fe_logical <= at &&
		    (long long)(fm->fm_extents[i].fe_logical + fm->fm_extents[i].fe_length) > at &&
		    !(fm->fm_extents[i].fe_flags & FIEMAP_EXTENT_DELALLOC))
			found = 1;
	if (!found)
		bug("dirty", "FIEMAP_FLAG_SYNC has no mapped extent over the store at %lld", at);
	munmap(map, size);
	close(fd);
	unlink(path);
	free(fm);
}

static struct shape *mk(const char *name, long long nblocks, int ndata,
			const long long *data)
{
	struct shape *s = calloc(1, sizeof(*s));

	s->name = name;
	s->nblocks = nblocks;
	s->ndata = ndata;
	s->data = calloc(ndata ? ndata : 1, sizeof(long long));
	if (!s->data)
		die("calloc");
	memcpy(s->data, data, ndata * sizeof(long long));
	return s;
}

int main(int argc, char **argv)
{
	struct statvfs sv;
	long long apb, d[64], n;
	int opt, dirty = 0, i, nd, shapes = 0;
	struct shape *s;

	while ((opt = getopt(argc, argv, "s:d")) != -1) {
		if (opt == 's')
			seed = strtoul(optarg, NULL, 0);
		else if (opt == 'd')
			dirty = 1;
		else
			return 2;
	}
	if (optind != argc - 1)
		die("usage: seekmap DIR [-s SEED] [-d]");
	dir = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (statvfs(dir, &sv))
		die("statvfs");
	bs = sv.f_bsize;
	apb = bs / 4;
	printf("seekmap: seed=%u block size %ld\n", seed, bs);

#define SHAPE(name, nb, ...) do {						\
		const long long v[] = { __VA_ARGS__ };				\
		s = mk(name, nb, sizeof(v) / sizeof(v[0]), v);			\
		check_shape(s);							\
		shapes++;							\
	} while (0)
	SHAPE("middle", 40, 0, 1, 2, 3, 20, 21, 22);
	SHAPE("start-hole", 10, 5, 6, 9);
	SHAPE("end-hole", 30, 0, 1, 2);
	s = mk("all-hole", 100, 0, d);
	check_shape(s);
	shapes++;
	for (i = 0, nd = 0; i < 30; i++)
		d[nd++] = i;
	s = mk("all-data", 30, nd, d);
	check_shape(s);
	shapes++;
	n = 12 + apb + apb * apb;
	SHAPE("boundaries", n + 3, 11, 12, 12 + apb - 1, 12 + apb,
	      n - 1, n, n + 1);
	for (i = 0, nd = 0; i < 200 && nd < 64; i++) {
		seed = seed * 1103515245 + 12345;
		if ((seed >> 16) & 1)
			d[nd++] = i;
	}
	s = mk("random", 200, nd, d);
	check_shape(s);
	shapes++;
	if (dirty)
		check_dirty();
	if (bugs) {
		printf("seekmap: BUG - %d mismatches in %d shapes (first ones above)\n",
		       bugs, shapes);
		return 1;
	}
	printf("seekmap: ok - %d shapes%s: SEEK_DATA/SEEK_HOLE exact, FIEMAP = data blocks, maximal, agrees with FIBMAP\n",
	       shapes, dirty ? " and dirty data over a hole" : "");
	return 0;
}
