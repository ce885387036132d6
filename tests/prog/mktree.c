// SPDX-License-Identifier: GPL-2.0
/*
 * mktree - build a deterministic test tree for ext2 images.
 *
 *   mktree [-s SEED] [-n BIGDIR_ENTRIES] [-d DEPTH] [-S SPARSE_MIB] [-q] DIR
 *
 * DIR must not exist.  Everything (names, sizes, contents, modes, owners,
 * mtimes) follows from SEED, so two runs give identical trees and the
 * manifest tool gives identical output.  Contents:
 *
 *   files/     small files of random sizes and every block-boundary size
 *              (0, 1, 1023..1025, 2047..2049, 4095..4097, 12 KiB +-1 ...)
 *   large/     files reaching the single, double indirect range of 1 KiB
 *              blocks (300 KiB, 1.2 MiB, 3 MiB)
 *   sparse/    holes: data at 0, 12 KiB, 268 KiB, in the double indirect
 *              range and at SPARSE_MIB MiB (default 70: triple indirect
 *              on 1 KiB blocks, 12+256+65536 blocks = 64.26 MiB), a
 *              hole-only file, a file ending in a hole
 *   deep/      DEPTH nested directories (default 40), a file in each
 *   bigdir/    BIGDIR_ENTRIES entries (default 3000), names of 1..60 bytes,
 *              mostly empty files, some hard links into it
 *   names/     names of 255, 254, 100 and 1 bytes, odd characters
 *   links/     symlinks: fast (1..59 bytes), 60 and 61 bytes (slow),
 *              long (500, 1000 bytes), dangling, to dirs
 *   special/   fifo, and when run as root char and block devices
 *   perm/      modes 0000..07777 samples, sticky dir, owners
 *   empty/     empty files and an empty directory
 *
 * -q (quick) shrinks it: 300 dir entries, depth 10, no 3 MiB file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng;
static int is_root;
static const char *top_dir;

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static unsigned int rndn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "mktree: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void set_time(const char *path)
{
	struct timespec ts[2];

	ts[0].tv_sec = 1600000000 + rndn(100000000);
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
		die("utimensat", path);
}

static void fill(unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = rnd();
		size_t k;

		for (k = 0; k < 8 && i + k < len; k++)
			buf[i + k] = v >> (8 * k);
	}
}

/* Write len random bytes at off (the file is created if needed). */
static void put(const char *path, off_t off, size_t len)
{
	static unsigned char buf[1 << 16];
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	if (fd < 0)
		die("open", path);
	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		fill(buf, n);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			die("pwrite", path);
		off += n;
		len -= n;
	}
	if (close(fd))
		die("close", path);
}

static void mkfile(const char *path, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		die("create", path);
	close(fd);
	if (len)
		put(path, 0, len);
	set_time(path);
}

static void mkd(const char *path, mode_t mode)
{
	if (mkdir(path, mode))
		die("mkdir", path);
	if (chmod(path, mode))
		die("chmod", path);
}

static void settrunc(const char *path, off_t size)
{
	if (truncate(path, size))
		die("truncate", path);
}

static char *pjoin(const char *a, const char *b)
{
	char *p;

	if (asprintf(&p, "%s/%s", a, b) < 0)
		exit(1);
	return p;
}

/* A random name of len bytes from a safe alphabet, not "." or "..". */
static void rname(char *out, size_t len)
{
	static const char al[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+=";
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = al[rndn(sizeof(al) - 1)];
	out[0] = 'n';
	out[len] = 0;
}

static void do_files(const char *top)
{
	static const size_t sizes[] = {
		0, 1, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049,
		4095, 4096, 4097, 8191, 8192, 8193, 12287, 12288, 12289,
		16384, 65536, 65537,
	};
	char *dir = pjoin(top, "files"), name[64];
	size_t i;

	mkd(dir, 0755);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		char *p;

		snprintf(name, sizeof(name), "size-%zu", sizes[i]);
		p = pjoin(dir, name);
		mkfile(p, sizes[i]);
		free(p);
	}
	for (i = 0; i < 60; i++) {
		char *p;

		snprintf(name, sizeof(name), "rand-%02zu", i);
		p = pjoin(dir, name);
		mkfile(p, rndn(3) ? rndn(9000) : rndn(70000));
		free(p);
	}
	set_time(dir);
	free(dir);
}

static void do_large(const char *top, int quick)
{
	char *dir = pjoin(top, "large"), *p;

	mkd(dir, 0755);
	p = pjoin(dir, "ind-300k");
	mkfile(p, 300 * 1024 + 17);
	free(p);
	p = pjoin(dir, "dind-1200k");
	mkfile(p, 1200 * 1024 + 1);
	free(p);
	if (!quick) {
		p = pjoin(dir, "big-3m");
		mkfile(p, 3 * 1024 * 1024 + 4095);
		free(p);
	}
	set_time(dir);
	free(dir);
}

static void do_sparse(const char *top, unsigned int far_mib)
{
	char *dir = pjoin(top, "sparse"), *p;
	off_t far = (off_t)far_mib << 20;

	mkd(dir, 0755);

	/* data in every indirection level of 1 KiB blocks, holes between */
	p = pjoin(dir, "levels");
	put(p, 0, 100);
	put(p, 12 * 1024 + 5, 3000);		/* single indirect */
	put(p, 268 * 1024 + 1000, 5000);	/* double indirect */
	put(p, (off_t)20 << 20, 4096);		/* double, far */
	put(p, far, 7777);			/* triple indirect */
	set_time(p);
	free(p);

	/* only the very last byte is data */
	p = pjoin(dir, "tail-byte");
	put(p, far + 123, 1);
	set_time(p);
	free(p);

	/* all hole */
	p = pjoin(dir, "all-hole");
	mkfile(p, 0);
	settrunc(p, (off_t)5 << 20);
	set_time(p);
	free(p);

	/* data, then a hole up to the size */
	p = pjoin(dir, "hole-end");
	mkfile(p, 5000);
	settrunc(p, 300 * 1024);
	set_time(p);
	free(p);

	/* a hole inside a block: data at the start and end of one page */
	p = pjoin(dir, "in-page");
	put(p, 10, 10);
	put(p, 4000, 10);
	put(p, 9000, 100);
	set_time(p);
	free(p);

	set_time(dir);
	free(dir);
}

static void do_deep(const char *top, int depth)
{
	char *cur = pjoin(top, "deep"), name[32];
	int i;

	mkd(cur, 0755);
	for (i = 0; i < depth; i++) {
		char *n, *f;

		snprintf(name, sizeof(name), "level-%02d", i);
		n = pjoin(cur, name);
		mkd(n, 0755);
		f = pjoin(n, "file");
		mkfile(f, rndn(2000));
		free(f);
		free(cur);
		cur = n;
	}
	free(cur);
}

static void do_bigdir(const char *top, int n)
{
	char *dir = pjoin(top, "bigdir"), name[80];
	int i;

	mkd(dir, 0755);
	for (i = 0; i < n; i++) {
		char *p;
		size_t len = 1 + rndn(60);

		rname(name, len);
		/* make names unique with a numeric suffix */
		snprintf(name + len, sizeof(name) - len, "-%d", i);
		p = pjoin(dir, name);
		if (i % 100 == 7) {
			char *target = pjoin(top, "files/size-4097");

			if (link(target, p))
				die("link", p);
			free(target);
		} else if (i % 50 == 3) {
			mkd(p, 0755);
			set_time(p);
		} else {
			mkfile(p, i % 10 == 0 ? rndn(3000) : 0);
		}
		free(p);
	}
	set_time(dir);
	free(dir);
}

static void do_names(const char *top)
{
	static const size_t lens[] = { 255, 254, 253, 252, 251, 100, 1, 2 };
	char *dir = pjoin(top, "names"), name[256];
	size_t i;

	mkd(dir, 0755);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		char *p;

		rname(name, lens[i]);
		p = pjoin(dir, name);
		mkfile(p, rndn(5000));
		free(p);
	}
	/* a 255-byte directory name holding a 255-byte file name */
	memset(name, 'D', 255);
	name[255] = 0;
	{
		char *d = pjoin(dir, name), *f;

		mkd(d, 0700);
		memset(name, 'f', 255);
		f = pjoin(d, name);
		mkfile(f, 1);
		free(f);
		set_time(d);
		free(d);
	}
	{
		static const char *const odd[] = {
			"with space", "tab\there", "nl\nname", "utf8-\xc3\xa9\xe2\x82\xac",
			"high-\xff\xfe", "back\\slash", "-dash", "...", ".hidden",
		};

		for (i = 0; i < ARRAY_SIZE(odd); i++) {
			char *p = pjoin(dir, odd[i]);

			mkfile(p, i * 7);
			free(p);
		}
	}
	set_time(dir);
	free(dir);
}

static void do_links(const char *top)
{
	static const size_t lens[] = { 1, 2, 30, 58, 59, 60, 61, 100, 500, 1000 };
	char *dir = pjoin(top, "links"), tgt[1100], name[32];
	size_t i;

	mkd(dir, 0755);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		char *p;

		rname(tgt, lens[i]);
		snprintf(name, sizeof(name), "len-%zu", lens[i]);
		p = pjoin(dir, name);
		if (symlink(tgt, p))
			die("symlink", p);
		set_time(p);
		free(p);
	}
	{
		static const char *const pairs[][2] = {
			{ "to-file", "../files/size-1025" },
			{ "to-dir", "../deep" },
			{ "dangling", "/nonexistent/path" },
			{ "self", "self" },
		};

		for (i = 0; i < ARRAY_SIZE(pairs); i++) {
			char *p = pjoin(dir, pairs[i][0]);

			if (symlink(pairs[i][1], p))
				die("symlink", p);
			set_time(p);
			free(p);
		}
	}
	set_time(dir);
	free(dir);
}

/* mknod DIR/NAME (a FIFO: mkfifo), with its time set */
static void special(const char *dir, const char *name, mode_t mode, dev_t dev)
{
	char *p = pjoin(dir, name);

	if (S_ISFIFO(mode) ? mkfifo(p, mode & 07777) : mknod(p, mode, dev))
		die(S_ISFIFO(mode) ? "mkfifo" : "mknod", p);
	set_time(p);
	free(p);
}

static void do_special(const char *top)
{
	char *dir = pjoin(top, "special");

	mkd(dir, 0755);
	special(dir, "fifo", S_IFIFO | 0640, 0);
	if (is_root) {
		special(dir, "chr", S_IFCHR | 0600, makedev(1, 3));
		special(dir, "blk", S_IFBLK | 0660, makedev(8, 1));
		/* a device number that needs the new (large) encoding */
		special(dir, "chr-big", S_IFCHR | 0600, makedev(300, 70000));
	}
	set_time(dir);
	free(dir);
}

static void do_perm(const char *top)
{
	static const mode_t modes[] = {
		0000, 0400, 0600, 0644, 0755, 0777, 04755, 02755, 01755, 07777,
	};
	char *dir = pjoin(top, "perm"), name[32];
	size_t i;

	mkd(dir, 0755);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		char *p;

		snprintf(name, sizeof(name), "mode-%04o", modes[i]);
		p = pjoin(dir, name);
		mkfile(p, 10);
		if (is_root && lchown(p, 1000 + i, 2000 + i))
			die("lchown", p);
		if (chmod(p, modes[i]))
			die("chmod", p);
		free(p);
	}
	{
		char *d = pjoin(dir, "sticky");

		mkd(d, 01777);
		set_time(d);
		free(d);
		d = pjoin(dir, "owned-dir");
		mkd(d, 0750);
		if (is_root && lchown(d, 70000, 80000))
			die("lchown", d);
		set_time(d);
		free(d);
	}
	set_time(dir);
	free(dir);
}

static void do_empty(const char *top)
{
	char *dir = pjoin(top, "empty"), *p;
	int i;

	mkd(dir, 0755);
	for (i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "e%d", i);
		p = pjoin(dir, name);
		mkfile(p, 0);
		free(p);
	}
	p = pjoin(dir, "emptydir");
	mkd(p, 0755);
	set_time(p);
	free(p);
	set_time(dir);
	free(dir);
}

static int dir_time(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	struct timespec ts[2];
	uint64_t h = 14695981039346656037ULL;
	const char *c;

	(void)st;
	(void)ftw;
	if (flag != FTW_DP)
		return 0;
	for (c = path + strlen(top_dir); *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	ts[0].tv_sec = 1600000000 + (h ^ rng) % 100000000;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	return utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	int nbig = 3000, depth = 40, quick = 0, c;
	unsigned int far_mib = 70;
	const char *top;

	while ((c = getopt(argc, argv, "s:n:d:S:q")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nbig = atoi(optarg);
			break;
		case 'd':
			depth = atoi(optarg);
			break;
		case 'S':
			far_mib = atoi(optarg);
			break;
		case 'q':
			quick = 1;
			nbig = 300;
			depth = 10;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	top = argv[optind];
	top_dir = top;
	rng = seed * 0x9e3779b97f4a7c15ULL + 0x1234567;
	if (!rng)
		rng = 1;
	is_root = geteuid() == 0;
	umask(0);
	printf("seed=%llu\n", seed);
	mkd(top, 0755);
	do_files(top);
	do_large(top, quick);
	do_sparse(top, far_mib);
	do_deep(top, depth);
	do_bigdir(top, nbig);
	do_names(top);
	do_links(top);
	do_special(top);
	do_perm(top);
	do_empty(top);
	/* directories last, children first, so their times stick */
	if (nftw(top, dir_time, 16, FTW_DEPTH | FTW_PHYS))
		die("nftw", top);
	return 0;
usage:
	fprintf(stderr, "usage: mktree [-s SEED] [-n N] [-d DEPTH] [-S MIB] [-q] DIR\n");
	return 2;
}
