/* SPDX-License-Identifier: GPL-2.0-only */
/* Library-internal helpers shared by the writer, the reader and the schema code. */
#ifndef CRIB_INTERNAL_H
#define CRIB_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crib/format.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void crib_set_error(struct crib_error *err, enum crib_err code, uint64_t stream_offset,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- sized options (CRIB_OPTS(), as libbpf's OPTS_VALID and OPTS_GET) ---- */

#define crib_offsetofend(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/*
 * Whether options of @user_sz bytes at @opts are usable by a library that
 * knows their first @known bytes: NULL, or a size at least that of the
 * size field and nothing set past what it knows.  Fills *@err if not.
 * What it knows is its whole struct, padding included: padding is not
 * zeroed by an initializer, only by CRIB_OPTS()'s memset.
 */
bool crib_opts_valid(const void *opts, size_t user_sz, size_t known, const char *type_name,
		     struct crib_error *err);
#define CRIB_OPTS_VALID(opts, type, err)					\
	crib_opts_valid(opts, (opts) ? (opts)->sz : 0, sizeof(struct type), #type, err)
#define CRIB_OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= crib_offsetofend(__typeof__(*(opts)), field))
#define CRIB_OPTS_GET(opts, field, fallback) \
	(CRIB_OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/* Frame magics and sizes (RFC 8878) are little-endian 32-bit words. */
static inline uint32_t crib_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- xxh64.c: XXH64 (xxHash specification), streaming ---- */

struct crib_xxh64 {
	uint64_t total_len;
	uint64_t v[4];
	uint8_t mem[32];
	uint32_t memsize;
};

void crib_xxh64_init(struct crib_xxh64 *s, uint64_t seed);
void crib_xxh64_update(struct crib_xxh64 *s, const void *data, size_t len);
uint64_t crib_xxh64_digest(const struct crib_xxh64 *s);
uint64_t crib_xxh64(const void *data, size_t len, uint64_t seed);

/* ---- frames.c: zstd frames of a snapshot in memory, decoded ahead in threads ---- */

struct crib_frames;

/* Workers decoding the frames of @in (past the preamble) ahead; NULL if none start. */
struct crib_frames *crib_frames_start(const uint8_t *in, size_t len, int threads);
/*
 * The zstd frame at @off, decoded: 1 with its content at *@out (*@out_len
 * bytes) and the offset after it in *@next, until crib_frames_release().
 * 0 when it was not decoded ahead (the walk stopped before it, or it does
 * not decode): the caller decodes from @off itself and stops the workers.
 */
int crib_frames_get(struct crib_frames *f, size_t off, const uint8_t **out, size_t *out_len,
		    size_t *next);
void crib_frames_release(struct crib_frames *f);
void crib_frames_stop(struct crib_frames *f);

/* ---- cbor.c: encoding into a bounded buffer, decoding one item head at a time ---- */

/* A growable output buffer that refuses to grow past limit. */
struct crib_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t limit;
	bool overflow;		/* a write was refused: the content is incomplete */
	bool nomem;
};

void crib_buf_init(struct crib_buf *b, size_t limit);
void crib_buf_free(struct crib_buf *b);
void crib_buf_put(struct crib_buf *b, const void *data, size_t len);
void crib_cbor_uint(struct crib_buf *b, uint64_t v);
void crib_cbor_int(struct crib_buf *b, int64_t v);
void crib_cbor_bool(struct crib_buf *b, bool v);
void crib_cbor_bytes(struct crib_buf *b, const void *data, size_t len);
void crib_cbor_text(struct crib_buf *b, const char *s, size_t len);
void crib_cbor_array(struct crib_buf *b, size_t n);
void crib_cbor_map(struct crib_buf *b, size_t n);

enum crib_tok_kind {
	CRIB_TOK_NONE,
	CRIB_TOK_UINT,
	CRIB_TOK_NEGINT,	/* value is -1 - val */
	CRIB_TOK_BYTES,
	CRIB_TOK_TEXT,
	CRIB_TOK_ARRAY,
	CRIB_TOK_MAP,
	CRIB_TOK_BOOL,
	CRIB_TOK_NULL,
	CRIB_TOK_UNSUPPORTED,	/* tags, floats, indefinite lengths, undefined, simple */
};

struct crib_tok {
	enum crib_tok_kind kind;
	uint64_t val;		/* integer, bool, or element count */
	const uint8_t *ptr;	/* string data */
	size_t len;		/* string length */
};

enum crib_tok_status {
	CRIB_TOK_OK,
	CRIB_TOK_NEED,		/* *used says how many bytes the item head needs */
	CRIB_TOK_BAD,
};

/* Decode one item head (and string data) from buf[0..avail). */
enum crib_tok_status crib_tok_next(const uint8_t *buf, size_t avail, struct crib_tok *tok,
				   size_t *used);

/*
 * Checks one record's extent and generic rules (well-formed, definite
 * lengths, limits, ascending uint map keys) a token at a time, so the reader
 * can supply more bytes when it runs short.
 */
struct crib_skim_frame {
	uint64_t remaining;	/* items left; a map entry counts two */
	uint64_t last_key;
	bool is_map;
	bool have_key;
};

struct crib_skim {
	size_t pos;
	unsigned depth;
	bool started;
	struct crib_skim_frame stack[CRIB_LIMIT_DEPTH];
};

enum crib_skim_status {
	CRIB_SKIM_DONE,		/* the record is skim->pos bytes long */
	CRIB_SKIM_NEED,		/* needs at least *need bytes in the buffer */
	CRIB_SKIM_ERROR,
};

void crib_skim_reset(struct crib_skim *s);
enum crib_skim_status crib_skim_step(struct crib_skim *s, const uint8_t *buf, size_t avail,
				     size_t *need, struct crib_error *err, uint64_t base_off);

/* ---- schema.c: table-driven encoding and decoding ---- */

/* A bump allocator for decoded records, bounded by CRIB_LIMIT_DECODED. */
struct crib_arena_block;
struct crib_arena {
	struct crib_arena_block *head;
	size_t used;		/* bytes handed out since the last reset */
	size_t allocated;	/* bytes of blocks currently held */
	size_t peak;
};

void crib_arena_reset(struct crib_arena *a);
void crib_arena_free(struct crib_arena *a);
void *crib_arena_alloc(struct crib_arena *a, size_t size);

bool crib_struct_is_default(const struct crib_struct_desc *d, const void *s);

/*
 * @len bytes from @data written as records of @type, CRIB_CHUNK_MAX bytes
 * at most each: @body is the record, @chunk its field that points at the
 * bytes, and @counter its field that moves on with each record: by the
 * chunk's length when @step is 0, else by @step.
 */
int crib_write_chunks(struct crib_writer *w, uint32_t type, const void *body,
		      struct crib_blob *chunk, uint64_t *counter, uint64_t step,
		      const void *data, size_t len);
/* Encode a struct as a CBOR map; returns false with *err filled on a bad value. */
bool crib_encode_struct(struct crib_buf *b, const struct crib_struct_desc *d, const void *s,
			struct crib_error *err);

struct crib_cursor {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	uint64_t base;		/* stream offset of buf[0], for messages */
};

bool crib_cursor_next(struct crib_cursor *c, struct crib_tok *tok, struct crib_error *err);
bool crib_cursor_skip(struct crib_cursor *c, struct crib_error *err);
bool crib_decode_struct(struct crib_cursor *c, const struct crib_struct_desc *d, void *s,
			struct crib_arena *a, const char *rec_name, struct crib_error *err);

extern const struct crib_struct_desc crib_siginfo_desc;

bool crib_utf8_valid(const uint8_t *s, size_t len);

/* Record-specific checks after decoding (pages sizes and the like). */
bool crib_record_check(const struct crib_record *rec, uint64_t page_size, struct crib_error *err);

#endif /* CRIB_INTERNAL_H */
