// SPDX-License-Identifier: GPL-2.0
/*
 * dirgrow - readdir of a directory that grows (and shrinks) under the
 * reader.
 *
 *   dirgrow [-b BUF] [-n FILL] [-c ADD] [-l LEN] [-u K] [-s] [-f] [-d] [-p K] DIR
 *
 *   -n FILL  first create FILL empty files "o<number>-xxx..." of LEN bytes
 *   -l LEN   length of the names made (default 70, at most 255)
 *   -b BUF   getdents64 buffer size (default 32768)
 *   -c ADD   once half the names have come back, create ADD more
 *            ("a<number>-xxx...", LEN bytes); ENOSPC stops the adds and is
 *            reported, not failed
 *   -u K     at the same moment, delete every K-th name of the directory
 *   -s       telldir/seekdir: take the position after the first half
 *            (lseek SEEK_CUR, which must equal the last d_off), do the
 *            changes, seek the same descriptor back to it and read on
 *   -f       the same on a fresh descriptor (as an NFS server resumes from
 *            a cookie): open DIR again, lseek to the position, read on
 *   -p K     the adds and deletes run in a second process, concurrently
 *            with the reader's second half: the child creates and unlinks
 *            in turn and writes a byte to a pipe after every K changes;
 *            the reader makes one getdents64 call per byte (it does not
 *            wait for the child otherwise), then reads to the end once the
 *            child has exited.  Choose K so that the reader's second half
 *            spans the changes that matter (a split, a new index level)
 *   -d       "." and ".." may be missing (still at most once): the ext4
 *            driver reads a one-block directory in hash order with '.'
 *            and '..' at their names' hashes, and at the hashes 0 and 2
 *            once it is indexed, so a reader passing through loses them
 *
 * The names in DIR before the read (a full listing first) are the
 * originals.  Every original that still exists at the end must have come
 * back exactly once, a deleted one at most once, an added one at most
 * once, "." and ".." exactly once, nothing else ever.  d_off never goes
 * down.  Prints one line of counts and exits 0, or 1 with the counts of
 * duplicates, misses and strangers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

struct name {
	char *s;
	int seen;
	int deleted;
	int orig;
};

static struct name *names;
static size_t nnames, cap;
static int dots[2];
static long strangers, doff_back;
static int64_t last_off = -1;
static int name_len = 70;

static void die(const char *what)
{
	fprintf(stderr, "dirgrow: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(((const struct name *)a)->s, ((const struct name *)b)->s);
}

static void add_name(const char *s, int orig)
{
	if (nnames == cap) {
		cap = cap ? 2 * cap : 1024;
		names = realloc(names, cap * sizeof(*names));
		if (!names)
			die("realloc");
	}
	names[nnames].s = strdup(s);
	names[nnames].seen = 0;
	names[nnames].deleted = 0;
	names[nnames].orig = orig;
	nnames++;
}

static struct name *find(const char *s)
{
	struct name key = { .s = (char *)s };

	return bsearch(&key, names, nnames, sizeof(*names), cmp);
}

static void make_name(char *buf, char tag, long i, int len)
{
	int n = snprintf(buf, 256, "%c%07ld-", tag, i);

	while (n < len)
		buf[n++] = 'x';
	buf[n] = '\0';
}

static void create(const char *dir, const char *name)
{
	char path[4096 + 256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		die(path);
	close(fd);
}

/* Count what one getdents64 buffer returned; the number of originals. */
static long tally(char *buf, long n)
{
	long pos, orig = 0;

	for (pos = 0; pos < n;) {
		struct linux_dirent64 *d = (void *)(buf + pos);
		struct name *e;

		pos += d->d_reclen;
		if (d->d_off < last_off)
			doff_back++;
		last_off = d->d_off;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) {
			dots[d->d_name[1] == '.']++;
			continue;
		}
		e = find(d->d_name);
		if (!e) {
			if (strangers++ < 5)
				fprintf(stderr, "dirgrow: stranger '%s'\n", d->d_name);
			continue;
		}
		e->seen++;
		orig += e->orig;
	}
	return orig;
}

/* Read @fd to its end, tallying. */
static void read_to_end(int fd, char *buf, size_t bufsize)
{
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, bufsize)) > 0)
		tally(buf, n);
	if (n < 0)
		die("getdents64");
}

/*
 * Create the ADD names "a<i>..." and, in turn, unlink every @every-th
 * original (by its index in the sorted table, which the reader knows
 * too).  With @progress >= 0, write a byte there after every @pace changes.
 * Return the names added (ENOSPC/EDQUOT stop the adds), -1 on an error.
 */
static long change(const char *dir, long add, long every, int progress,
		   long pace)
{
	char name[256], path[4096 + 256];
	size_t i = 0, j = 0;
	long added = 0, done = 0, next = pace;
	int fd, adding = add > 0;

	while (adding || (every > 0 && j < nnames)) {
		if (adding) {
			make_name(name, 'a', i, name_len);
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0 && errno != ENOSPC && errno != EDQUOT) {
				perror(path);
				return -1;
			}
			if (fd < 0) {
				adding = 0;
			} else {
				close(fd);
				added++;
				done++;
				adding = ++i < (size_t)add;
			}
		}
		for (; every > 0 && j < nnames; j++) {
			if (!names[j].orig || j % every)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, names[j].s);
			if (unlink(path)) {
				perror(path);
				return -1;
			}
			done++;
			j++;
			break;
		}
		for (; progress >= 0 && done >= next; next += pace)
			if (write(progress, "", 1) != 1)
				return -1;
	}
	return added;
}

/* The adds the child made: the "a<i>" names that exist, in order. */
static long child_added(const char *dir, long add)
{
	char name[256], path[4096 + 256];
	struct stat st;
	long i;

	for (i = 0; i < add; i++) {
		make_name(name, 'a', i, name_len);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (stat(path, &st))
			break;
	}
	return i;
}

int main(int argc, char **argv)
{
	size_t bufsize = 32768, i, norig;
	long fill = 0, add = 0, every = 0, added = 0, deleted = 0, half, got;
	long dups = 0, missing = 0, extra = 0, newseen = 0, n, pace = 2;
	int len = 70, seek_same = 0, seek_fresh = 0, dots_lax = 0, concurrent = 0;
	int opt, fd;
	char name[256], *buf;
	const char *dir;
	off_t cookie = 0;
	DIR *d;
	struct dirent *de;

	while ((opt = getopt(argc, argv, "b:n:c:l:u:sfdp:")) != -1) {
		switch (opt) {
		case 'b':
			bufsize = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			fill = strtol(optarg, NULL, 0);
			break;
		case 'c':
			add = strtol(optarg, NULL, 0);
			break;
		case 'l':
			len = atoi(optarg);
			break;
		case 'u':
			every = strtol(optarg, NULL, 0);
			break;
		case 's':
			seek_same = 1;
			break;
		case 'f':
			seek_fresh = 1;
			break;
		case 'd':
			dots_lax = 1;
			break;
		case 'p':
			concurrent = 1;
			pace = strtol(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || pace < 1 || len < 10 || len > 255 || bufsize < (size_t)len + 32)
		goto usage;
	dir = argv[optind];
	name_len = len;
	buf = malloc(bufsize);
	if (!buf)
		die("malloc");

	for (i = 0; i < (size_t)fill; i++) {
		make_name(name, 'o', i, len);
		create(dir, name);
	}
	/* The originals: a full listing first. */
	d = opendir(dir);
	if (!d)
		die(dir);
	while ((errno = 0, de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			add_name(de->d_name, 1);
	if (errno)
		die("readdir");
	closedir(d);
	norig = nnames;
	/* The names that will be added, known in advance. */
	for (i = 0; i < (size_t)add; i++) {
		make_name(name, 'a', i, len);
		add_name(name, 0);
	}
	qsort(names, nnames, sizeof(*names), cmp);
	for (i = 1; i < nnames; i++)
		if (!strcmp(names[i].s, names[i - 1].s)) {
			fprintf(stderr, "dirgrow: the first listing has '%s' twice\n",
				names[i].s);
			return 1;
		}

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die(dir);
	half = norig / 2;
	got = 0;
	while (got < half) {
		n = syscall(SYS_getdents64, fd, buf, bufsize);
		if (n < 0)
			die("getdents64");
		if (!n)
			break;
		got += tally(buf, n);
	}
	if (seek_same || seek_fresh) {
		cookie = lseek(fd, 0, SEEK_CUR);
		if (cookie < 0)
			die("lseek SEEK_CUR");
		if (last_off >= 0 && cookie != last_off) {
			fprintf(stderr, "dirgrow: SEEK_CUR %lld, last d_off %lld\n",
				(long long)cookie, (long long)last_off);
			return 1;
		}
	}

	/* The changes, while the reader is half-way. */
	if (concurrent) {
		int pfd[2], st;
		pid_t pid;
		char c;

		if (seek_same || seek_fresh)
			goto usage;
		if (pipe(pfd))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(pfd[0]);
			_exit(change(dir, add, every, pfd[1], pace) < 0);
		}
		close(pfd[1]);
		/* one getdents64 call per @pace changes, while the child runs */
		while (read(pfd[0], &c, 1) == 1) {
			n = syscall(SYS_getdents64, fd, buf, bufsize);
			if (n < 0)
				die("getdents64");
			if (n)
				tally(buf, n);
		}
		close(pfd[0]);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "dirgrow: the changing process failed\n");
			return 1;
		}
		read_to_end(fd, buf, bufsize);
		added = child_added(dir, add);
	} else {
		added = change(dir, add, every, -1, 1);
	}
	if (added < 0)
		return 1;
	for (i = 0; every > 0 && i < nnames; i++)
		if (names[i].orig && !(i % every)) {
			names[i].deleted = 1;
			deleted++;
		}

	if (concurrent) {
		/* read to the end above */
	} else if (seek_fresh) {
		int fd2 = open(dir, O_RDONLY | O_DIRECTORY);

		if (fd2 < 0)
			die(dir);
		if (lseek(fd2, cookie, SEEK_SET) != cookie)
			die("lseek SEEK_SET (fresh)");
		last_off = -1;
		read_to_end(fd2, buf, bufsize);
		close(fd2);
	} else {
		if (seek_same && lseek(fd, cookie, SEEK_SET) != cookie)
			die("lseek SEEK_SET");
		read_to_end(fd, buf, bufsize);
	}
	close(fd);

	for (i = 0; i < nnames; i++) {
		struct name *e = &names[i];

		if (!e->orig) {
			if (e->seen > 1)
				extra++;
			newseen += e->seen > 0;
			continue;
		}
		if (e->seen > 1) {
			if (dups++ < 3)
				fprintf(stderr, "dirgrow: '%s' came back %d times\n",
					e->s, e->seen);
		} else if (!e->seen && !e->deleted) {
			if (missing++ < 3)
				fprintf(stderr, "dirgrow: '%s' never came back\n",
					e->s);
		}
	}
	printf("dirgrow: buf=%zu originals=%zu added=%ld deleted=%ld: duplicates=%ld missing=%ld new-seen=%ld new-twice=%ld dots=%d/%d strangers=%ld d_off-back=%ld\n",
	       bufsize, norig, added, deleted, dups, missing, newseen, extra,
	       dots[0], dots[1], strangers, doff_back);
	if (added < add)
		printf("dirgrow: %ld of %ld adds, then ENOSPC\n", added, add);
	return dups || missing || extra || strangers || doff_back ||
	       dots[0] > 1 || dots[1] > 1 ||
	       (!dots_lax && (dots[0] != 1 || dots[1] != 1));

usage:
	fprintf(stderr, "usage: dirgrow [-b BUF] [-n FILL] [-c ADD] [-l LEN] [-u K] [-s] [-f] [-d] [-p] DIR\n");
	return 2;
}
