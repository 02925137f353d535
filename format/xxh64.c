// SPDX-License-Identifier: GPL-2.0-only
/*
 * XXH64 as defined by the xxHash specification (doc/xxhash_spec.md in the
 * xxHash repository), little-endian input reads.  Kept here instead of
 * linking libxxhash: the trailer checksum is part of the format and small.
 */
#include <string.h>

#include "internal.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Little-endian loads, one instruction each where the machine allows. */
static inline uint64_t read64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t read32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t input)
{
	acc += input * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t val)
{
	acc ^= xxh_round(0, val);
	return acc * P1 + P4;
}

void crib_xxh64_init(struct crib_xxh64 *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->v[0] = seed + P1 + P2;
	s->v[1] = seed + P2;
	s->v[2] = seed;
	s->v[3] = seed - P1;
}

static void consume_stripe(struct crib_xxh64 *s, const uint8_t *p)
{
	for (int i = 0; i < 4; i++)
		s->v[i] = xxh_round(s->v[i], read64(p + 8 * i));
}

void crib_xxh64_update(struct crib_xxh64 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->total_len += len;
	if (s->memsize + len < 32) {
		if (len)
			memcpy(s->mem + s->memsize, p, len);
		s->memsize += (uint32_t)len;
		return;
	}
	if (s->memsize) {
		size_t fill = 32 - s->memsize;

		memcpy(s->mem + s->memsize, p, fill);
		consume_stripe(s, s->mem);
		p += fill;
		len -= fill;
		s->memsize = 0;
	}
	if (len >= 32) {
		/* The bulk of the input: the four lanes stay in registers. */
		uint64_t v0 = s->v[0], v1 = s->v[1], v2 = s->v[2], v3 = s->v[3];

		do {
			v0 = xxh_round(v0, read64(p));
			v1 = xxh_round(v1, read64(p + 8));
			v2 = xxh_round(v2, read64(p + 16));
			v3 = xxh_round(v3, read64(p + 24));
			p += 32;
			len -= 32;
		} while (len >= 32);
		s->v[0] = v0;
		s->v[1] = v1;
		s->v[2] = v2;
		s->v[3] = v3;
	}
	if (len)
		memcpy(s->mem, p, len);
	s->memsize = (uint32_t)len;
}

uint64_t crib_xxh64_digest(const struct crib_xxh64 *s)
{
	const uint8_t *p = s->mem;
	size_t len = s->memsize;
	uint64_t h;

	if (s->total_len >= 32) {
		h = rotl64(s->v[0], 1) + rotl64(s->v[1], 7) + rotl64(s->v[2], 12) +
		    rotl64(s->v[3], 18);
		for (int i = 0; i < 4; i++)
			h = xxh_merge(h, s->v[i]);
	} else {
		h = s->v[2] + P5;	/* v[2] still holds the seed */
	}
	h += s->total_len;
	while (len >= 8) {
		h ^= xxh_round(0, read64(p));
		h = rotl64(h, 27) * P1 + P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		h ^= (uint64_t)read32(p) * P1;
		h = rotl64(h, 23) * P2 + P3;
		p += 4;
		len -= 4;
	}
	while (len--) {
		h ^= *p++ * P5;
		h = rotl64(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

uint64_t crib_xxh64(const void *data, size_t len, uint64_t seed)
{
	struct crib_xxh64 s;

	crib_xxh64_init(&s, seed);
	crib_xxh64_update(&s, data, len);
	return crib_xxh64_digest(&s);
}
