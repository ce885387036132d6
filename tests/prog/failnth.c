// SPDX-License-Identifier: GPL-2.0
/*
 * failnth - fail each allocation of one filesystem operation in turn
 * (the kernel's systematic fault injection, /proc/thread-self/fail-nth)
 * and check that what the operation reported is what the filesystem kept.
 *
 *   failnth [-nvx] [-m MAX] [-s STRIDE] OP PATH [MNT]
 *
 * For N = 1, 2, ...: PATH is put back in OP's starting state (no
 * injection), N is written to /proc/thread-self/fail-nth, OP runs once,
 * the counter is read back and cleared, and OP's result is checked (no
 * injection).  When the counter is still armed after OP, OP met fewer
 * than N fault points: the sweep is complete.  The fault points are the
 * ones the debug kernel's failslab and fail_page_alloc attributes let
 * through (make them count GFP_KERNEL and order-0 allocations:
 * ignore-gfp-wait N, min-order 0).  -s STRIDE tries N = 1, 1 + STRIDE,
 * 1 + 2 STRIDE, ... (a long operation in fewer steps); -m MAX stops there.
 * -n runs one step without injection (the checks on any kernel).  -x is
 * the checker's own test: the step claims success without doing the
 * operation (for mount: claims failure after mounting), and the check
 * must call that WRONG.
 *
 * OPs (PATH is a directory on the filesystem under test, or a file):
 *   setxattr   DIR/x: user.big of 700 bytes (an xattr block); success:
 *              the value reads back; failure: the name is absent
 *   replace    DIR/x holds user.big = A; set it to B; success: B;
 *              failure: A
 *   acl        DIR/x: system.posix_acl_access with a named user;
 *              success: it reads back byte for byte; failure: absent
 *   create     DIR/d holds 40 names of 60 bytes (indexed, 1 KiB blocks);
 *              create 24 more (a leaf splits); each create that
 *              returned success must exist, each that failed must not,
 *              and the 40 must all still be there
 *   rename     DIR/d as for create, DIR/s holds 24 files; move each to a
 *              new name in DIR/d (a leaf splits); each rename that
 *              returned success must have the file (same inode, one
 *              link) under the new name only, each that failed under the
 *              old name only; the 40 must all still be there
 *   punch      DIR/p: 64 KiB of a pattern; punch 5000..25000; success:
 *              zeros there; failure: each byte the pattern or zero;
 *              outside: the pattern always
 *   write      DIR/w: pwrite 48 KiB at 0 (direct, IND blocks) and fsync;
 *              success: the bytes read back; failure: an error
 *   truncate   DIR/t: 300 KiB (IND and DIND blocks); truncate to 3000;
 *              success: size 3000 and the first 3000 bytes kept;
 *              failure: size 300 KiB or 3000, the first 3000 kept
 *   mount      PATH is a block device, MNT a directory: mount(2) it as
 *              ext2hole (user_xattr,acl); success: it is unmounted
 *              again; failure: an errno, and a mount without injection
 *              then succeeds (no step may leave it mounted or damaged)
 *
 * An operation that fails must fail with an errno, and the filesystem
 * must stay writable: ENOMEM is not damage.  Prints one line a step with
 * -v, and a summary "failnth OP: N steps, K failed (errno counts),
 * 0 wrong".  Exit 0 ok, 1 a wrong result, 2 setup error (including a
 * kernel without fail-nth).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

#include "common.h"

#define NAMES0		40
#define NAMES_ADD	24
#define NAMELEN		60
#define PUNCH_SIZE	(64 * 1024)
#define PUNCH_OFF	5000
#define PUNCH_LEN	20000
#define WRITE_LEN	(48 * 1024)
#define TRUNC_BIG	(300 * 1024)
#define TRUNC_SMALL	3000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *op, *top, *mnt;
static int verbose;
static int nthfd = -1;

/* a failed call that is not the behaviour under test: exit 2 (common.h) */
#define die(...) die_setup("failnth", op, __VA_ARGS__)

static void arm(long n)
{
	char b[32];
	int len = snprintf(b, sizeof(b), "%ld", n);

	if (nthfd < 0)
		return;	/* -n */
	if (pwrite(nthfd, b, len, 0) != len)
		die("write fail-nth");
}

/* read the counter back and clear it: 1 if it fired (reads 0) */
static int disarm(void)
{
	char b[32] = "";
	ssize_t r;

	if (nthfd < 0)
		return 0;	/* -n */
	r = pread(nthfd, b, sizeof(b) - 1, 0);
	if (r < 0)
		die("read fail-nth");
	b[r] = 0;
	if (pwrite(nthfd, "0", 1, 0) != 1)
		die("clear fail-nth");
	return atol(b) == 0;
}

static void path(char *buf, const char *name)
{
	snprintf(buf, 4096, "%s/%s", top, name);
}

static void fill(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(((i * 31) ^ seed) | 1);	/* never 0 */
}

static void write_file(const char *p, const void *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd))
		die("write %s", p);
	close(fd);
}

static ssize_t read_file(const char *p, void *buf, size_t len)
{
	int fd = open(p, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return -1;	/* the check says what is wrong */
	/* what is on disk, where the page cache is clean */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	r = pread(fd, buf, len, 0);
	close(fd);
	return r;
}

/* --- the operations: setup (no injection), run (injected), check ------- */

static unsigned char val_a[700], val_b[700], buf[TRUNC_BIG];
static unsigned char acl_val[] = {
	/* POSIX ACL xattr v2: user::rw- user:1000:r-- group::r-- mask::r-- other::--- */
	2, 0, 0, 0,
	1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
	2, 0, 4, 0, 0xe8, 0x03, 0, 0,
	4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
};
static int created[NAMES_ADD];
static ino_t src_ino[NAMES_ADD];
static char why[256];

static void dname(char *b, int i)
{
	char n[NAMELEN + 1];

	snprintf(n, sizeof(n), "n%03d-", i);
	memset(n + 5, 'q', NAMELEN - 5);
	n[NAMELEN] = 0;
	snprintf(b, 4096, "%s/d/%s", top, n);
}

/* rename's sources: DIR/s/fNN */
static void sname(char *b, int i)
{
	snprintf(b, 4096, "%s/s/f%02d", top, i);
}

static void setup(void)
{
	char p[4096];
	int i, fd;

	if (!strcmp(op, "setxattr") || !strcmp(op, "acl")) {
		path(p, "x");
		write_file(p, "x", 1);
		removexattr(p, "user.big");
		removexattr(p, "system.posix_acl_access");
	} else if (!strcmp(op, "replace")) {
		path(p, "x");
		write_file(p, "x", 1);
		if (setxattr(p, "user.big", val_a, sizeof(val_a), 0))
			die("setxattr A");
	} else if (!strcmp(op, "create") || !strcmp(op, "rename")) {
		path(p, "d");
		for (i = 0; i < NAMES0 + NAMES_ADD; i++) {
			dname(p, i);
			unlink(p);
		}
		path(p, "d");
		rmdir(p);
		if (mkdir(p, 0755))
			die("mkdir %s", p);
		for (i = 0; i < NAMES0; i++) {
			dname(p, i);
			fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0)
				die("create %s", p);
			close(fd);
		}
		if (!strcmp(op, "rename")) {
			struct stat st;

			path(p, "s");
			mkdir(p, 0755);
			for (i = 0; i < NAMES_ADD; i++) {
				sname(p, i);
				write_file(p, p, strlen(p));
				if (stat(p, &st))
					die("stat %s", p);
				src_ino[i] = st.st_ino;
			}
		}
	} else if (!strcmp(op, "punch")) {
		path(p, "p");
		write_file(p, buf, PUNCH_SIZE);
	} else if (!strcmp(op, "write")) {
		path(p, "w");
		unlink(p);
	} else if (!strcmp(op, "truncate")) {
		path(p, "t");
		write_file(p, buf, TRUNC_BIG);
	}
	sync();
}

/* the operation; returns 0 or an errno */
static int run(void)
{
	char p[4096];
	int i, fd, e = 0;

	if (!strcmp(op, "setxattr")) {
		path(p, "x");
		return setxattr(p, "user.big", val_b, sizeof(val_b), 0) ? errno : 0;
	}
	if (!strcmp(op, "replace")) {
		path(p, "x");
		return setxattr(p, "user.big", val_b, sizeof(val_b), XATTR_REPLACE) ? errno : 0;
	}
	if (!strcmp(op, "acl")) {
		path(p, "x");
		return setxattr(p, "system.posix_acl_access", acl_val, sizeof(acl_val), 0) ?
		       errno : 0;
	}
	if (!strcmp(op, "create")) {
		for (i = 0; i < NAMES_ADD; i++) {
			dname(p, NAMES0 + i);
			fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
			created[i] = fd >= 0 ? 1 : -errno;
			if (fd >= 0)
				close(fd);
			else if (!e)
				e = errno;
		}
		return e;
	}
	if (!strcmp(op, "rename")) {
		char q[4096];

		for (i = 0; i < NAMES_ADD; i++) {
			sname(q, i);
			dname(p, NAMES0 + i);
			created[i] = rename(q, p) ? -errno : 1;
			if (created[i] < 0 && !e)
				e = -created[i];
		}
		return e;
	}
	if (!strcmp(op, "punch")) {
		path(p, "p");
		fd = open(p, O_WRONLY);
		if (fd < 0)
			return errno;
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      PUNCH_OFF, PUNCH_LEN))
			e = errno;
		close(fd);
		return e;
	}
	if (!strcmp(op, "write")) {
		path(p, "w");
		fd = open(p, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return errno;
		if (pwrite(fd, buf, WRITE_LEN, 0) != WRITE_LEN)
			e = errno ? errno : EIO;
		else if (fsync(fd))
			e = errno;
		close(fd);
		return e;
	}
	if (!strcmp(op, "truncate")) {
		path(p, "t");
		return truncate(p, TRUNC_SMALL) ? errno : 0;
	}
	if (!strcmp(op, "mount"))
		return mount(top, mnt, "ext2hole", 0, "user_xattr,acl") ? errno : 0;
	return EINVAL;
}

/* 0 when what the filesystem holds agrees with run()'s result e */
static int check(int e)
{
	static unsigned char got[TRUNC_BIG];
	char p[4096];
	struct stat st;
	ssize_t r;
	int i;

	why[0] = 0;
	if (!strcmp(op, "setxattr") || !strcmp(op, "replace") || !strcmp(op, "acl")) {
		const char *name = strcmp(op, "acl") ? "user.big" : "system.posix_acl_access";
		const unsigned char *want = strcmp(op, "acl") ? val_b : acl_val;
		size_t wlen = strcmp(op, "acl") ? sizeof(val_b) : sizeof(acl_val);

		path(p, "x");
		r = getxattr(p, name, got, sizeof(got));
		if (!e) {
			if (r != (ssize_t)wlen || memcmp(got, want, wlen))
				snprintf(why, sizeof(why), "succeeded, but %s reads %zd bytes%s",
					 name, r, r == (ssize_t)wlen ? " that differ" : "");
		} else if (!strcmp(op, "replace")) {
			if (r != sizeof(val_a) || memcmp(got, val_a, sizeof(val_a)))
				snprintf(why, sizeof(why), "failed, but the old value is gone (%zd bytes)", r);
		} else if (r >= 0 || errno != ENODATA) {
			snprintf(why, sizeof(why), "failed, but %s is there (%zd bytes)", name, r);
		}
		return why[0] != 0;
	}
	if (!strcmp(op, "create")) {
		for (i = 0; i < NAMES0 + NAMES_ADD; i++) {
			int want = i < NAMES0 || created[i - NAMES0] > 0;

			dname(p, i);
			if ((stat(p, &st) == 0) != want) {
				snprintf(why, sizeof(why), "name %d: create %s, but it %s", i,
					 i < NAMES0 ? "before the step" :
					 created[i - NAMES0] > 0 ? "succeeded" : "failed",
					 want ? "is missing" : "exists");
				return 1;
			}
		}
		return 0;
	}
	if (!strcmp(op, "rename")) {
		for (i = 0; i < NAMES0 + NAMES_ADD; i++) {
			int moved = i >= NAMES0 && created[i - NAMES0] > 0;
			int hn, ho;
			char q[4096];

			dname(p, i);
			hn = stat(p, &st) == 0;
			if (i < NAMES0) {
				if (!hn) {
					snprintf(why, sizeof(why), "name %d, there before the step, is missing", i);
					return 1;
				}
				continue;
			}
			if (hn && (st.st_ino != src_ino[i - NAMES0] || st.st_nlink != 1)) {
				snprintf(why, sizeof(why), "new name %d: inode %lu with %lu links, not %lu with 1",
					 i, (unsigned long)st.st_ino, (unsigned long)st.st_nlink,
					 (unsigned long)src_ino[i - NAMES0]);
				return 1;
			}
			sname(q, i - NAMES0);
			ho = stat(q, &st) == 0;
			if (ho && (st.st_ino != src_ino[i - NAMES0] || st.st_nlink != 1)) {
				snprintf(why, sizeof(why), "old name %d: inode %lu with %lu links, not %lu with 1",
					 i - NAMES0, (unsigned long)st.st_ino,
					 (unsigned long)st.st_nlink, (unsigned long)src_ino[i - NAMES0]);
				return 1;
			}
			if (hn != moved || ho == moved) {
				snprintf(why, sizeof(why), "rename %d %s, but the new name %s and the old %s",
					 i - NAMES0, moved ? "succeeded" : "failed",
					 hn ? "exists" : "is missing", ho ? "exists" : "is missing");
				return 1;
			}
		}
		return 0;
	}
	if (!strcmp(op, "punch")) {
		path(p, "p");
		r = read_file(p, got, PUNCH_SIZE);
		if (r != PUNCH_SIZE) {
			snprintf(why, sizeof(why), "read %zd of %d bytes", r, PUNCH_SIZE);
			return 1;
		}
		for (i = 0; i < PUNCH_SIZE; i++) {
			int in = i >= PUNCH_OFF && i < PUNCH_OFF + PUNCH_LEN;

			if (got[i] == buf[i] && !(in && !e))
				continue;
			if (!got[i] && in)
				continue;
			snprintf(why, sizeof(why), "punch %s, byte %d is 0x%02x (pattern 0x%02x)",
				 e ? "failed" : "succeeded", i, got[i], buf[i]);
			return 1;
		}
		return 0;
	}
	if (!strcmp(op, "write")) {
		if (e)
			return 0;	/* reported: the caller knows */
		path(p, "w");
		r = read_file(p, got, WRITE_LEN);
		if (r != WRITE_LEN || memcmp(got, buf, WRITE_LEN))
			snprintf(why, sizeof(why), "write and fsync succeeded, %zd bytes read back%s",
				 r, r == WRITE_LEN ? ", and they differ" : "");
		return why[0] != 0;
	}
	if (!strcmp(op, "truncate")) {
		path(p, "t");
		if (stat(p, &st))
			die("stat %s", p);
		r = read_file(p, got, TRUNC_SMALL);
		if ((!e && st.st_size != TRUNC_SMALL) ||
		    (e && st.st_size != TRUNC_SMALL && st.st_size != TRUNC_BIG))
			snprintf(why, sizeof(why), "truncate %s, size %lld",
				 e ? "failed" : "succeeded", (long long)st.st_size);
		else if (r != TRUNC_SMALL || memcmp(got, buf, TRUNC_SMALL))
			snprintf(why, sizeof(why), "the first %d bytes changed", TRUNC_SMALL);
		return why[0] != 0;
	}
	if (!strcmp(op, "mount")) {
		if (e && mount(top, mnt, "ext2hole", 0, "user_xattr,acl"))
			snprintf(why, sizeof(why), "then a mount without injection failed: %s",
				 strerror(errno));
		if (umount(mnt))
			snprintf(why, sizeof(why), "umount: %s", strerror(errno));
		return why[0] != 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char * const ops[] = { "setxattr", "replace", "acl", "create", "rename",
				     "punch", "write", "truncate", "mount" };
	long n, max = 2000, stride = 1, steps = 0, failed = 0, wrong = 0, injected = 0;
	long ecount[256] = { 0 };
	struct statvfs vs;
	size_t k;
	int opt, e, fired, i, dry = 0, lie = 0;

	while ((opt = getopt(argc, argv, "m:ns:vx")) != -1) {
		if (opt == 'n')
			dry = 1;
		else if (opt == 'x')
			lie = 1;
		else if (opt == 'm')
			max = atol(optarg);
		else if (opt == 's')
			stride = atol(optarg) > 0 ? atol(optarg) : 1;
		else if (opt == 'v')
			verbose = 1;
		else
			return 2;
	}
	if (optind + 2 != argc && optind + 3 != argc) {
		fprintf(stderr, "usage: failnth [-nvx] [-m MAX] [-s STRIDE] OP PATH [MNT] (see the program's source)\n");
		return 2;
	}
	op = argv[optind];
	top = argv[optind + 1];
	mnt = argv[optind + 2];
	if (!strcmp(op, "mount") && !mnt) {
		fprintf(stderr, "failnth: mount needs DEV MNT\n");
		return 2;
	}
	for (k = 0; k < ARRAY_SIZE(ops); k++)
		if (!strcmp(op, ops[k]))
			break;
	if (k == ARRAY_SIZE(ops)) {
		fprintf(stderr, "failnth: unknown operation %s\n", op);
		return 2;
	}
	fill(val_a, sizeof(val_a), 0x11);
	fill(val_b, sizeof(val_b), 0x5c);
	fill(buf, sizeof(buf), 0xa7);
	nthfd = dry ? -1 : open("/proc/thread-self/fail-nth", O_RDWR);
	if (!dry && nthfd < 0)
		die("/proc/thread-self/fail-nth (a kernel with CONFIG_FAULT_INJECTION)");

	for (n = 1; n <= max; n += stride) {
		setup();
		arm(n);
		if (!lie) {
			e = run();
		} else if (!strcmp(op, "mount")) {
			/* mounted, but reported as failed: the next mount is EBUSY */
			run();
			e = ENOMEM;
		} else {
			e = 0;
			if (!strcmp(op, "create") || !strcmp(op, "rename"))
				for (i = 0; i < NAMES_ADD; i++)
					created[i] = 1;
		}
		fired = disarm();
		steps++;
		injected += fired;
		if (e) {
			failed++;
			ecount[e & 255]++;
		}
		if (strcmp(op, "mount") && statvfs(top, &vs) == 0 && (vs.f_flag & ST_RDONLY)) {
			printf("failnth %s: step %ld (%s): the filesystem went read-only\n",
			       op, n, e ? strerror(e) : "success");
			wrong++;
			break;
		}
		if (check(e)) {
			printf("failnth %s: step %ld: WRONG - %s (%s)\n", op, n, why,
			       e ? strerror(e) : "success");
			wrong++;
		} else if (verbose) {
			printf("failnth %s: step %ld: %s%s\n", op, n,
			       e ? strerror(e) : "success", fired ? "" : " (not reached)");
		}
		if (!fired)
			break;
	}
	printf("failnth %s: %ld steps (%ld with a fault injected), %ld failed", op, steps,
	       injected, failed);
	for (i = 1; i < 256; i++)
		if (ecount[i])
			printf(", %s x%ld", strerror(i), ecount[i]);
	printf(", %ld wrong%s\n", wrong, n > max ? " (stopped at -m)" : "");
	return wrong ? 1 : 0;
}
