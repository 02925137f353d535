/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark's memory holds, so that a compressing dump meets
 * neither zero pages nor one repeated byte.  Every 4 KiB page is
 *
 *   bytes    0-1023  pseudo-random bytes (xorshift64*): incompressible,
 *                    like compressed or encrypted data, keys, hashes
 *   bytes 1024-3071  text: log lines built from a small vocabulary with
 *                    pseudo-random timestamps, ids and counters
 *   bytes 3072-4095  structured data: 32 records of 32 bytes (a serial
 *                    number, a pointer into a 1 MiB heap, a small counter,
 *                    one of four states, a 16-bit value)
 *
 * fill_pages_heap() is the second mix, closer to a server's heap: one
 * page in four zeros (touched, never written since: calloc, arenas,
 * freed buffers), one in four log text as above, and half of them heap
 * objects (the records above, with a 16-byte header and 16 bytes of
 * small integers each), no random bytes.
 *
 * The generator is seeded the same way every run: sizes are reproducible.
 */
#ifndef CRIB_BENCH_FILL_H
#define CRIB_BENCH_FILL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FILL_PAGE		4096u
#define FILL_RANDOM_END		1024u
#define FILL_TEXT_END		3072u

struct fill_state {
	uint64_t rng;
	uint64_t serial;
};

static inline uint64_t fill_next(struct fill_state *st)
{
	st->rng ^= st->rng >> 12;
	st->rng ^= st->rng << 25;
	st->rng ^= st->rng >> 27;
	return st->rng * 0x2545f4914f6cdd1dull;
}

static inline char *fill_word(char *p, const char *end, const char *w)
{
	while (*w && p < end)
		*p++ = *w++;
	return p;
}

static inline char *fill_number(char *p, const char *end, uint64_t v, int width)
{
	char digits[20];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < 20);
	while (n < width && p < end) {
		*p++ = '0';
		width--;
	}
	while (n && p < end)
		*p++ = digits[--n];
	return p;
}

static inline void fill_text(struct fill_state *st, char *p, char *end)
{
	static const char *const level[] = { "INFO ", "INFO ", "DEBUG ", "WARN " };
	static const char *const who[] = { "worker", "scheduler", "http", "cache", "db-pool",
					   "gc", "auth", "queue" };
	static const char *const what[] = { "request done", "cache miss", "connection reused",
					    "job queued", "lease renewed", "retrying",
					    "flushed batch", "session opened" };
	uint64_t r;

	while (p < end) {
		r = fill_next(st);
		p = fill_word(p, end, "2026-12-03 ");
		p = fill_number(p, end, r % 24, 2);
		p = fill_word(p, end, ":");
		p = fill_number(p, end, (r >> 8) % 60, 2);
		p = fill_word(p, end, ":");
		p = fill_number(p, end, (r >> 16) % 60, 2);
		p = fill_word(p, end, ".");
		p = fill_number(p, end, (r >> 24) % 1000, 3);
		p = fill_word(p, end, " ");
		p = fill_word(p, end, level[(r >> 34) % 4]);
		p = fill_word(p, end, who[(r >> 36) % 8]);
		p = fill_word(p, end, "[");
		p = fill_number(p, end, (r >> 40) % 32, 0);
		p = fill_word(p, end, "]: ");
		p = fill_word(p, end, what[(r >> 45) % 8]);
		p = fill_word(p, end, " id=");
		p = fill_number(p, end, st->serial++, 0);
		p = fill_word(p, end, " status=");
		p = fill_number(p, end, (r >> 48) % 8 ? 200 : 404, 0);
		p = fill_word(p, end, " bytes=");
		p = fill_number(p, end, (r >> 51) % 20000, 0);
		p = fill_word(p, end, "\n");
	}
}

struct fill_record {
	uint64_t serial;
	uint64_t next;		/* a pointer into a 1 MiB heap, 16-byte aligned */
	uint32_t count;
	uint32_t state;
	uint64_t value;
};

static inline void fill_records(struct fill_state *st, struct fill_record *rec, size_t n)
{
	static const uint32_t states[] = { 0x1, 0x2, 0x10, 0x8001 };
	uint64_t r;
	size_t i;

	for (i = 0; i < n; i++) {
		r = fill_next(st);
		rec[i] = (struct fill_record) {
			.serial = st->serial,
			.next = 0x7f3a12400000ull + ((st->serial * 48) & 0xffff0),
			.count = (uint32_t)(r % 100),
			.state = states[(r >> 8) % 4],
			.value = (r >> 16) & 0xffff,
		};
		st->serial++;
	}
}

/* Fill @pages pages at @mem with the mix above. */
static inline void fill_pages(unsigned char *mem, size_t pages)
{
	struct fill_state st = { .rng = 0x9e3779b97f4a7c15ull, .serial = 1 };
	unsigned char *page;
	uint64_t r;
	size_t i, j;

	for (i = 0; i < pages; i++) {
		page = mem + i * FILL_PAGE;
		for (j = 0; j < FILL_RANDOM_END; j += 8) {
			r = fill_next(&st);
			memcpy(page + j, &r, 8);
		}
		fill_text(&st, (char *)page + FILL_RANDOM_END, (char *)page + FILL_TEXT_END);
		fill_records(&st, (struct fill_record *)(page + FILL_TEXT_END),
			     (FILL_PAGE - FILL_TEXT_END) / sizeof(struct fill_record));
	}
}

/* Fill @pages pages at @mem with the heap-like mix. */
static inline void fill_pages_heap(unsigned char *mem, size_t pages)
{
	struct fill_state st = { .rng = 0x9e3779b97f4a7c15ull, .serial = 1 };
	struct fill_record *rec;
	unsigned char *page;
	uint64_t header[2], ints[2];
	size_t i, j;

	for (i = 0; i < pages; i++) {
		page = mem + i * FILL_PAGE;
		switch (i % 4) {
		case 0:
			memset(page, 0, FILL_PAGE);
			break;
		case 1:
			fill_text(&st, (char *)page, (char *)page + FILL_PAGE);
			break;
		default:
			/* 64-byte objects: header, record, small integers */
			for (j = 0; j < FILL_PAGE; j += 64) {
				header[0] = 0x41;			/* size class, flags */
				header[1] = 0x7f3a12400000ull + ((st.serial * 64) & 0xfffc0);
				ints[0] = fill_next(&st) % 1000;
				ints[1] = st.serial % 7;
				memcpy(page + j, header, 16);
				rec = (struct fill_record *)(page + j + 16);
				fill_records(&st, rec, 1);
				memcpy(page + j + 48, ints, 16);
			}
			break;
		}
	}
}

#endif /* CRIB_BENCH_FILL_H */
