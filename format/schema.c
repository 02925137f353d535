// SPDX-License-Identifier: GPL-2.0-only
/*
 * The record type registry and the table-driven encoder and decoder.  The
 * field tables themselves live with their resource kind (process.c, mm.c,
 * files.c, sockets.c, signals.c, meta.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The one table of record types, sorted by type. */
static const struct crib_record_info record_types[] = {
	{ CRIB_REC_HEADER, "header", "meta", &crib_header_desc },
	{ CRIB_REC_TRAILER, "trailer", "meta", &crib_trailer_desc },
	{ CRIB_REC_PROCESS, "process", "proc", &crib_process_desc },
	{ CRIB_REC_THREAD, "thread", "proc", &crib_thread_desc },
	{ CRIB_REC_SECCOMP_FILTER, "seccomp_filter", "proc", &crib_seccomp_filter_desc },
	{ CRIB_REC_SECCOMP, "seccomp", "proc", &crib_seccomp_desc },
	{ CRIB_REC_MM, "mm", "mm", &crib_mm_desc },
	{ CRIB_REC_VMA, "vma", "mm", &crib_vma_desc },
	{ CRIB_REC_PAGES, "pages", "mm", &crib_pages_desc },
	{ CRIB_REC_SHMEM, "shmem", "mm", &crib_shmem_desc },
	{ CRIB_REC_STORED_PAGES, "stored_pages", "mm", &crib_stored_pages_desc },
	{ CRIB_REC_FILE, "file", "files", &crib_file_desc },
	{ CRIB_REC_PIPE, "pipe", "files", &crib_pipe_desc },
	{ CRIB_REC_PIPE_DATA, "pipe_data", "files", &crib_pipe_data_desc },
	{ CRIB_REC_TIMERFD, "timerfd", "files", &crib_timerfd_desc },
	{ CRIB_REC_EPOLL_ITEM, "epoll_item", "files", &crib_epoll_item_desc },
	{ CRIB_REC_GHOST, "ghost", "files", &crib_ghost_desc },
	{ CRIB_REC_GHOST_DATA, "ghost_data", "files", &crib_ghost_data_desc },
	{ CRIB_REC_INOTIFY_WATCH, "inotify_watch", "files", &crib_inotify_watch_desc },
	{ CRIB_REC_FILE_LOCK, "file_lock", "files", &crib_file_lock_desc },
	{ CRIB_REC_TTY, "tty", "files", &crib_tty_desc },
	{ CRIB_REC_PIDFD, "pidfd", "files", &crib_pidfd_desc },
	{ CRIB_REC_SOCKET, "socket", "net", &crib_socket_desc },
	{ CRIB_REC_SOCKET_QUEUE, "socket_queue", "net", &crib_socket_queue_desc },
	{ CRIB_REC_SOCKET_FILTER, "socket_filter", "net", &crib_socket_filter_desc },
	{ CRIB_REC_SIGHAND, "sighand", "signals", &crib_sighand_desc },
	{ CRIB_REC_SIGPENDING, "sigpending", "signals", &crib_sigpending_desc },
	{ CRIB_REC_TIMERS, "timers", "signals", &crib_timers_desc },
	{ CRIB_REC_NOTE, "note", "meta", &crib_note_desc },
	{ CRIB_REC_DUMP_STATS, "dump_stats", "meta", &crib_dump_stats_desc },
};

const struct crib_record_info *crib_record_types(size_t *n)
{
	*n = ARRAY_SIZE(record_types);
	return record_types;
}

const struct crib_record_info *crib_record_info_by_type(uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(record_types); i++)
		if (record_types[i].type == type)
			return &record_types[i];
	return NULL;
}

const struct crib_record_info *crib_record_info_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(record_types); i++)
		if (!strcmp(record_types[i].name, name))
			return &record_types[i];
	return NULL;
}

const struct crib_field *crib_field_by_key(const struct crib_struct_desc *d, uint64_t key)
{
	for (size_t i = 0; i < d->nfields; i++)
		if (d->fields[i].key == key)
			return &d->fields[i];
	return NULL;
}

/* ---- arena ---- */

struct crib_arena_block {
	struct crib_arena_block *next;
	size_t size;
	size_t used;
	max_align_t data[];
};

#define ARENA_BLOCK_MIN (64u << 10)

void crib_arena_reset(struct crib_arena *a)
{
	struct crib_arena_block *b = a->head;

	/* Keep the first block: most records fit in it. */
	if (b) {
		struct crib_arena_block *next = b->next;

		while (next) {
			struct crib_arena_block *n = next->next;

			a->allocated -= sizeof(*next) + next->size;
			free(next);
			next = n;
		}
		b->next = NULL;
		b->used = 0;
	}
	a->used = 0;
}

void crib_arena_free(struct crib_arena *a)
{
	crib_arena_reset(a);
	free(a->head);
	memset(a, 0, sizeof(*a));
}

void *crib_arena_alloc(struct crib_arena *a, size_t size)
{
	struct crib_arena_block *b = a->head;
	size_t align = sizeof(max_align_t);
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (!size)
		size = align;
	if (size > CRIB_LIMIT_DECODED || a->used > CRIB_LIMIT_DECODED - size)
		return NULL;
	/* Allocation happens only in the head block; a new block goes in front. */
	if (!b || b->size - b->used < size) {
		size_t bsize = size > ARENA_BLOCK_MIN ? size : ARENA_BLOCK_MIN;

		b = malloc(sizeof(*b) + bsize);
		if (!b)
			return NULL;
		b->size = bsize;
		b->used = 0;
		b->next = a->head;
		a->head = b;
		a->allocated += sizeof(*b) + bsize;
		if (a->allocated > a->peak)
			a->peak = a->allocated;
	}
	p = (uint8_t *)b->data + b->used;
	b->used += size;
	a->used += size;
	memset(p, 0, size);
	return p;
}

/* ---- helpers ---- */

bool crib_utf8_valid(const uint8_t *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint8_t c = s[i];
		size_t n;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= n)
			return false;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		/* Overlong forms, surrogates, beyond U+10FFFF. */
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += n + 1;
	}
	return true;
}

static uint32_t field_max(const struct crib_field *f)
{
	if (f->max)
		return f->max;
	switch (f->type) {
	case CRIB_FT_TEXT:
		return CRIB_LIMIT_TEXT;
	case CRIB_FT_PATH:
		return CRIB_LIMIT_PATH;
	case CRIB_FT_BLOB:
		return CRIB_LIMIT_BYTES;
	default:
		return CRIB_LIMIT_ITEMS;
	}
}

#define FIELD_PTR(s, f) ((const uint8_t *)(s) + (f)->offset)
#define FIELD_COUNT(s, f) (*(const size_t *)((const uint8_t *)(s) + (f)->count_offset))

static bool field_is_default(const struct crib_field *f, const void *s)
{
	const void *p = FIELD_PTR(s, f);

	switch (f->type) {
	case CRIB_FT_UINT:
		return *(const uint64_t *)p == 0;
	case CRIB_FT_INT:
		return *(const int64_t *)p == 0;
	case CRIB_FT_BOOL:
		return !*(const bool *)p;
	case CRIB_FT_TEXT:
	case CRIB_FT_PATH: {
		const char *str = *(const char *const *)p;

		return !str || !*str;
	}
	case CRIB_FT_BLOB:
		return ((const struct crib_blob *)p)->len == 0;
	case CRIB_FT_UINT_ARRAY:
	case CRIB_FT_STRUCT_ARRAY:
		return FIELD_COUNT(s, f) == 0;
	case CRIB_FT_STRUCT:
		return crib_struct_is_default(f->sub, p);
	}
	return true;
}

bool crib_struct_is_default(const struct crib_struct_desc *d, const void *s)
{
	for (size_t i = 0; i < d->nfields; i++)
		if (!field_is_default(&d->fields[i], s))
			return false;
	return true;
}

/* ---- encoding ---- */

static bool encode_field(struct crib_buf *b, const struct crib_field *f, const void *s,
			 const struct crib_struct_desc *d, struct crib_error *err)
{
	const void *p = FIELD_PTR(s, f);
	uint32_t max = field_max(f);

	switch (f->type) {
	case CRIB_FT_UINT:
		crib_cbor_uint(b, *(const uint64_t *)p);
		return true;
	case CRIB_FT_INT:
		crib_cbor_int(b, *(const int64_t *)p);
		return true;
	case CRIB_FT_BOOL:
		crib_cbor_bool(b, *(const bool *)p);
		return true;
	case CRIB_FT_TEXT:
	case CRIB_FT_PATH: {
		const char *str = *(const char *const *)p;
		size_t len = str ? strlen(str) : 0;

		if (len > max)
			goto too_long;
		if (f->type == CRIB_FT_TEXT) {
			if (!crib_utf8_valid((const uint8_t *)str, len)) {
				crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE,
					       "%s.%s is not valid UTF-8", d->name, f->name);
				return false;
			}
			crib_cbor_text(b, str ? str : "", len);
		} else {
			crib_cbor_bytes(b, str ? str : "", len);
		}
		return true;
	}
	case CRIB_FT_BLOB: {
		const struct crib_blob *blob = p;

		if (blob->len > max)
			goto too_long;
		if (blob->len && !blob->data) {
			crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE, "%s.%s: NULL data",
				       d->name, f->name);
			return false;
		}
		crib_cbor_bytes(b, blob->data, blob->len);
		return true;
	}
	case CRIB_FT_UINT_ARRAY: {
		const uint64_t *v = *(const uint64_t *const *)p;
		size_t n = FIELD_COUNT(s, f);

		if (n > max)
			goto too_long;
		if (n && !v)
			goto null_array;
		crib_cbor_array(b, n);
		for (size_t i = 0; i < n; i++)
			crib_cbor_uint(b, v[i]);
		return true;
	}
	case CRIB_FT_STRUCT:
		return crib_encode_struct(b, f->sub, p, err);
	case CRIB_FT_STRUCT_ARRAY: {
		const uint8_t *v = *(const uint8_t *const *)p;
		size_t n = FIELD_COUNT(s, f);

		if (n > max)
			goto too_long;
		if (n && !v)
			goto null_array;
		crib_cbor_array(b, n);
		for (size_t i = 0; i < n; i++)
			if (!crib_encode_struct(b, f->sub, v + i * f->sub->size, err))
				return false;
		return true;
	}
	}
	crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE, "bad field type");
	return false;

too_long:
	crib_set_error(err, CRIB_E_LIMIT, CRIB_OFFSET_NONE, "%s.%s is longer than %u",
		       d->name, f->name, max);
	return false;
null_array:
	crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE, "%s.%s: NULL array", d->name,
		       f->name);
	return false;
}

/*
 * Fields equal to their default are left out unless required, which keeps
 * the encoding canonical: one struct value, one byte sequence.
 */
bool crib_encode_struct(struct crib_buf *b, const struct crib_struct_desc *d, const void *s,
			struct crib_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nfields; i++)
		if ((d->fields[i].flags & CRIB_FIELD_REQUIRED) || !field_is_default(&d->fields[i], s))
			n++;
	crib_cbor_map(b, n);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct crib_field *f = &d->fields[i];

		if (!(f->flags & CRIB_FIELD_REQUIRED) && field_is_default(f, s))
			continue;
		crib_cbor_uint(b, f->key);
		if (!encode_field(b, f, s, d, err))
			return false;
	}
	return true;
}

/* ---- decoding ---- */

static bool schema_error(struct crib_error *err, uint64_t off, const char *rec,
			 const struct crib_struct_desc *d, const struct crib_field *f,
			 const char *what)
{
	crib_set_error(err, CRIB_E_SCHEMA, off, "%s: %s.%s (key %u): %s", rec, d->name, f->name,
		       f->key, what);
	return false;
}

static bool decode_uint(struct crib_cursor *c, uint64_t *out, const char *rec,
			const struct crib_struct_desc *d, const struct crib_field *f,
			struct crib_error *err)
{
	uint64_t off = c->base + c->pos;
	struct crib_tok tok;

	if (!crib_cursor_next(c, &tok, err))
		return false;
	if (tok.kind != CRIB_TOK_UINT)
		return schema_error(err, off, rec, d, f, "expected an unsigned integer");
	*out = tok.val;
	return true;
}

static bool decode_string(struct crib_cursor *c, const struct crib_tok *tok, void *p,
			  struct crib_arena *a, const char *rec, const struct crib_struct_desc *d,
			  const struct crib_field *f, uint64_t off, struct crib_error *err)
{
	char *copy;

	if (f->type == CRIB_FT_TEXT && tok->kind != CRIB_TOK_TEXT)
		return schema_error(err, off, rec, d, f, "expected a text string");
	if (f->type == CRIB_FT_PATH && tok->kind != CRIB_TOK_BYTES)
		return schema_error(err, off, rec, d, f, "expected a byte string");
	if (tok->len > field_max(f))
		return schema_error(err, off, rec, d, f, "string too long");
	if (memchr(tok->ptr, 0, tok->len))
		return schema_error(err, off, rec, d, f, "string contains a NUL byte");
	if (f->type == CRIB_FT_TEXT && !crib_utf8_valid(tok->ptr, tok->len))
		return schema_error(err, off, rec, d, f, "text is not valid UTF-8");
	copy = crib_arena_alloc(a, tok->len + 1);
	if (!copy)
		goto too_big;
	memcpy(copy, tok->ptr, tok->len);
	copy[tok->len] = '\0';
	*(const char **)p = copy;
	(void)c;
	return true;
too_big:
	crib_set_error(err, CRIB_E_LIMIT, off, "%s: decoded record exceeds %u bytes", rec,
		       CRIB_LIMIT_DECODED);
	return false;
}

static bool decode_field(struct crib_cursor *c, const struct crib_field *f, void *s,
			 struct crib_arena *a, const char *rec, const struct crib_struct_desc *d,
			 struct crib_error *err)
{
	uint8_t *p = (uint8_t *)s + f->offset;
	uint64_t off = c->base + c->pos;
	struct crib_tok tok;

	if (f->type == CRIB_FT_UINT)
		return decode_uint(c, (uint64_t *)p, rec, d, f, err);
	if (f->type == CRIB_FT_STRUCT)
		return crib_decode_struct(c, f->sub, p, a, rec, err);
	if (!crib_cursor_next(c, &tok, err))
		return false;

	switch (f->type) {
	case CRIB_FT_INT:
		if (tok.kind == CRIB_TOK_UINT && tok.val <= INT64_MAX)
			*(int64_t *)p = (int64_t)tok.val;
		else if (tok.kind == CRIB_TOK_NEGINT && tok.val <= INT64_MAX)
			*(int64_t *)p = -(int64_t)tok.val - 1;
		else
			return schema_error(err, off, rec, d, f, "expected a 64-bit signed integer");
		return true;
	case CRIB_FT_BOOL:
		if (tok.kind != CRIB_TOK_BOOL)
			return schema_error(err, off, rec, d, f, "expected a boolean");
		*(bool *)p = tok.val;
		return true;
	case CRIB_FT_TEXT:
	case CRIB_FT_PATH:
		return decode_string(c, &tok, p, a, rec, d, f, off, err);
	case CRIB_FT_BLOB:
		if (tok.kind != CRIB_TOK_BYTES)
			return schema_error(err, off, rec, d, f, "expected a byte string");
		if (tok.len > field_max(f))
			return schema_error(err, off, rec, d, f, "byte string too long");
		/* Points into the record buffer, which lives as long as the record. */
		((struct crib_blob *)p)->data = tok.ptr;
		((struct crib_blob *)p)->len = tok.len;
		return true;
	case CRIB_FT_UINT_ARRAY:
	case CRIB_FT_STRUCT_ARRAY: {
		size_t esize = f->type == CRIB_FT_UINT_ARRAY ? sizeof(uint64_t) : f->sub->size;
		uint8_t *v;

		if (tok.kind != CRIB_TOK_ARRAY)
			return schema_error(err, off, rec, d, f, "expected an array");
		if (tok.val > field_max(f))
			return schema_error(err, off, rec, d, f, "array has too many elements");
		/* tok.val <= CRIB_LIMIT_ITEMS, so the product cannot overflow. */
		v = crib_arena_alloc(a, tok.val * esize);
		if (!v) {
			crib_set_error(err, CRIB_E_LIMIT, off, "%s: decoded record exceeds %u bytes",
				       rec, CRIB_LIMIT_DECODED);
			return false;
		}
		for (size_t i = 0; i < tok.val; i++) {
			bool ok = f->type == CRIB_FT_UINT_ARRAY
				? decode_uint(c, (uint64_t *)v + i, rec, d, f, err)
				: crib_decode_struct(c, f->sub, v + i * esize, a, rec, err);
			if (!ok)
				return false;
		}
		*(uint8_t **)p = v;
		*(size_t *)((uint8_t *)s + f->count_offset) = tok.val;
		return true;
	}
	default:
		break;
	}
	return schema_error(err, off, rec, d, f, "bad field type");
}

/*
 * Decode a map into a zeroed struct.  Keys are ascending (the skim pass
 * checked), unknown keys are skipped, missing keys keep their default.
 */
bool crib_decode_struct(struct crib_cursor *c, const struct crib_struct_desc *d, void *s,
			struct crib_arena *a, const char *rec, struct crib_error *err)
{
	uint64_t off = c->base + c->pos;
	uint64_t seen = 0;	/* fields seen, by index into d->fields */
	struct crib_tok tok;

	if (!crib_cursor_next(c, &tok, err))
		return false;
	if (tok.kind != CRIB_TOK_MAP) {
		crib_set_error(err, CRIB_E_SCHEMA, off, "%s: %s is a %s, expected a map", rec,
			       d->name, tok.kind == CRIB_TOK_ARRAY ? "array" : "scalar");
		return false;
	}
	memset(s, 0, d->size);
	for (uint64_t i = 0; i < tok.val; i++) {
		const struct crib_field *f;
		struct crib_tok key;

		if (!crib_cursor_next(c, &key, err))
			return false;
		f = crib_field_by_key(d, key.val);
		if (!f) {
			if (!crib_cursor_skip(c, err))
				return false;
			continue;
		}
		seen |= 1ull << (f - d->fields);
		if (!decode_field(c, f, s, a, rec, d, err))
			return false;
	}
	for (size_t i = 0; i < d->nfields; i++) {
		if ((d->fields[i].flags & CRIB_FIELD_REQUIRED) && !(seen & (1ull << i))) {
			crib_set_error(err, CRIB_E_SCHEMA, off, "%s: %s.%s (key %u) is missing",
				       rec, d->name, d->fields[i].name, d->fields[i].key);
			return false;
		}
	}
	return true;
}
