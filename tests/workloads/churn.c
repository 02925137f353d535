// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that keeps writing its memory: MIB MiB of pages, each holding
 * its generation and a pattern made from its number and generation.  It
 * rewrites pseudo-random pages with their next generation, counting every
 * rewrite in a variable of its own, as fast as it can.  Every second it
 * checks that each page holds the pattern of its generation and that the
 * generations add up to the count: a page restored from before its last
 * rewrite fails that.  Then it exits with status 3, after writing
 * READYFILE.bad.  It writes "ADDR LEN" (hex, decimal) to READYFILE once
 * every page is written.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "mibarg.h"
#include "ready.h"

#define PAGE 4096u
#define WORDS (PAGE / 8)

static uint64_t pattern(uint64_t page, uint64_t gen, size_t word)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (page + 1) ^ (gen << 32) ^ word;

	x ^= x >> 31;
	return x * 0xbf58476d1ce4e5b9ull;
}

static void write_page(uint64_t *p, uint64_t page, uint64_t gen)
{
	size_t j;

	p[0] = gen;
	for (j = 1; j < WORDS; j++)
		p[j] = pattern(page, gen, j);
}

/* Every page whole, and the generations adding up to @count: NULL, or what is wrong. */
static const char *check(const uint64_t *mem, size_t pages, uint64_t count)
{
	uint64_t total = 0;
	size_t i, j;

	for (i = 0; i < pages; i++) {
		for (j = 1; j < WORDS; j++)
			if (mem[i * WORDS + j] != pattern(i, mem[i * WORDS], j))
				return "a page does not hold its generation's pattern\n";
		total += mem[i * WORDS];
	}
	return total == count ? NULL : "the generations do not add up to the rewrites\n";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t *mem, count = 0, x = 88172645463325252ull, next_check;
	char text[128], bad[4096];
	const char *wrong;
	size_t len, pages, i;
	int status;

	mem = map_mib_arg(argc, argv, "churn", &len, &status);
	if (!mem)
		return status;
	pages = len / PAGE;
	for (i = 0; i < pages; i++)
		write_page(mem + i * WORDS, i, 0);
	snprintf(text, sizeof(text), "%lx %zu\n", (unsigned long)mem, len);
	if (write_ready(argv[2], text))
		return 1;
	next_check = now_ns() + 1000000000u;
	for (;;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = x % pages;
		count++;
		write_page(mem + i * WORDS, i, mem[i * WORDS] + 1);
		if ((count & 255) || now_ns() < next_check)
			continue;
		wrong = check(mem, pages, count);
		if (wrong) {
			snprintf(bad, sizeof(bad), "%s.bad", argv[2]);
			write_ready(bad, wrong);
			return 3;
		}
		next_check = now_ns() + 1000000000u;
	}
}
