// SPDX-License-Identifier: GPL-2.0
/*
 * mksock - create a unix-domain socket inode: mksock PATH
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "usage: mksock PATH\n");
		return 2;
	}
	strcpy(sun.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		perror("mksock");
		return 1;
	}
	close(fd);
	return 0;
}
