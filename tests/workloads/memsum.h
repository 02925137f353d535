/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checksum the memory workloads report and the tests recompute from a
 * snapshot: FNV-1a over 64-bit words, fast enough for tens of MiB in an
 * emulated guest.  Zero pages can be fed without touching them.
 */
#ifndef CRIB_MEMSUM_H
#define CRIB_MEMSUM_H

#include <stddef.h>
#include <stdint.h>

#define MEMSUM_INIT	0xcbf29ce484222325ull

static inline uint64_t memsum_words(uint64_t h, const uint64_t *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t memsum_zeros(uint64_t h, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h *= 0x100000001b3ull;
	return h;
}

#endif /* CRIB_MEMSUM_H */
