// SPDX-License-Identifier: GPL-2.0
/*
 * memsqueeze - put the page cache under memory pressure, then let go
 *
 * usage: memsqueeze LEFT_MIB
 *
 * Allocates and touches anonymous memory 4 MiB at a time until
 * MemAvailable (/proc/meminfo) falls below LEFT_MIB, so that reclaim
 * drops every clean, unreferenced page-cache page it can, then frees it
 * all.  Stops short of the OOM killer: never more than MemTotal, and each
 * step first checks that MemAvailable is above LEFT_MIB plus the step.
 * Prints "memsqueeze: N MiB touched, MemAvailable A -> B MiB"; exit status
 * 0, or 1 when /proc/meminfo cannot be read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define STEP_MIB	4

static long meminfo_mib(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n) && line[n] == ':') {
			kib = strtol(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kib < 0 ? -1 : kib / 1024;
}

int main(int argc, char **argv)
{
	long left, total, before, avail, done = 0;
	size_t step = (size_t)STEP_MIB << 20;
	char **chunks;
	long i, max;

	if (argc != 2) {
		fprintf(stderr, "usage: memsqueeze LEFT_MIB\n");
		return 2;
	}
	left = strtol(argv[1], NULL, 10);
	total = meminfo_mib("MemTotal");
	before = meminfo_mib("MemAvailable");
	if (total < 0 || before < 0) {
		printf("memsqueeze: cannot read /proc/meminfo\n");
		return 1;
	}
	max = total / STEP_MIB;
	chunks = calloc(max, sizeof(*chunks));
	if (!chunks)
		return 1;
	avail = before;
	for (i = 0; i < max; i++) {
		avail = meminfo_mib("MemAvailable");
		if (avail < 0 || avail < left + STEP_MIB)
			break;
		chunks[i] = mmap(NULL, step, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (chunks[i] == MAP_FAILED) {
			chunks[i] = NULL;
			break;
		}
		memset(chunks[i], 0x5a, step);
		done += STEP_MIB;
	}
	avail = meminfo_mib("MemAvailable");
	for (i = 0; i < max; i++)
		if (chunks[i])
			munmap(chunks[i], step);
	free(chunks);
	printf("memsqueeze: %ld MiB touched, MemAvailable %ld -> %ld MiB\n",
	       done, before, avail);
	return 0;
}
