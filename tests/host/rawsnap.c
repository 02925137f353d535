// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "rawsnap.h"
#include "sample.h"

static void count(struct rawsnap *s, uint32_t type)
{
	size_t i;

	for (i = 0; i < s->n_counts && s->counts[i].type < type; i++)
		;
	if (i < s->n_counts && s->counts[i].type == type) {
		s->counts[i].count++;
	} else if (s->n_counts < CRIB_LIMIT_TYPES) {
		memmove(&s->counts[i + 1], &s->counts[i], (s->n_counts - i) * sizeof(s->counts[0]));
		s->counts[i] = (struct crib_type_count){ type, 1 };
		s->n_counts++;
	}
	s->records++;
}

void rawsnap_init(struct rawsnap *s, uint16_t major, uint16_t minor, bool with_header)
{
	memset(s, 0, sizeof(*s));
	crib_buf_init(&s->stream, 64u << 20);
	memcpy(s->preamble, CRIB_MAGIC, CRIB_MAGIC_LEN);
	s->preamble[8] = major & 0xff;
	s->preamble[9] = major >> 8;
	s->preamble[10] = minor & 0xff;
	s->preamble[11] = minor >> 8;
	if (with_header) {
		struct crib_buf b;
		struct crib_header hdr;

		sample_header(&hdr);
		crib_buf_init(&b, CRIB_LIMIT_RECORD);
		crib_encode_struct(&b, &crib_header_desc, &hdr, NULL);
		rawsnap_add(s, CRIB_REC_HEADER, &b);
		crib_buf_free(&b);
	}
}

void rawsnap_add_raw(struct rawsnap *s, uint32_t type, const void *rec, size_t len)
{
	crib_buf_put(&s->stream, rec, len);
	count(s, type);
}

void rawsnap_add(struct rawsnap *s, uint32_t type, const struct crib_buf *body)
{
	crib_cbor_array(&s->stream, 2);
	crib_cbor_uint(&s->stream, type);
	crib_buf_put(&s->stream, body->data, body->len);
	count(s, type);
}

uint8_t *rawsnap_finish(struct rawsnap *s, unsigned flags, int window_log, size_t *len)
{
	struct crib_trailer t = {
		.records = s->records + ((flags & RAWSNAP_BAD_COUNT) ? 1 : 0),
		.counts = s->counts,
		.n_counts = s->n_counts,
		.stream_bytes = s->stream.len,
	};
	struct crib_xxh64 h;
	size_t bound, n;
	ZSTD_CCtx *cctx;
	uint8_t *out;

	crib_xxh64_init(&h, 0);
	crib_xxh64_update(&h, s->preamble, sizeof(s->preamble));
	crib_xxh64_update(&h, s->stream.data, s->stream.len);
	t.checksum = crib_xxh64_digest(&h) ^ ((flags & RAWSNAP_BAD_CHECKSUM) ? 1 : 0);
	if (!(flags & RAWSNAP_NO_TRAILER)) {
		crib_cbor_array(&s->stream, 2);
		crib_cbor_uint(&s->stream, CRIB_REC_TRAILER);
		crib_encode_struct(&s->stream, &crib_trailer_desc, &t, NULL);
	}
	if (flags & RAWSNAP_RECORD_AFTER) {
		struct crib_note note = { .name = "late" };

		crib_cbor_array(&s->stream, 2);
		crib_cbor_uint(&s->stream, CRIB_REC_NOTE);
		crib_encode_struct(&s->stream, &crib_note_desc, &note, NULL);
	}
	bound = ZSTD_compressBound(s->stream.len) + sizeof(s->preamble) + 16;
	out = malloc(bound);
	cctx = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	if (window_log) {
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log);
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
	}
	memcpy(out, s->preamble, sizeof(s->preamble));
	{
		/* Streaming, so the frame does not shrink its window to the input. */
		ZSTD_inBuffer in = { s->stream.data ? (const void *)s->stream.data : "",
				     s->stream.len, 0 };
		ZSTD_outBuffer o = { out + sizeof(s->preamble), bound - sizeof(s->preamble) - 16, 0 };
		size_t r = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_continue);

		while (!ZSTD_isError(r) && (r = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_end)) != 0 &&
		       !ZSTD_isError(r))
			;
		if (ZSTD_isError(r))
			abort();
		n = o.pos;
	}
	ZSTD_freeCCtx(cctx);
	*len = sizeof(s->preamble) + n;
	if (flags & RAWSNAP_JUNK_AFTER) {
		memcpy(out + *len, "JUNKJUNK", 8);
		*len += 8;
	}
	crib_buf_free(&s->stream);
	return out;
}
