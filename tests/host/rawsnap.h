/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hand-built snapshots for tests: arbitrary record bytes, with a correct
 * (or deliberately wrong) trailer, compressed like the writer does.
 */
#ifndef CRIB_TEST_RAWSNAP_H
#define CRIB_TEST_RAWSNAP_H

#include "internal.h"

struct rawsnap {
	uint8_t preamble[CRIB_PREAMBLE_LEN];
	struct crib_buf stream;
	uint64_t records;
	struct crib_type_count counts[CRIB_LIMIT_TYPES];
	size_t n_counts;
};

#define RAWSNAP_NO_TRAILER	0x1
#define RAWSNAP_BAD_CHECKSUM	0x2
#define RAWSNAP_BAD_COUNT	0x4
#define RAWSNAP_JUNK_AFTER	0x8	/* bytes after the zstd frame */
#define RAWSNAP_RECORD_AFTER	0x10	/* a note record after the trailer */

/* Preamble with the given version, then the standard sample header record. */
void rawsnap_init(struct rawsnap *s, uint16_t major, uint16_t minor, bool with_header);
/* Append [type, body] where body is CBOR already in b. */
void rawsnap_add(struct rawsnap *s, uint32_t type, const struct crib_buf *body);
/* Append arbitrary bytes as one record of the given type (for counting). */
void rawsnap_add_raw(struct rawsnap *s, uint32_t type, const void *rec, size_t len);
/* Trailer, zstd; returns malloc'd file bytes.  Frees the builder. */
uint8_t *rawsnap_finish(struct rawsnap *s, unsigned flags, int window_log, size_t *len);

#endif
