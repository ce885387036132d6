// SPDX-License-Identifier: GPL-2.0
/*
 * qspace - a user's block usage as the kernel counts it
 *
 *   qspace DEVICE UID
 *
 * Prints the KiB (rounded up) that quotactl(Q_GETQUOTA) reports for UID
 * on the filesystem of DEVICE: the blocks charged plus those reserved for
 * data not allocated yet (delayed allocation), which is what the limits
 * are checked against.  repquota(8) reads the quota file instead, which
 * holds the charged blocks only.
 *
 * Exit 0, or 2 when quotactl fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/quota.h>
#include <sys/types.h>

int main(int argc, char **argv)
{
	struct dqblk dq;

	if (argc != 3) {
		fprintf(stderr, "usage: qspace DEVICE UID\n");
		return 2;
	}
	memset(&dq, 0, sizeof(dq));
	if (quotactl(QCMD(Q_GETQUOTA, USRQUOTA), argv[1],
		     (int)strtol(argv[2], NULL, 0), (caddr_t)&dq)) {
		fprintf(stderr, "qspace: quotactl(%s): %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	printf("%llu\n", ((unsigned long long)dq.dqb_curspace + 1023) / 1024);
	return 0;
}
