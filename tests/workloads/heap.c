// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a large heap: MIB MiB of anonymous memory, two pages in
 * three filled with a pseudo-random pattern and the third never touched.
 * It writes "ADDR LEN SUM" (hex, decimal, hex; see memsum.h) to READYFILE,
 * then re-checks the sum every second and exits with status 3, after
 * writing READYFILE.bad, if the memory ever changed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "memsum.h"
#include "mibarg.h"
#include "ready.h"

#define PAGE 4096u
#define WORDS (PAGE / 8)

static bool page_touched(size_t i)
{
	return i % 3 != 2;
}

static void fill(uint64_t *mem, size_t pages)
{
	uint64_t x;
	size_t i, j;

	for (i = 0; i < pages; i++) {
		if (!page_touched(i))
			continue;
		x = 0x9e3779b97f4a7c15ull * (i + 1);
		for (j = 0; j < WORDS; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			mem[i * WORDS + j] = x;
		}
	}
}

/* Untouched pages count as zeros without being read (reading would map them). */
static uint64_t sum(const uint64_t *mem, size_t pages)
{
	uint64_t h = MEMSUM_INIT;
	size_t i;

	for (i = 0; i < pages; i++)
		h = page_touched(i) ? memsum_words(h, mem + i * WORDS, WORDS) :
				      memsum_zeros(h, WORDS);
	return h;
}

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_sec = 1 };
	char text[128], bad[4096];
	size_t len, pages;
	uint64_t *mem, expect;
	int status;

	mem = map_mib_arg(argc, argv, "heap", &len, &status);
	if (!mem)
		return status;
	pages = len / PAGE;
	fill(mem, pages);
	expect = sum(mem, pages);
	snprintf(text, sizeof(text), "%lx %zu %016llx\n", (unsigned long)mem, len,
		 (unsigned long long)expect);
	if (write_ready(argv[2], text))
		return 1;
	for (;;) {
		nanosleep(&tick, NULL);
		if (sum(mem, pages) != expect) {
			snprintf(bad, sizeof(bad), "%s.bad", argv[2]);
			write_ready(bad, "memory changed\n");
			return 3;
		}
	}
}
