// SPDX-License-Identifier: GPL-2.0-only
/*
 * Damage a sample snapshot every way we can afford: cut it at every byte,
 * flip thousands of random bits (seeded, so failures reproduce), overwrite
 * it with random bytes.  Every case must end in a clean error (or, for a bit
 * the format does not depend on, in the same records), under a memory limit.
 *
 * Usage: test-corrupt [FLIPS [SEED]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "membuf.h"
#include "sample.h"
#include "tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Reader buffers, two arenas at their cap, the zstd window and context. */
#define READER_MEM_BOUND (CRIB_LIMIT_RECORD + (1u << 20) + 2u * CRIB_LIMIT_DECODED + (1u << 20))
#define ADDRESS_SPACE_LIMIT (512ull << 20)

static struct tap t;

struct outcome {
	int ret;		/* final crib_reader_next() result, or -1 for open */
	enum crib_err code;
	uint64_t digest;	/* over all raw records returned */
	size_t mem_peak;
};

static struct outcome read_all(const uint8_t *buf, size_t len)
{
	struct outcome o = { 0 };
	struct crib_record rec;
	struct crib_error err;
	struct crib_reader *r = crib_reader_open(-1, MEM_READER(buf, len), &err);

	if (!r) {
		o.ret = -1;
		o.code = err.code;
		return o;
	}
	while ((o.ret = crib_reader_next(r, &rec)) > 0)
		if (rec.raw)
			o.digest = crib_xxh64(rec.raw, rec.raw_len, o.digest);
	if (o.ret < 0)
		o.code = crib_reader_error(r)->code;
	o.mem_peak = crib_reader_mem_peak(r);
	crib_reader_close(r);
	return o;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void limit_memory(void)
{
#ifndef UNDER_ASAN
	struct rlimit rl = { ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT };

	tap_check(&t, setrlimit(RLIMIT_AS, &rl) == 0, "address space limited to %llu MiB",
		  ADDRESS_SPACE_LIMIT >> 20);
#else
	tap_diag("built with ASan: no RLIMIT_AS, the reader's own accounting is checked");
#endif
}

int main(int argc, char **argv)
{
	unsigned long flips = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed5eedull;
	unsigned long clean_cut = 0, bad_cut = 0, benign = 0, bad_flip = 0, bad_random = 0;
	size_t max_peak = 0, len;
	struct outcome good, o;
	uint64_t rng = seed;
	uint8_t *snap, *copy;
	unsigned hist[CRIB_E_TRAILING + 1] = { 0 };

	alarm(600);	/* a hang fails the test instead of stalling the suite */
	limit_memory();
	if (!tap_check(&t, sample_to_mem(false, 3, &snap, &len) == 0, "sample written"))
		return tap_done(&t);
	tap_diag("sample is %zu bytes", len);
	good = read_all(snap, len);
	tap_check(&t, good.ret == 0, "intact sample reads cleanly");

	/* Every truncation point is an error: nothing short of the end verifies. */
	for (size_t cut = 0; cut < len; cut++) {
		o = read_all(snap, cut);
		if (o.ret == 0) {
			bad_cut++;
			tap_diag("cut at %zu read as complete", cut);
		} else {
			clean_cut++;
			hist[o.code]++;
		}
		if (o.mem_peak > max_peak)
			max_peak = o.mem_peak;
	}
	tap_check(&t, bad_cut == 0, "all %zu truncations refused", len);
	for (int c = 0; c <= CRIB_E_TRAILING; c++)
		if (hist[c])
			tap_diag("  %-26s %u", crib_err_name(c), hist[c]);

	copy = malloc(len);
	memset(hist, 0, sizeof(hist));
	for (unsigned long i = 0; i < flips; i++) {
		uint64_t bit = xorshift(&rng) % (len * 8);

		memcpy(copy, snap, len);
		copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		o = read_all(copy, len);
		if (o.ret == 0) {
			/* Only bits no record depends on may pass (zstd header hints). */
			if (o.digest == good.digest) {
				benign++;
			} else {
				bad_flip++;
				tap_diag("flip of bit %" PRIu64 " changed records undetected", bit);
			}
		} else {
			hist[o.code]++;
		}
		if (o.mem_peak > max_peak)
			max_peak = o.mem_peak;
	}
	tap_check(&t, bad_flip == 0, "%lu bit flips (seed 0x%" PRIx64 "): all detected or harmless",
		  flips, seed);
	tap_diag("  %lu flips left every record intact", benign);
	for (int c = 0; c <= CRIB_E_TRAILING; c++)
		if (hist[c])
			tap_diag("  %-26s %u", crib_err_name(c), hist[c]);

	/* Random bytes after a valid preamble, and random runs inside the stream. */
	for (unsigned long i = 0; i < flips / 10; i++) {
		size_t from = 16 + xorshift(&rng) % (len - 16);
		size_t n = 1 + xorshift(&rng) % 64;

		memcpy(copy, snap, len);
		for (size_t k = from; k < from + n && k < len; k++)
			copy[k] = (uint8_t)xorshift(&rng);
		o = read_all(copy, len);
		if (o.ret == 0 && o.digest != good.digest)
			bad_random++;
		if (o.mem_peak > max_peak)
			max_peak = o.mem_peak;
	}
	tap_check(&t, bad_random == 0, "%lu random overwrites: none accepted with changed records",
		  flips / 10);
	tap_check(&t, max_peak <= READER_MEM_BOUND, "reader memory stayed at most %zu bytes (bound %u)",
		  max_peak, READER_MEM_BOUND);
	(void)clean_cut;
	free(copy);
	free(snap);
	return tap_done(&t);
}
