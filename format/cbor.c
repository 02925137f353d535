// SPDX-License-Identifier: GPL-2.0-only
/*
 * CBOR plumbing.  Writing uses libcbor's cbor_encode_* into a bounded
 * buffer.  Reading uses libcbor's streaming decoder one item head at a time
 * (cbor_stream_decode never allocates), so every length and count can be
 * checked before anything is done with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cbor.h>

#include "internal.h"

void crib_set_error(struct crib_error *err, enum crib_err code, uint64_t stream_offset,
		    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->code = code;
	err->stream_offset = stream_offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *crib_err_name(enum crib_err code)
{
	static const char *const names[] = {
		[CRIB_OK] = "ok",
		[CRIB_E_IO] = "i/o error",
		[CRIB_E_NOMEM] = "out of memory",
		[CRIB_E_INVAL] = "invalid argument",
		[CRIB_E_MAGIC] = "not a CRIB snapshot",
		[CRIB_E_VERSION] = "unsupported version",
		[CRIB_E_CRITICAL] = "unknown critical record",
		[CRIB_E_TRUNCATED] = "truncated",
		[CRIB_E_ZSTD] = "corrupt compressed data",
		[CRIB_E_CBOR] = "malformed CBOR",
		[CRIB_E_LIMIT] = "limit exceeded",
		[CRIB_E_SCHEMA] = "schema violation",
		[CRIB_E_CHECKSUM] = "checksum mismatch",
		[CRIB_E_TRAILING] = "trailing data",
		[CRIB_E_COUNT] = "record count mismatch",
	};

	if ((size_t)code < ARRAY_SIZE(names) && names[code])
		return names[code];
	return "unknown error";
}

/* ---- output buffer ---- */

void crib_buf_init(struct crib_buf *b, size_t limit)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
}

void crib_buf_free(struct crib_buf *b)
{
	free(b->data);
	crib_buf_init(b, b->limit);
}

/* Make room for n more bytes; false (and the buffer marked) if refused. */
static bool buf_reserve(struct crib_buf *b, size_t n)
{
	size_t want, cap;
	uint8_t *p;

	if (b->overflow || b->nomem)
		return false;
	if (n > b->limit || b->len > b->limit - n) {
		b->overflow = true;
		return false;
	}
	want = b->len + n;
	if (want <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap *= 2;
	if (cap > b->limit)
		cap = b->limit;
	p = realloc(b->data, cap);
	if (!p) {
		b->nomem = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void crib_buf_put(struct crib_buf *b, const void *data, size_t len)
{
	if (!len || !buf_reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

/* Items heads are at most 9 bytes. */
#define HEAD_MAX 9

static void put_head(struct crib_buf *b, size_t (*enc)(size_t, unsigned char *, size_t), size_t v)
{
	unsigned char tmp[HEAD_MAX];

	crib_buf_put(b, tmp, enc(v, tmp, sizeof(tmp)));
}

void crib_cbor_uint(struct crib_buf *b, uint64_t v)
{
	unsigned char tmp[HEAD_MAX];

	crib_buf_put(b, tmp, cbor_encode_uint(v, tmp, sizeof(tmp)));
}

void crib_cbor_int(struct crib_buf *b, int64_t v)
{
	unsigned char tmp[HEAD_MAX];

	if (v >= 0)
		crib_buf_put(b, tmp, cbor_encode_uint((uint64_t)v, tmp, sizeof(tmp)));
	else
		crib_buf_put(b, tmp, cbor_encode_negint((uint64_t)(-(v + 1)), tmp, sizeof(tmp)));
}

void crib_cbor_bool(struct crib_buf *b, bool v)
{
	unsigned char tmp[1];

	crib_buf_put(b, tmp, cbor_encode_bool(v, tmp, sizeof(tmp)));
}

void crib_cbor_bytes(struct crib_buf *b, const void *data, size_t len)
{
	put_head(b, cbor_encode_bytestring_start, len);
	crib_buf_put(b, data, len);
}

void crib_cbor_text(struct crib_buf *b, const char *s, size_t len)
{
	put_head(b, cbor_encode_string_start, len);
	crib_buf_put(b, s, len);
}

void crib_cbor_array(struct crib_buf *b, size_t n)
{
	put_head(b, cbor_encode_array_start, n);
}

void crib_cbor_map(struct crib_buf *b, size_t n)
{
	put_head(b, cbor_encode_map_start, n);
}

/* ---- token decoding ---- */

static void tok_uint(void *ctx, uint64_t v)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_UINT;
	t->val = v;
}

static void tok_uint8(void *ctx, uint8_t v) { tok_uint(ctx, v); }
static void tok_uint16(void *ctx, uint16_t v) { tok_uint(ctx, v); }
static void tok_uint32(void *ctx, uint32_t v) { tok_uint(ctx, v); }

static void tok_negint(void *ctx, uint64_t v)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_NEGINT;
	t->val = v;
}

static void tok_negint8(void *ctx, uint8_t v) { tok_negint(ctx, v); }
static void tok_negint16(void *ctx, uint16_t v) { tok_negint(ctx, v); }
static void tok_negint32(void *ctx, uint32_t v) { tok_negint(ctx, v); }

static void tok_bytes(void *ctx, cbor_data data, size_t len)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_BYTES;
	t->ptr = data;
	t->len = len;
}

static void tok_text(void *ctx, cbor_data data, size_t len)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_TEXT;
	t->ptr = data;
	t->len = len;
}

static void tok_array(void *ctx, size_t n)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_ARRAY;
	t->val = n;
}

static void tok_map(void *ctx, size_t n)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_MAP;
	t->val = n;
}

static void tok_bool(void *ctx, bool v)
{
	struct crib_tok *t = ctx;

	t->kind = CRIB_TOK_BOOL;
	t->val = v;
}

static void tok_null(void *ctx)
{
	((struct crib_tok *)ctx)->kind = CRIB_TOK_NULL;
}

static void tok_unsupported(void *ctx)
{
	((struct crib_tok *)ctx)->kind = CRIB_TOK_UNSUPPORTED;
}

static void tok_unsupported_u64(void *ctx, uint64_t v)
{
	(void)v;
	tok_unsupported(ctx);
}

static void tok_unsupported_float(void *ctx, float v)
{
	(void)v;
	tok_unsupported(ctx);
}

static void tok_unsupported_double(void *ctx, double v)
{
	(void)v;
	tok_unsupported(ctx);
}

static const struct cbor_callbacks tok_callbacks = {
	.uint8 = tok_uint8,
	.uint16 = tok_uint16,
	.uint32 = tok_uint32,
	.uint64 = tok_uint,
	.negint8 = tok_negint8,
	.negint16 = tok_negint16,
	.negint32 = tok_negint32,
	.negint64 = tok_negint,
	.byte_string = tok_bytes,
	.byte_string_start = tok_unsupported,
	.string = tok_text,
	.string_start = tok_unsupported,
	.array_start = tok_array,
	.indef_array_start = tok_unsupported,
	.map_start = tok_map,
	.indef_map_start = tok_unsupported,
	.tag = tok_unsupported_u64,
	.float2 = tok_unsupported_float,
	.float4 = tok_unsupported_float,
	.float8 = tok_unsupported_double,
	.undefined = tok_unsupported,
	.null = tok_null,
	.boolean = tok_bool,
	.indef_break = tok_unsupported,
};

enum crib_tok_status crib_tok_next(const uint8_t *buf, size_t avail, struct crib_tok *tok,
				   size_t *used)
{
	struct cbor_decoder_result res;

	memset(tok, 0, sizeof(*tok));
	if (!avail) {
		*used = 1;
		return CRIB_TOK_NEED;
	}
	res = cbor_stream_decode(buf, avail, &tok_callbacks, tok);
	switch (res.status) {
	case CBOR_DECODER_FINISHED:
		/* Reserved encodings "finish" without a callback. */
		if (tok->kind == CRIB_TOK_NONE || tok->kind == CRIB_TOK_UNSUPPORTED ||
		    res.read == 0 || res.read > avail)
			return CRIB_TOK_BAD;
		*used = res.read;
		return CRIB_TOK_OK;
	case CBOR_DECODER_NEDATA:
		/*
		 * libcbor computes required as head + length, which wraps for
		 * absurd lengths; a value we already have cannot be right.
		 */
		if (res.required <= avail)
			return CRIB_TOK_BAD;
		*used = res.required;
		return CRIB_TOK_NEED;
	default:
		return CRIB_TOK_BAD;
	}
}

/* ---- record skimming ---- */

void crib_skim_reset(struct crib_skim *s)
{
	memset(s, 0, sizeof(*s));
}

static const char *tok_kind_name(enum crib_tok_kind k)
{
	switch (k) {
	case CRIB_TOK_UINT: return "unsigned integer";
	case CRIB_TOK_NEGINT: return "negative integer";
	case CRIB_TOK_BYTES: return "byte string";
	case CRIB_TOK_TEXT: return "text string";
	case CRIB_TOK_ARRAY: return "array";
	case CRIB_TOK_MAP: return "map";
	case CRIB_TOK_BOOL: return "boolean";
	case CRIB_TOK_NULL: return "null";
	default: return "unsupported item";
	}
}

/* Apply the generic rules to one token at skim position. */
static bool skim_token(struct crib_skim *s, const struct crib_tok *tok, struct crib_error *err,
		       uint64_t off)
{
	struct crib_skim_frame *top = s->depth ? &s->stack[s->depth - 1] : NULL;

	if (top && top->is_map && !(top->remaining & 1)) {
		/* Even count left in a map: this token is a key. */
		if (tok->kind != CRIB_TOK_UINT) {
			crib_set_error(err, CRIB_E_CBOR, off, "map key is a %s, not an unsigned integer",
				       tok_kind_name(tok->kind));
			return false;
		}
		if (top->have_key && tok->val <= top->last_key) {
			crib_set_error(err, CRIB_E_CBOR, off,
				       "map key %llu after %llu: keys must be strictly ascending",
				       (unsigned long long)tok->val,
				       (unsigned long long)top->last_key);
			return false;
		}
		top->last_key = tok->val;
		top->have_key = true;
	}
	if (top)
		top->remaining--;

	switch (tok->kind) {
	case CRIB_TOK_BYTES:
		if (tok->len > CRIB_LIMIT_BYTES) {
			crib_set_error(err, CRIB_E_LIMIT, off, "byte string of %zu bytes exceeds %u",
				       tok->len, CRIB_LIMIT_BYTES);
			return false;
		}
		break;
	case CRIB_TOK_TEXT:
		if (tok->len > CRIB_LIMIT_TEXT) {
			crib_set_error(err, CRIB_E_LIMIT, off, "text string of %zu bytes exceeds %u",
				       tok->len, CRIB_LIMIT_TEXT);
			return false;
		}
		break;
	case CRIB_TOK_ARRAY:
	case CRIB_TOK_MAP:
		if (tok->val > CRIB_LIMIT_ITEMS) {
			crib_set_error(err, CRIB_E_LIMIT, off, "%s of %llu entries exceeds %u",
				       tok_kind_name(tok->kind), (unsigned long long)tok->val,
				       CRIB_LIMIT_ITEMS);
			return false;
		}
		if (s->depth == CRIB_LIMIT_DEPTH) {
			crib_set_error(err, CRIB_E_LIMIT, off, "nesting deeper than %u",
				       CRIB_LIMIT_DEPTH);
			return false;
		}
		s->stack[s->depth++] = (struct crib_skim_frame){
			.remaining = tok->kind == CRIB_TOK_MAP ? tok->val * 2 : tok->val,
			.is_map = tok->kind == CRIB_TOK_MAP,
		};
		break;
	case CRIB_TOK_UINT:
	case CRIB_TOK_NEGINT:
	case CRIB_TOK_BOOL:
	case CRIB_TOK_NULL:
		break;
	default:
		crib_set_error(err, CRIB_E_CBOR, off,
			       "tag, float, undefined or indefinite-length item");
		return false;
	}
	while (s->depth && s->stack[s->depth - 1].remaining == 0)
		s->depth--;
	return true;
}

enum crib_skim_status crib_skim_step(struct crib_skim *s, const uint8_t *buf, size_t avail,
				     size_t *need, struct crib_error *err, uint64_t base_off)
{
	struct crib_tok tok;
	size_t used;

	for (;;) {
		uint64_t off = base_off + s->pos;

		switch (crib_tok_next(buf + s->pos, avail - s->pos, &tok, &used)) {
		case CRIB_TOK_OK:
			break;
		case CRIB_TOK_NEED:
			if (used > CRIB_LIMIT_RECORD - s->pos) {
				crib_set_error(err, CRIB_E_LIMIT, off,
					       "record longer than the %u byte limit",
					       CRIB_LIMIT_RECORD);
				return CRIB_SKIM_ERROR;
			}
			*need = s->pos + used;
			return CRIB_SKIM_NEED;
		default:
			crib_set_error(err, CRIB_E_CBOR, off, "malformed CBOR item (byte 0x%02x)",
				       buf[s->pos]);
			return CRIB_SKIM_ERROR;
		}
		if (!s->started && (tok.kind != CRIB_TOK_ARRAY || tok.val != 2)) {
			crib_set_error(err, CRIB_E_CBOR, off,
				       "record is a %s, not an array of two items",
				       tok_kind_name(tok.kind));
			return CRIB_SKIM_ERROR;
		}
		s->started = true;
		if (used > CRIB_LIMIT_RECORD - s->pos) {
			crib_set_error(err, CRIB_E_LIMIT, off, "record longer than the %u byte limit",
				       CRIB_LIMIT_RECORD);
			return CRIB_SKIM_ERROR;
		}
		if (!skim_token(s, &tok, err, off))
			return CRIB_SKIM_ERROR;
		s->pos += used;
		if (!s->depth)
			return CRIB_SKIM_DONE;
	}
}

/* ---- cursor over a skimmed record ---- */

bool crib_cursor_next(struct crib_cursor *c, struct crib_tok *tok, struct crib_error *err)
{
	size_t used;

	if (crib_tok_next(c->buf + c->pos, c->len - c->pos, tok, &used) != CRIB_TOK_OK) {
		crib_set_error(err, CRIB_E_CBOR, c->base + c->pos, "malformed CBOR item");
		return false;
	}
	c->pos += used;
	return true;
}

/* Skip one whole item; depth is bounded because the record was skimmed. */
bool crib_cursor_skip(struct crib_cursor *c, struct crib_error *err)
{
	struct crib_tok tok;
	uint64_t left = 1;

	while (left) {
		if (!crib_cursor_next(c, &tok, err))
			return false;
		left--;
		if (tok.kind == CRIB_TOK_ARRAY)
			left += tok.val;
		else if (tok.kind == CRIB_TOK_MAP)
			left += 2 * tok.val;
	}
	return true;
}
