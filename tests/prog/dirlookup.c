// SPDX-License-Identifier: GPL-2.0
/*
 * dirlookup - look up, create or remove a list of names in one directory.
 *
 *   dirlookup [-s|-e|-c|-u] [-g GEN] DIR NAMES
 *
 * NAMES is a file with one name a line (or, with -g, "gen:PREFIX:FIRST:N"
 * stands for PREFIX followed by FIRST .. FIRST+N-1).  Each name is handled
 * relative to DIR with fstatat/openat/unlinkat, in one process, so the
 * time measured is the filesystem's lookups and not fork():
 *   -s  stat every name, each must exist (the default)
 *   -e  stat every name, each must be missing (ENOENT)
 *   -c  create every name (O_CREAT|O_EXCL, empty file)
 *   -u  unlink every name
 * Prints "dirlookup: N names, ok=K bad=B usec=T" and the first few bad
 * names; exits 0 when every name behaved, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int one(int dfd, const char *name, char mode)
{
	struct stat st;
	int fd;

	switch (mode) {
	case 's':
		return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	case 'e':
		return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		       errno == ENOENT;
	case 'c':
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			return 0;
		close(fd);
		return 1;
	default:
		return unlinkat(dfd, name, 0) == 0;
	}
}

int main(int argc, char **argv)
{
	long ok = 0, bad = 0, n = 0, first = 0, count = -1, i;
	char line[512], prefix[256] = "";
	char mode = 's';
	long long t0, t1;
	FILE *f = NULL;
	int dfd, opt;

	while ((opt = getopt(argc, argv, "secu")) != -1)
		mode = (char)opt;
	if (optind + 2 != argc || mode == '?') {
		fprintf(stderr, "usage: dirlookup [-s|-e|-c|-u] DIR NAMES|gen:PREFIX:FIRST:N\n");
		return 2;
	}
	dfd = open(argv[optind], O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		perror(argv[optind]);
		return 2;
	}
	if (!strncmp(argv[optind + 1], "gen:", 4)) {
		char *p = argv[optind + 1] + 4, *c = strchr(p, ':');

		if (!c || (size_t)(c - p) >= sizeof(prefix) ||
		    sscanf(c + 1, "%ld:%ld", &first, &count) != 2) {
			fprintf(stderr, "dirlookup: bad generator %s\n", p);
			return 2;
		}
		memcpy(prefix, p, c - p);
		prefix[c - p] = 0;
	} else {
		f = fopen(argv[optind + 1], "r");
		if (!f) {
			perror(argv[optind + 1]);
			return 2;
		}
	}

	t0 = now_us();
	for (i = 0;; i++) {
		if (f) {
			size_t len;

			if (!fgets(line, sizeof(line), f))
				break;
			len = strlen(line);
			if (len && line[len - 1] == '\n')
				line[--len] = 0;
			if (!len)
				continue;
		} else {
			if (i >= count)
				break;
			snprintf(line, sizeof(line), "%s%ld", prefix, first + i);
		}
		n++;
		if (one(dfd, line, mode)) {
			ok++;
		} else {
			if (bad < 5)
				fprintf(stderr, "dirlookup: -%c %s: %s\n", mode,
					line, strerror(errno));
			bad++;
		}
	}
	t1 = now_us();
	printf("dirlookup: %ld names, ok=%ld bad=%ld usec=%lld\n", n, ok, bad,
	       t1 - t0);
	return bad ? 1 : 0;
}
