// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with many mappings: N one-page anonymous VMAs that alternate
 * between read-only and read-write (so none merge), each holding its index;
 * a shared anonymous page; a PROT_NONE guard; and a private writable
 * mapping of its own executable whose first page it modifies (a copied
 * page inside a file mapping).  Writes the address of the first one-page
 * VMA (hex) to READYFILE, then sleeps.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ready.h"

#define PAGE 4096u

int main(int argc, char **argv)
{
	unsigned char *area, *shared, *exe;
	char text[32];
	size_t i, n;
	int fd;

	if (argc != 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: maps N READYFILE\n");
		return 2;
	}
	n = (size_t)atoi(argv[1]);
	/* One reservation, then every page its own VMA by its protection. */
	area = mmap(NULL, (n + 1) * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++) {
		if (mprotect(area + i * PAGE, PAGE, PROT_READ | PROT_WRITE))
			return 1;
		memcpy(area + i * PAGE, &i, sizeof(i));
		if (i % 2 && mprotect(area + i * PAGE, PAGE, PROT_READ))
			return 1;
	}
	/* the last page of the reservation stays PROT_NONE: a guard */

	shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 1;
	strcpy((char *)shared, "shared anonymous page");

	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return 1;
	exe = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (exe == MAP_FAILED)
		return 1;
	close(fd);
	memcpy(exe, "COPIED", 6);

	snprintf(text, sizeof(text), "%lx\n", (unsigned long)area);
	if (write_ready(argv[2], text))
		return 1;
	for (;;)
		pause();
}
