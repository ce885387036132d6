// SPDX-License-Identifier: GPL-2.0
/*
 * runas - run a command as another user: runas UID GID CMD [ARGS...]
 *
 * Drops supplementary groups and all capabilities (setuid to non-zero).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID CMD [ARGS...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 0);
	gid = strtoul(argv[2], NULL, 0);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror("runas: exec");
	return 127;
}
