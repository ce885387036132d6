// SPDX-License-Identifier: GPL-2.0
/*
 * stress - seeded multi-process namespace and data stress tester.
 *
 *   stress [-s SEED] [-p PROCS] [-n OPS] [-m MAXSIZE] DIR
 *
 * PROCS processes (fork) each run OPS random operations: create, write,
 * store through a shared mapping, truncate, rename, link, unlink, mkdir,
 * rmdir, symlink, fsync, read.
 * Three quarters of them go to the process's own directory DIR/pN, where
 * a model of every name and every file's bytes is kept and checked on
 * reads and at the end (content, sizes, link counts, symlink targets and
 * the exact directory listing); the rest go to DIR/shared, where all the
 * processes race on the same names and only unexpected errors count
 * (ENOENT, EEXIST, ENOTEMPTY, ENOTDIR, EISDIR are the races' normal
 * results there; EIO, ENOSPC, EINVAL... are failures).
 *
 * Prints "seed=N" first and "stress: ops=N time=S errors=E" last; the
 * exit status is 1 when any process saw an error.  Process i uses seed
 * SEED*1000+i, so a run replays exactly (up to the shared races).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define NFILE	24
#define NDIR	6
#define NLINK	6
#define NSHARED	48

struct obj {
	unsigned char *data;
	size_t size;
	int refs;
};

static struct obj *files[NFILE];	/* fN: regular files (links share) */
static int dirs[NDIR];			/* dN: 0 absent, 1 empty, 2 has dN/x */
static char *links[NLINK];		/* lN: symlink targets */
static uint64_t rng;
static size_t maxsize = 256 * 1024;
static int errors;
static long nops;
static int me;
static const char *top;
static char mydir[1024], shdir[1024];

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "stress[%d] op %ld: ", me, nops);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	errors++;
}

static void path(char *out, const char *dir, char kind, int i)
{
	snprintf(out, 2048, "%s/%c%d", dir, kind, i);
}

/* ---- the private directory, with a model ---- */

static void verify_file(int i, const char *why)
{
	static unsigned char buf[1 << 16];
	struct obj *o = files[i];
	char p[4096];
	struct stat st;
	size_t off = 0;
	int fd;

	path(p, mydir, 'f', i);
	fd = open(p, O_RDONLY);
	if (fd < 0) {
		if (o)
			err("%s: open %s: %s", why, p, strerror(errno));
		return;
	}
	if (!o) {
		err("%s: %s exists but the model has no such file", why, p);
		close(fd);
		return;
	}
	if (fstat(fd, &st) || (size_t)st.st_size != o->size ||
	    st.st_nlink != (nlink_t)o->refs) {
		err("%s: %s size %lld nlink %lu, model %zu %d", why, p,
		    (long long)st.st_size, (unsigned long)st.st_nlink, o->size, o->refs);
		close(fd);
		return;
	}
	while (off < o->size) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n <= 0) {
			err("%s: read %s at %zu: %s", why, p, off,
			    n < 0 ? strerror(errno) : "early EOF");
			break;
		}
		if (memcmp(buf, o->data + off, n)) {
			ssize_t k = 0;

			while (buf[k] == o->data[off + k])
				k++;
			err("%s: %s byte %zu is 0x%02x, model 0x%02x", why, p,
			    off + k, buf[k], o->data[off + k]);
			break;
		}
		off += n;
	}
	close(fd);
}

static void op_write(int i, int create_only)
{
	static unsigned char buf[1 << 16];
	struct obj *o = files[i];
	char p[4096];
	size_t off, len, k;
	int fd;

	path(p, mydir, 'f', i);
	if (!o) {
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			err("create %s: %s", p, strerror(errno));
			return;
		}
		o = calloc(1, sizeof(*o));
		o->refs = 1;
		files[i] = o;
		if (create_only) {
			close(fd);
			return;
		}
	} else {
		fd = open(p, O_WRONLY);
		if (fd < 0) {
			err("open %s: %s", p, strerror(errno));
			return;
		}
	}
	switch (rn(4)) {
	case 0:		/* append */
		off = o->size;
		break;
	case 1:		/* beyond EOF: leaves a hole */
		off = o->size + rn(20000);
		break;
	default:
		off = rn(o->size + 1);
	}
	len = 1 + rn(rn(4) ? 5000 : sizeof(buf));
	if (off >= maxsize)
		off = rn(maxsize);
	if (off + len > maxsize)
		len = maxsize - off;
	for (k = 0; k < len; k++)
		buf[k] = rnd() >> 56;
	if (pwrite(fd, buf, len, off) != (ssize_t)len) {
		err("pwrite %s %zu@%zu: %s", p, len, off, strerror(errno));
		close(fd);
		return;
	}
	if (off + len > o->size) {
		o->data = realloc(o->data, off + len);
		memset(o->data + o->size, 0, off + len - o->size);
		o->size = off + len;
	}
	memcpy(o->data + off, buf, len);
	if (!rn(8) && fsync(fd))
		err("fsync %s: %s", p, strerror(errno));
	if (close(fd))
		err("close %s: %s", p, strerror(errno));
}

/* Store through a shared mapping inside i_size (page_mkwrite path). */
static void op_mmap(int i)
{
	struct obj *o = files[i];
	char p[2048];
	size_t off, len, k;
	unsigned char *m;
	int fd;

	if (!o || !o->size)
		return;
	path(p, mydir, 'f', i);
	fd = open(p, O_RDWR);
	if (fd < 0) {
		err("open %s: %s", p, strerror(errno));
		return;
	}
	m = mmap(NULL, o->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		err("mmap %s: %s", p, strerror(errno));
		close(fd);
		return;
	}
	off = rn(o->size);
	len = 1 + rn(o->size - off < 20000 ? o->size - off : 20000);
	for (k = 0; k < len; k++) {
		unsigned char b = rnd() >> 56;

		m[off + k] = b;
		o->data[off + k] = b;
	}
	if (memcmp(m, o->data, o->size))
		err("mmap %s: the mapping differs from the model", p);
	if (!rn(4) && msync(m, o->size, MS_SYNC))
		err("msync %s: %s", p, strerror(errno));
	munmap(m, o->size);
	close(fd);
}

static void op_truncate(int i)
{
	struct obj *o = files[i];
	char p[4096];
	size_t sz;

	path(p, mydir, 'f', i);
	if (!o) {
		if (truncate(p, 10) == 0 || errno != ENOENT)
			err("truncate of missing %s: %s", p, strerror(errno));
		return;
	}
	sz = rn(2) ? rn(o->size + 1) : rn(maxsize);
	if (truncate(p, sz)) {
		err("truncate %s %zu: %s", p, sz, strerror(errno));
		return;
	}
	if (sz > o->size) {
		o->data = realloc(o->data, sz);
		memset(o->data + o->size, 0, sz - o->size);
	}
	o->size = sz;
}

static void drop(int i)
{
	struct obj *o = files[i];

	files[i] = NULL;
	if (o && --o->refs == 0) {
		free(o->data);
		free(o);
	}
}

static void op_unlink(int i)
{
	char p[4096];

	path(p, mydir, 'f', i);
	if (unlink(p)) {
		if (files[i] || errno != ENOENT)
			err("unlink %s: %s", p, strerror(errno));
		return;
	}
	if (!files[i])
		err("unlink %s succeeded, the model has no such file", p);
	drop(i);
}

static void op_link(int a, int b)
{
	char pa[4096], pb[4096];
	int r;

	path(pa, mydir, 'f', a);
	path(pb, mydir, 'f', b);
	r = link(pa, pb);
	if (!files[a] || files[b] || a == b) {
		if (!r)
			err("link %s %s succeeded, model says it must fail", pa, pb);
		return;
	}
	if (r) {
		err("link %s %s: %s", pa, pb, strerror(errno));
		return;
	}
	files[b] = files[a];
	files[a]->refs++;
}

static void op_rename_file(int a, int b)
{
	char pa[4096], pb[4096];
	int r;

	path(pa, mydir, 'f', a);
	path(pb, mydir, 'f', b);
	r = rename(pa, pb);
	if (!files[a]) {
		if (!r || errno != ENOENT)
			err("rename of missing %s: %s", pa, r ? strerror(errno) : "succeeded");
		return;
	}
	if (r) {
		err("rename %s %s: %s", pa, pb, strerror(errno));
		return;
	}
	if (files[a] == files[b])	/* same inode: POSIX says do nothing */
		return;
	drop(b);
	files[b] = files[a];
	files[a] = NULL;
}

static void op_dir(int i)
{
	char p[2048], px[4096];
	int r;

	path(p, mydir, 'd', i);
	snprintf(px, sizeof(px), "%s/x", p);
	switch (dirs[i]) {
	case 0:
		if (mkdir(p, 0755))
			err("mkdir %s: %s", p, strerror(errno));
		else
			dirs[i] = 1;
		break;
	case 1:
		if (rn(2)) {
			r = open(px, O_WRONLY | O_CREAT | O_EXCL, 0600);
			if (r < 0 || write(r, "x", 1) != 1 || close(r)) {
				err("create %s: %s", px, strerror(errno));
				break;
			}
			dirs[i] = 2;
		} else if (rmdir(p)) {
			err("rmdir %s: %s", p, strerror(errno));
		} else {
			dirs[i] = 0;
		}
		break;
	case 2:
		if (rmdir(p) == 0 || errno != ENOTEMPTY) {
			err("rmdir of non-empty %s: %s", p, strerror(errno));
			break;
		}
		if (unlink(px))
			err("unlink %s: %s", px, strerror(errno));
		else
			dirs[i] = 1;
		break;
	}
}

static void op_rename_dir(int a, int b)
{
	char pa[4096], pb[4096];
	int r, e;

	path(pa, mydir, 'd', a);
	path(pb, mydir, 'd', b);
	r = rename(pa, pb);
	e = errno;
	if (a == b) {
		if (dirs[a] ? r != 0 : (r == 0 || e != ENOENT))
			err("rename %s to itself: %s", pa, r ? strerror(e) : "ok");
		return;
	}
	if (!dirs[a]) {
		if (!r || e != ENOENT)
			err("rename of missing %s: %s", pa, r ? strerror(e) : "succeeded");
		return;
	}
	if (dirs[b] == 2) {
		if (!r || (e != ENOTEMPTY && e != EEXIST))
			err("rename %s over non-empty %s: %s", pa, pb, r ? strerror(e) : "succeeded");
		return;
	}
	if (r) {
		err("rename %s %s: %s", pa, pb, strerror(e));
		return;
	}
	dirs[b] = dirs[a];
	dirs[a] = 0;
}

static void op_symlink(int i)
{
	char p[4096], tgt[1100], got[1200];
	size_t len, k;
	ssize_t n;

	path(p, mydir, 'l', i);
	if (links[i]) {
		n = readlink(p, got, sizeof(got));
		if (n < 0 || (size_t)n != strlen(links[i]) ||
		    memcmp(got, links[i], n))
			err("readlink %s: %s", p, n < 0 ? strerror(errno) : "target differs");
		if (unlink(p))
			err("unlink %s: %s", p, strerror(errno));
		free(links[i]);
		links[i] = NULL;
		return;
	}
	len = 1 + (rn(2) ? rn(59) : rn(1000));
	for (k = 0; k < len; k++)
		tgt[k] = 'a' + rn(26);
	tgt[len] = 0;
	if (symlink(tgt, p)) {
		err("symlink %s: %s", p, strerror(errno));
		return;
	}
	links[i] = strdup(tgt);
}

/* The private directory holds exactly the model's names. */
static void verify_all(const char *why)
{
	char want[NFILE + NDIR + NLINK][16], name[16];
	int nwant = 0, i, found[NFILE + NDIR + NLINK] = { 0 };
	DIR *d;
	struct dirent *de;

	for (i = 0; i < NFILE; i++) {
		verify_file(i, why);
		if (files[i])
			snprintf(want[nwant++], 16, "f%d", i);
	}
	for (i = 0; i < NDIR; i++)
		if (dirs[i])
			snprintf(want[nwant++], 16, "d%d", i);
	for (i = 0; i < NLINK; i++)
		if (links[i])
			snprintf(want[nwant++], 16, "l%d", i);
	d = opendir(mydir);
	if (!d) {
		err("%s: opendir %s: %s", why, mydir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(name, sizeof(name), "%.15s", de->d_name);
		for (i = 0; i < nwant; i++)
			if (!strcmp(name, want[i]) && !found[i])
				break;
		if (i == nwant)
			err("%s: readdir %s shows %s (or twice), not in the model", why, mydir, de->d_name);
		else
			found[i] = 1;
	}
	closedir(d);
	for (i = 0; i < nwant; i++)
		if (!found[i])
			err("%s: readdir %s misses %s", why, mydir, want[i]);
}

/* ---- the shared directory: races, no model ---- */

static int race_ok(int e)
{
	return e == ENOENT || e == EEXIST || e == ENOTEMPTY || e == ENOTDIR ||
	       e == EISDIR;
}

static void shared_op(void)
{
	static unsigned char buf[1 << 15];
	char a[4096], b[4096];
	int op = rn(9), fd, r = 0;
	const char *what = "";

	snprintf(a, sizeof(a), "%s/s%u", shdir, rn(NSHARED));
	snprintf(b, sizeof(b), "%s/s%u", shdir, rn(NSHARED));
	errno = 0;
	switch (op) {
	case 0:
	case 1:
		what = "write";
		fd = open(a, O_RDWR | O_CREAT, 0644);
		if (fd < 0) {
			r = -1;
			break;
		}
		memset(buf, me + 'A', sizeof(buf));
		if (pwrite(fd, buf, 1 + rn(sizeof(buf)), rn(maxsize)) < 0)
			r = -1;
		if (!rn(4) && fsync(fd))
			r = -1;
		close(fd);
		break;
	case 2:
		what = "read";
		fd = open(a, O_RDONLY);
		if (fd < 0) {
			r = -1;
			break;
		}
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			;
		close(fd);
		break;
	case 3:
		what = "truncate";
		r = truncate(a, rn(maxsize));
		break;
	case 4:
		what = "rename";
		r = rename(a, b);
		break;
	case 5:
		what = "link";
		r = link(a, b);
		break;
	case 6:
		what = "unlink";
		r = unlink(a);
		if (r && errno == EISDIR)
			r = rmdir(a);
		break;
	case 7:
		what = "mkdir";
		r = mkdir(a, 0755);
		break;
	case 8:
		what = "symlink";
		r = symlink(b, a);
		break;
	}
	/* EPERM: unlink/link on a directory; EINVAL: rename a dir into itself */
	if (r < 0 && !race_ok(errno) &&
	    !(errno == EPERM && (op == 5 || op == 6)) &&
	    !(errno == ELOOP && (op <= 3)))
		err("shared %s %s %s: %s", what, a, b, strerror(errno));
}

static void run(int ops)
{
	int k;

	for (nops = 0; nops < ops; nops++) {
		unsigned int c = rn(100);

		if (c < 25) {
			shared_op();
		} else if (c < 40) {
			op_write(rn(NFILE), 0);
		} else if (c < 45) {
			op_mmap(rn(NFILE));
		} else if (c < 50) {
			int i = rn(NFILE);

			if (!files[i])
				op_write(i, 1);
			else
				verify_file(i, "read");
		} else if (c < 57) {
			op_truncate(rn(NFILE));
		} else if (c < 64) {
			op_unlink(rn(NFILE));
		} else if (c < 69) {
			op_link(rn(NFILE), rn(NFILE));
		} else if (c < 76) {
			op_rename_file(rn(NFILE), rn(NFILE));
		} else if (c < 84) {
			op_dir(rn(NDIR));
		} else if (c < 88) {
			op_rename_dir(rn(NDIR), rn(NDIR));
		} else if (c < 95) {
			op_symlink(rn(NLINK));
		} else if (c < 97) {
			k = open(mydir, O_RDONLY | O_DIRECTORY);
			if (k < 0 || fsync(k))
				err("fsync dir %s: %s", mydir, strerror(errno));
			if (k >= 0)
				close(k);
		} else {
			verify_all("check");
		}
	}
	verify_all("final");
}

int main(int argc, char **argv)
{
	unsigned long long seed = 0;
	int procs = 4, ops = 3000, c, i, status, bad = 0;
	struct timespec t0, t1;

	while ((c = getopt(argc, argv, "s:p:n:m:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'n':
			ops = atoi(optarg);
			break;
		case 'm':
			maxsize = strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	top = argv[optind];
	if (!seed) {
		struct timeval tv;

		gettimeofday(&tv, NULL);
		seed = tv.tv_sec ^ tv.tv_usec;
	}
	printf("seed=%llu procs=%d ops=%d maxsize=%zu\n", seed, procs, ops, maxsize);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mkdir(top, 0755) && errno != EEXIST) {
		perror(top);
		return 2;
	}
	snprintf(shdir, sizeof(shdir), "%s/shared", top);
	if (mkdir(shdir, 0755) && errno != EEXIST) {
		perror(shdir);
		return 2;
	}
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			me = i;
			rng = (seed * 1000 + i) * 0x9e3779b97f4a7c15ULL | 1;
			snprintf(mydir, sizeof(mydir), "%s/p%d", top, i);
			if (mkdir(mydir, 0755)) {
				err("mkdir %s: %s", mydir, strerror(errno));
				_exit(1);
			}
			run(ops);
			_exit(errors ? 1 : 0);
		}
	}
	for (i = 0; i < procs; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("stress: ops=%ld time=%.1fs failed-procs=%d\n", (long)procs * ops,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, bad);
	return bad ? 1 : 0;
usage:
	fprintf(stderr, "usage: stress [-s SEED] [-p PROCS] [-n OPS] [-m MAXSIZE] DIR\n");
	return 2;
}
