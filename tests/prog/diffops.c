// SPDX-License-Identifier: GPL-2.0
/*
 * diffops - a deterministic operation sequence for differential testing.
 *
 *   diffops [-s SEED] [-n OPS] [-f FARMIB] DIR
 *
 * Applies OPS operations chosen from SEED to DIR, one process, and prints
 * one line per operation: its number, what it did and the result (return
 * value or errno name, and a checksum for reads).  The sequence does not
 * depend on the results, so two filesystems given the same seed must print
 * the same log and end with the same tree (compare with manifest).
 *
 * Operations: write (pwrite, sometimes far out: FARMIB MiB, default 66,
 * the triple indirect range of 1 KiB blocks), read (checksum), truncate,
 * mmap store inside i_size, rename, renameat2 NOREPLACE/EXCHANGE, link,
 * unlink, mkdir, rmdir, symlink (fast and slow), readlink, mknod fifo,
 * chmod, fsync, readdir of a directory (sorted names, checksummed),
 * O_DIRECT writes and reads (4 KiB aligned) and O_APPEND writes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif

static uint64_t rng;
static uint64_t far_off;

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static const char *const dirs[] = { ".", "d0", "d1", "d0/d2", "d1/d3", "d0/d2/d4" };
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NDIRS ARRAY_SIZE(dirs)

/* A random path: a directory of the pool, or a name inside one. */
static void rpath(char *out, int want_dir)
{
	if (want_dir) {
		strcpy(out, dirs[1 + rn(NDIRS - 1)]);
		return;
	}
	sprintf(out, "%s/%c%u", dirs[rn(NDIRS)], "ffffls"[rn(6)], rn(6));
}

static const char *res(long r)
{
	static char buf[64];

	if (r >= 0) {
		snprintf(buf, sizeof(buf), "%ld", r);
		return buf;
	}
	switch (errno) {
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ELOOP: return "ELOOP";
	case EBUSY: return "EBUSY";
	case EMLINK: return "EMLINK";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case EAGAIN: return "EAGAIN";
	default:
		snprintf(buf, sizeof(buf), "errno%d", errno);
		return buf;
	}
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void op_readdir(const char *d, long i)
{
	DIR *dp = opendir(d);
	struct dirent *de;
	char *names[256];
	int n = 0, k;
	uint64_t h = 14695981039346656037ULL;

	if (!dp) {
		printf("%ld readdir %s %s\n", i, d, res(-1));
		return;
	}
	while ((de = readdir(dp)) && n < 256)
		names[n++] = strdup(de->d_name);
	closedir(dp);
	qsort(names, n, sizeof(*names), cmp_str);
	for (k = 0; k < n; k++) {
		h = fnv(h, names[k], strlen(names[k]) + 1);
		free(names[k]);
	}
	printf("%ld readdir %s n=%d h=%016llx\n", i, d, n, (unsigned long long)h);
}

/*
 * O_DIRECT only on regular files: opening a directory O_DIRECT is EINVAL
 * through the ext4 driver (no direct_IO for directories) but succeeds on
 * ext2 (one aops for both); that is no bug, so keep it out of the log.
 */
static int odirect_open(const char *p, int flags)
{
	struct stat st;

	if (stat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return open(p, flags, 0644);
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	static unsigned char dbuf[4 * 4096] __attribute__((aligned(4096)));
	unsigned long long seed = 1;
	long ops = 2000, i;
	unsigned int far_mib = 66;
	char a[256], b[256];
	size_t k;
	int c;

	while ((c = getopt(argc, argv, "s:n:f:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			ops = atol(optarg);
			break;
		case 'f':
			far_mib = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || chdir(argv[optind]))
		goto usage;
	far_off = (uint64_t)far_mib << 20;
	rng = seed * 0x9e3779b97f4a7c15ULL | 1;
	printf("seed=%llu ops=%ld far=%u\n", seed, ops, far_mib);
	umask(022);
	for (k = 1; k < NDIRS; k++)
		printf("init mkdir %s %s\n", dirs[k], res(mkdir(dirs[k], 0755)));
	for (i = 0; i < ops; i++) {
		unsigned int op = rn(110);
		long r;
		int fd;

		rpath(a, 0);
		rpath(b, 0);
		if (op < 22) {		/* write */
			uint64_t off;
			size_t len = 1 + rn(rn(3) ? 6000 : sizeof(buf));

			switch (rn(10)) {
			case 0:
				off = far_off + rn(3 << 20);
				break;
			case 1:
			case 2:
				off = rn(300 * 1024);
				break;
			default:
				off = rn(40000);
			}
			for (k = 0; k < len; k++)
				buf[k] = rnd() >> 56;
			fd = open(a, O_WRONLY | O_CREAT | O_NONBLOCK, 0644);
			r = fd < 0 ? -1 : pwrite(fd, buf, len, off);
			printf("%ld write %s %zu@%llu %s\n", i, a, len,
			       (unsigned long long)off, res(r));
			if (fd >= 0)
				close(fd);
		} else if (op < 32) {	/* read: the near part and the far window */
			uint64_t h = 14695981039346656037ULL, tot = 0, off, end;
			int pass;

			fd = open(a, O_RDONLY | O_NONBLOCK);
			r = fd < 0 ? -1 : 0;
			for (pass = 0; pass < 2 && fd >= 0 && r >= 0; pass++) {
				off = pass ? far_off : 0;
				end = pass ? far_off + (1 << 20) : 300 * 1024;
				while (off < end && (r = pread(fd, buf, sizeof(buf), off)) > 0) {
					h = fnv(h ^ off, buf, r);
					tot += r;
					off += r;
				}
			}
			printf("%ld read %s %s len=%llu h=%016llx\n", i, a, res(r),
			       (unsigned long long)tot, (unsigned long long)h);
			if (fd >= 0)
				close(fd);
		} else if (op < 40) {	/* truncate */
			uint64_t sz = rn(4) ? rn(50000) : rn(2) ? rn(400000) : far_off + rn(1 << 20);

			r = truncate(a, sz);
			printf("%ld truncate %s %llu %s\n", i, a, (unsigned long long)sz, res(r));
		} else if (op < 46) {	/* mmap store inside i_size */
			struct stat st;

			fd = open(a, O_RDWR | O_NONBLOCK);
			r = fd < 0 ? -1 : fstat(fd, &st);
			if (r == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
				uint64_t len = st.st_size < 200000 ? st.st_size : 200000;
				uint64_t off = rn(len), n = 1 + rn(len - off);
				unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
							MAP_SHARED, fd, 0);

				if (m == MAP_FAILED) {
					r = -1;
				} else {
					for (k = 0; k < n; k++)
						m[off + k] = rnd() >> 56;
					r = rn(2) ? msync(m, len, MS_SYNC) : 0;
					munmap(m, len);
				}
				printf("%ld mmap %s %llu@%llu %s\n", i, a, (unsigned long long)n,
				       (unsigned long long)off, res(r));
			} else {
				printf("%ld mmap %s %s\n", i, a, r ? res(r) : "skip");
			}
			if (fd >= 0)
				close(fd);
		} else if (op < 54) {	/* rename, sometimes of directories */
			if (rn(8) == 0) {
				rpath(a, 1);
				rpath(b, 1);
			}
			r = rename(a, b);
			printf("%ld rename %s %s %s\n", i, a, b, res(r));
		} else if (op < 58) {
			unsigned int fl = rn(2) ? RENAME_NOREPLACE : RENAME_EXCHANGE;

			if (rn(3) == 0)
				rpath(a, 1);
			r = syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, fl);
			printf("%ld renameat2-%s %s %s %s\n", i,
			       fl == RENAME_NOREPLACE ? "noreplace" : "exchange", a, b, res(r));
		} else if (op < 63) {
			r = link(a, b);
			printf("%ld link %s %s %s\n", i, a, b, res(r));
		} else if (op < 70) {
			r = unlink(a);
			printf("%ld unlink %s %s\n", i, a, res(r));
		} else if (op < 76) {
			rpath(a, 1);
			r = mkdir(a, 0755);
			printf("%ld mkdir %s %s\n", i, a, res(r));
		} else if (op < 80) {
			rpath(a, 1);
			r = rmdir(a);
			printf("%ld rmdir %s %s\n", i, a, res(r));
		} else if (op < 85) {
			char tgt[1024];
			size_t len = 1 + (rn(2) ? rn(59) : rn(900));

			for (k = 0; k < len; k++)
				tgt[k] = 'a' + rn(26);
			tgt[len] = 0;
			r = symlink(tgt, a);
			printf("%ld symlink %s len=%zu %s\n", i, a, len, res(r));
		} else if (op < 88) {
			char tgt[2048];

			r = readlink(a, tgt, sizeof(tgt));
			printf("%ld readlink %s %s h=%016llx\n", i, a, res(r),
			       r > 0 ? (unsigned long long)fnv(1, tgt, r) : 0ULL);
		} else if (op < 90) {
			r = mknod(a, S_IFIFO | 0600, 0);
			printf("%ld mkfifo %s %s\n", i, a, res(r));
		} else if (op < 93) {
			mode_t m = rn(2) ? 0600 : 0755 | (rn(2) ? S_ISUID : 0);

			r = chmod(a, m);
			printf("%ld chmod %s %o %s\n", i, a, m, res(r));
		} else if (op < 96) {
			fd = open(a, O_RDONLY | O_NONBLOCK);
			r = fd < 0 ? -1 : fsync(fd);
			printf("%ld fsync %s %s\n", i, a, res(r));
			if (fd >= 0)
				close(fd);
		} else if (op < 100) {
			rpath(a, 1);
			op_readdir(rn(2) ? a : ".", i);
		} else if (op < 105) {	/* O_DIRECT write, 4 KiB aligned */
			uint64_t off = rn(8) ? (uint64_t)rn(100) * 4096 :
				       (far_off & ~4095ULL) + (uint64_t)rn(256) * 4096;
			size_t len = 4096 * (1 + rn(4));

			for (k = 0; k < len; k++)
				dbuf[k] = rnd() >> 56;
			fd = odirect_open(a, O_WRONLY | O_CREAT | O_DIRECT | O_NONBLOCK);
			r = fd < 0 ? -1 : pwrite(fd, dbuf, len, off);
			printf("%ld dwrite %s %zu@%llu %s\n", i, a, len,
			       (unsigned long long)off, res(r));
			if (fd >= 0)
				close(fd);
		} else if (op < 108) {	/* O_DIRECT read */
			uint64_t off = (uint64_t)rn(100) * 4096;

			fd = odirect_open(a, O_RDONLY | O_DIRECT | O_NONBLOCK);
			r = fd < 0 ? -1 : pread(fd, dbuf, 4 * 4096, off);
			printf("%ld dread %s @%llu %s h=%016llx\n", i, a,
			       (unsigned long long)off, res(r),
			       r > 0 ? (unsigned long long)fnv(1, dbuf, r) : 0ULL);
			if (fd >= 0)
				close(fd);
		} else {		/* O_APPEND write */
			size_t len = 1 + rn(9000);

			for (k = 0; k < len; k++)
				buf[k] = rnd() >> 56;
			fd = open(a, O_WRONLY | O_APPEND | O_NONBLOCK);
			r = fd < 0 ? -1 : write(fd, buf, len);
			printf("%ld append %s %zu %s\n", i, a, len, res(r));
			if (fd >= 0)
				close(fd);
		}
	}
	fflush(stdout);
	return 0;
usage:
	fprintf(stderr, "usage: diffops [-s SEED] [-n OPS] [-f FARMIB] DIR\n");
	return 2;
}
