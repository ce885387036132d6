// SPDX-License-Identifier: GPL-2.0
/*
 * xattrs - the extended-attribute calls' edge cases, one per command;
 * prints "ok" or what went wrong, exits 0 only on "ok".
 *
 *   xattrs flags FILE        XATTR_CREATE on an existing name -> EEXIST,
 *                            XATTR_REPLACE on a missing one -> ENODATA,
 *                            both leave the value alone
 *   xattrs erange FILE NAME  getxattr / listxattr with a buffer one byte
 *                            short -> ERANGE; exact sizes -> the value/list
 *   xattrs fill FILE SIZE    user.fNNN of SIZE bytes until ENOSPC; then
 *                            every one reads back; prints how many fitted
 *   xattrs toolong FILE      a 256-byte name -> ERANGE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

static char val[70000], buf[70000];

static int bad(const char *what, int err)
{
	printf("%s: %s\n", what, err ? strerror(err) : "wrong result");
	return 1;
}

static int flags(const char *f)
{
	ssize_t n;

	if (setxattr(f, "user.flags", "one", 3, XATTR_CREATE))
		return bad("create", errno);
	if (!setxattr(f, "user.flags", "two", 3, XATTR_CREATE) || errno != EEXIST)
		return bad("create over an existing name", errno);
	if (!setxattr(f, "user.nosuch", "x", 1, XATTR_REPLACE) || errno != ENODATA)
		return bad("replace of a missing name", errno);
	if (!removexattr(f, "user.nosuch") || errno != ENODATA)
		return bad("remove of a missing name", errno);
	n = getxattr(f, "user.flags", buf, sizeof(buf));
	if (n != 3 || memcmp(buf, "one", 3))
		return bad("value after the refused calls", 0);
	if (setxattr(f, "user.flags", "three", 5, XATTR_REPLACE))
		return bad("replace", errno);
	n = getxattr(f, "user.flags", buf, sizeof(buf));
	if (n != 5 || memcmp(buf, "three", 5))
		return bad("value after replace", 0);
	if (removexattr(f, "user.flags"))
		return bad("remove", errno);
	if (getxattr(f, "user.flags", buf, sizeof(buf)) >= 0 || errno != ENODATA)
		return bad("get after remove", errno);
	return 0;
}

static int erange(const char *f, const char *name)
{
	ssize_t n = getxattr(f, name, NULL, 0), m;

	if (n < 1)
		return bad("size of the value", errno);
	if (getxattr(f, name, buf, n - 1) >= 0 || errno != ERANGE)
		return bad("get with a short buffer", errno);
	if (getxattr(f, name, buf, n) != n)
		return bad("get with the exact size", errno);
	m = listxattr(f, NULL, 0);
	if (m < 1)
		return bad("size of the list", errno);
	if (listxattr(f, buf, m - 1) >= 0 || errno != ERANGE)
		return bad("list with a short buffer", errno);
	if (listxattr(f, buf, m) != m || buf[m - 1])
		return bad("list with the exact size", errno);
	return 0;
}

static int fill(const char *f, size_t size)
{
	char name[32];
	int i, k;

	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "user.f%05d", i);
		memset(val, 'a' + i % 26, size);
		if (setxattr(f, name, val, size, XATTR_CREATE)) {
			if (errno != ENOSPC)
				return bad("set", errno);
			break;
		}
	}
	for (k = 0; k < i; k++) {
		snprintf(name, sizeof(name), "user.f%05d", k);
		memset(val, 'a' + k % 26, size);
		if (getxattr(f, name, buf, sizeof(buf)) != (ssize_t)size ||
		    memcmp(buf, val, size))
			return bad("read back after ENOSPC", errno);
	}
	snprintf(name, sizeof(name), "user.f%05d", i);
	if (getxattr(f, name, buf, sizeof(buf)) >= 0 || errno != ENODATA)
		return bad("the refused one exists", errno);
	printf("fitted %d\n", i);
	return 0;
}

int main(int argc, char **argv)
{
	char name[300];
	int r = 2;

	if (argc == 3 && !strcmp(argv[1], "flags")) {
		r = flags(argv[2]);
	} else if (argc == 4 && !strcmp(argv[1], "erange")) {
		r = erange(argv[2], argv[3]);
	} else if (argc == 4 && !strcmp(argv[1], "fill")) {
		r = fill(argv[2], strtoul(argv[3], NULL, 0));
	} else if (argc == 3 && !strcmp(argv[1], "toolong")) {
		memcpy(name, "user.", 5);
		memset(name + 5, 'n', 256);
		name[261] = 0;
		r = !setxattr(argv[2], name, "x", 1, 0) || errno != ERANGE ?
		    bad("256-byte name", errno) : 0;
	} else {
		fprintf(stderr, "usage: see the top of tests/prog/xattrs.c\n");
		return 2;
	}
	if (!r)
		printf("ok\n");
	return r;
}
