/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workloads run as "NAME MIB READYFILE" with MIB MiB of private anonymous
 * memory: the arguments checked and the memory mapped.
 */
#ifndef CRIB_MIBARG_H
#define CRIB_MIBARG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/*
 * The memory (*@len bytes), or NULL: bad usage said on stderr (*@status
 * 2), or no memory (*@status 1).
 */
static inline uint64_t *map_mib_arg(int argc, char **argv, const char *name, size_t *len,
				    int *status)
{
	void *mem;

	if (argc != 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: %s MIB READYFILE\n", name);
		*status = 2;
		return NULL;
	}
	*len = (size_t)atoi(argv[1]) << 20;
	mem = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*status = 1;
	return mem == MAP_FAILED ? NULL : mem;
}

#endif /* CRIB_MIBARG_H */
