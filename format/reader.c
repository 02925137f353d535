// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming reader.  Input flows source -> zstd -> record buffer; a record
 * is first skimmed (extent, well-formedness, limits) a token at a time,
 * pulling more input only as needed, then decoded against the schema.  At
 * no point does a length or count from the input size an allocation before
 * it is checked: buffers are fixed, the decoded-record arena is capped.
 * The data of a stored_pages record bypasses zstd: it is handed out where
 * it lies in a snapshot in memory, or read into a buffer of one chunk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "internal.h"

struct crib_decoder {
	struct crib_arena arena;
};

struct crib_reader {
	crib_read_fn read_fn;
	void *ctx;
	int fd;
	const uint8_t *mem;		/* crib_reader_opts.mem */
	size_t mem_len, mem_pos;

	ZSTD_DCtx *dctx;
	uint8_t *in;			/* read into, or the memory read from */
	bool in_borrowed;		/* in is the caller's memory: never written */
	size_t in_cap, in_pos, in_len;
	uint64_t in_total;		/* bytes taken from the source */
	bool src_eof;
	bool frame_done;		/* last zstd call ended a frame */
	bool frame_start;		/* the next input byte starts a frame */

	uint8_t *data;			/* a stored_pages record's data, read from a file */

	struct crib_frames *frames;	/* frames decoded ahead, or NULL */
	struct {
		const uint8_t *out;	/* the content of the frame at in_pos */
		size_t len, pos;	/* pos: bytes of it taken into buf */
		size_t next;		/* where the frame after it starts */
		bool active;
	} ahead;

	uint8_t *buf;			/* decompressed bytes not yet consumed */
	size_t buf_cap, start, end;
	uint64_t buf_off;		/* stream offset of buf[start] */
	uint64_t max_size;		/* most stream bytes to inflate */

	struct crib_skim skim;
	struct crib_arena arena;	/* the current record */
	struct crib_arena hdr_arena;	/* the header, kept for the reader's life */
	struct crib_header header;
	uint8_t *header_raw;		/* in hdr_arena */
	size_t header_raw_len;

	struct crib_xxh64 hash;
	uint64_t stream_bytes;
	uint64_t records;
	struct crib_type_count counts[CRIB_LIMIT_TYPES];
	size_t n_counts;

	bool header_returned;
	bool done;
	bool failed;
	struct crib_error err;
};

static ssize_t fd_read(void *ctx, void *buf, size_t len)
{
	return read(*(int *)ctx, buf, len);
}

static ssize_t mem_read(void *ctx, void *buf, size_t len)
{
	struct crib_reader *r = ctx;
	size_t n = r->mem_len - r->mem_pos;

	if (n > len)
		n = len;
	memcpy(buf, r->mem + r->mem_pos, n);
	r->mem_pos += n;
	return (ssize_t)n;
}

static uint64_t file_offset(const struct crib_reader *r)
{
	return r->in_total - (r->in_len - r->in_pos);
}

/* Record the first error; later ones are consequences. */
static int fail(struct crib_reader *r, enum crib_err code, uint64_t off, const char *msg)
{
	if (!r->failed) {
		crib_set_error(&r->err, code, off, "%s", msg);
		r->err.file_offset = file_offset(r);
		r->failed = true;
	}
	return -1;
}

static int fail_with(struct crib_reader *r, const struct crib_error *err)
{
	if (!r->failed) {
		r->err = *err;
		r->err.file_offset = file_offset(r);
		r->failed = true;
	}
	return -1;
}

static int read_source(struct crib_reader *r, void *buf, size_t len, size_t *got)
{
	ssize_t n;

	do
		n = r->read_fn(r->ctx, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		crib_set_error(&r->err, CRIB_E_IO, CRIB_OFFSET_NONE, "read: %s", strerror(errno));
		r->err.file_offset = r->in_total;
		r->failed = true;
		return -1;
	}
	r->in_total += (uint64_t)n;
	*got = (size_t)n;
	return 0;
}

/*
 * At least @need bytes of input at in[in_pos] (@need no more than in_cap).
 * Returns 1 when they are there, 0 when the input ends first, -1 on error.
 */
static int input_want(struct crib_reader *r, size_t need)
{
	size_t got;

	while (r->in_len - r->in_pos < need) {
		if (r->src_eof)
			return 0;
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_len -= r->in_pos;
		r->in_pos = 0;
		if (read_source(r, r->in + r->in_len, r->in_cap - r->in_len, &got))
			return -1;
		r->in_len += got;
		r->src_eof = got == 0;
	}
	return 1;
}

/*
 * At a frame start: the frame must be a zstd frame proper (or a skippable
 * one).  libzstd also decodes legacy frames, whose decoders size their
 * buffers from the frame header without the window limit set on the
 * context.  Returns 0 when the frame is fine or the input ends before its
 * magic (zstd then reports the truncation), -1 with the error set.
 */
static int check_frame_magic(struct crib_reader *r)
{
	uint32_t magic;
	int k = input_want(r, 4);

	if (k <= 0)
		return k;	/* at the end, zstd reports the truncation */
	magic = crib_get_le32(r->in + r->in_pos);
	if (magic != ZSTD_MAGICNUMBER && (magic & ZSTD_MAGIC_SKIPPABLE_MASK) !=
	    ZSTD_MAGIC_SKIPPABLE_START) {
		char msg[80];

		snprintf(msg, sizeof(msg), "not a zstd frame (magic %#x)", magic);
		return fail(r, CRIB_E_ZSTD, r->buf_off + (r->end - r->start), msg);
	}
	r->frame_start = false;
	return 0;
}

/* The frame decoded ahead is taken whole: on to the next. */
static void ahead_finish(struct crib_reader *r)
{
	r->in_pos = r->ahead.next;
	r->ahead.active = false;
	r->frame_done = r->frame_start = true;
	crib_frames_release(r->frames);
}

/* Decoding ahead ends here: zstd in this thread goes on from the next frame. */
static void ahead_stop(struct crib_reader *r)
{
	crib_frames_stop(r->frames);
	r->frames = NULL;
}

/*
 * With frames decoded ahead, at a frame start: skip a skippable frame,
 * or take the next frame's content from the workers.  Returns 1 when it
 * made progress, 0 when the frame is to be decoded here (the workers
 * stopped before it, or it is damaged: zstd says how), -1 on error.
 */
static int fill_ahead(struct crib_reader *r)
{
	const uint8_t *p = r->in + r->in_pos;
	size_t rem = r->in_len - r->in_pos, n;
	uint32_t magic;

	if (r->ahead.active && r->ahead.pos == r->ahead.len) {
		ahead_finish(r);
		return 1;
	}
	if (!r->ahead.active) {
		if (!r->frame_start || rem < 8)
			return 0;
		magic = crib_get_le32(p);
		if ((magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START) {
			n = crib_get_le32(p + 4);
			if (n > rem - 8)
				return 0;
			r->in_pos += 8 + n;
			return 1;
		}
		if (magic != ZSTD_MAGICNUMBER ||
		    crib_frames_get(r->frames, r->in_pos, &r->ahead.out, &r->ahead.len,
				    &r->ahead.next) <= 0) {
			ahead_stop(r);
			return 0;
		}
		r->ahead.pos = 0;
		r->ahead.active = true;
		r->frame_start = r->frame_done = false;
	}
	n = r->ahead.len - r->ahead.pos;
	if (n > r->buf_cap - r->end)
		n = r->buf_cap - r->end;
	memcpy(r->buf + r->end, r->ahead.out + r->ahead.pos, n);
	r->ahead.pos += n;
	r->end += n;
	return 1;
}

/*
 * Make at least need bytes available at buf[start].  Returns 1 when they
 * are, 0 when the input ended cleanly first (at a frame boundary), -1 on
 * error.
 */
static int fill(struct crib_reader *r, size_t need)
{
	while (r->end - r->start < need) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		size_t ret, old_in, old_out;

		if (r->buf_cap - r->end < ZSTD_DStreamOutSize() && r->start) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		if (r->frames) {
			int k = fill_ahead(r);

			if (k)
				continue;
		}
		if (r->in_pos == r->in_len && !r->src_eof) {
			size_t got;

			if (read_source(r, r->in, r->in_cap, &got))
				return -1;
			r->in_pos = 0;
			r->in_len = got;
			r->src_eof = got == 0;
		}
		if (r->in_pos == r->in_len && r->src_eof && r->frame_done)
			return 0;
		if (r->frame_start && r->in_pos < r->in_len && check_frame_magic(r))
			return -1;
		in = (ZSTD_inBuffer){ r->in, r->in_len, r->in_pos };
		out = (ZSTD_outBuffer){ r->buf, r->buf_cap, r->end };
		old_in = in.pos;
		old_out = out.pos;
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		if (ZSTD_isError(ret)) {
			char msg[160];

			snprintf(msg, sizeof(msg), "zstd: %s", ZSTD_getErrorName(ret));
			return fail(r, CRIB_E_ZSTD, r->buf_off + (r->end - r->start), msg);
		}
		r->in_pos = in.pos;
		r->end = out.pos;
		if (ret == 0)
			r->frame_done = r->frame_start = true;
		else if (in.pos != old_in)
			r->frame_done = false;
		if (in.pos == old_in && out.pos == old_out && r->in_pos == r->in_len &&
		    r->src_eof) {
			if (r->frame_done)
				return 0;
			return fail(r, CRIB_E_TRUNCATED, r->buf_off + (r->end - r->start),
				    "input ends inside a zstd frame");
		}
	}
	return 1;
}

/* ---- record decoding, shared with crib_decoder ---- */

bool crib_record_check(const struct crib_record *rec, uint64_t page_size,
		       struct crib_error *err)
{
	const char *why = NULL;

	switch (rec->type) {
	case CRIB_REC_HEADER:
		if (!crib_page_size_valid(rec->u.header.page_size))
			why = "header: page_size is not a power of two in [512, 65536]";
		break;
	case CRIB_REC_VMA:
		if (rec->u.vma.start >= rec->u.vma.end || rec->u.vma.start % page_size ||
		    rec->u.vma.end % page_size)
			why = "vma: start and end are not ordered, page-aligned addresses";
		break;
	case CRIB_REC_SHMEM:
		if (!rec->u.shmem.shmem_id || !rec->u.shmem.size || rec->u.shmem.size % page_size)
			why = "shmem: no id, or a size that is not a whole number of pages";
		break;
	case CRIB_REC_GHOST:
		if (!rec->u.ghost.ghost_id)
			why = "ghost: no id";
		break;
	case CRIB_REC_GHOST_DATA: {
		const struct crib_ghost_data *d = &rec->u.ghost_data;

		if (!d->data.len || d->offset > UINT64_MAX - d->data.len)
			why = "ghost_data: empty, or past the largest offset";
		break;
	}
	case CRIB_REC_STORED_PAGES: {
		const struct crib_pages *p = &rec->u.pages;

		/* its data is checked against npages when the reader finds it */
		if (!p->npages || p->addr % page_size || p->npages > CRIB_CHUNK_MAX / page_size ||
		    p->npages > (UINT64_MAX - p->addr) / page_size + 1)
			why = "stored_pages: bad address or page count";
		break;
	}
	case CRIB_REC_PAGES: {
		const struct crib_pages *p = &rec->u.pages;

		if (!p->npages || p->addr % page_size ||
		    p->npages > (UINT64_MAX - p->addr) / page_size + 1)
			why = "pages: bad address or page count";
		else if (p->data.len && (p->npages > CRIB_CHUNK_MAX / page_size ||
					 p->data.len != p->npages * page_size))
			why = "pages: data length is not npages * page_size";
		break;
	}
	default:
		break;
	}
	if (why) {
		crib_set_error(err, CRIB_E_SCHEMA, rec->offset, "%s", why);
		return false;
	}
	return true;
}

/* Decode a skimmed record: [type, body]. */
static bool decode_record(struct crib_arena *a, const uint8_t *raw, size_t len, uint64_t off,
			  uint64_t page_size, struct crib_record *rec, struct crib_error *err)
{
	struct crib_cursor c = { .buf = raw, .len = len, .base = off };
	struct crib_tok tok;

	memset(rec, 0, sizeof(*rec));
	rec->offset = off;
	rec->raw = raw;
	rec->raw_len = len;
	crib_arena_reset(a);
	if (!crib_cursor_next(&c, &tok, err))	/* the array head, checked by the skim */
		return false;
	if (!crib_cursor_next(&c, &tok, err))
		return false;
	if (tok.kind != CRIB_TOK_UINT || tok.val == 0 || tok.val > CRIB_REC_TYPE_MAX) {
		crib_set_error(err, CRIB_E_SCHEMA, off,
			       "record type is not an integer in 1..65535");
		return false;
	}
	rec->type = (uint32_t)tok.val;
	rec->info = crib_record_info_by_type(rec->type);
	if (!rec->info) {
		if (crib_record_is_critical(rec->type)) {
			crib_set_error(err, CRIB_E_CRITICAL, off,
				       "type 0x%04x, which this reader (format %d.%d) does not know: "
				       "the snapshot needs a newer reader",
				       rec->type, CRIB_VERSION_MAJOR, CRIB_VERSION_MINOR);
			return false;
		}
		if (!crib_cursor_next(&c, &tok, err))
			return false;
		if (tok.kind != CRIB_TOK_MAP) {
			crib_set_error(err, CRIB_E_SCHEMA, off, "record 0x%04x: body is not a map",
				       rec->type);
			return false;
		}
		return true;	/* ancillary and unknown: left opaque */
	}
	if (!crib_decode_struct(&c, rec->info->body, &rec->u, a, rec->info->name, err))
		return false;
	return crib_record_check(rec, page_size, err);
}

/* ---- the reader ---- */

static int count_type(struct crib_reader *r, uint32_t type)
{
	size_t i;

	for (i = 0; i < r->n_counts && r->counts[i].type < type; i++)
		;
	if (i < r->n_counts && r->counts[i].type == type) {
		r->counts[i].count++;
		return 0;
	}
	if (r->n_counts == CRIB_LIMIT_TYPES)
		return fail(r, CRIB_E_LIMIT, r->buf_off, "more than 256 distinct record types");
	memmove(&r->counts[i + 1], &r->counts[i], (r->n_counts - i) * sizeof(r->counts[0]));
	r->counts[i] = (struct crib_type_count){ .type = type, .count = 1 };
	r->n_counts++;
	return 0;
}

/* Find the next record's extent and decode it; the bytes stay at buf[start]. */
static int read_record(struct crib_reader *r, struct crib_arena *a, struct crib_record *rec)
{
	struct crib_error err = { 0 };
	size_t need = 1;
	int f;

	crib_skim_reset(&r->skim);
	for (;;) {
		switch (crib_skim_step(&r->skim, r->buf + r->start, r->end - r->start, &need, &err,
				       r->buf_off)) {
		case CRIB_SKIM_DONE:
			goto decode;
		case CRIB_SKIM_ERROR:
			return fail_with(r, &err);
		case CRIB_SKIM_NEED:
			break;
		}
		f = fill(r, need);
		if (f < 0)
			return -1;
		if (f == 0)
			return fail(r, CRIB_E_TRUNCATED, r->buf_off + (r->end - r->start),
				    r->end == r->start ? "record stream ends without a trailer"
						       : "record stream ends inside a record");
	}
decode:
	if (!decode_record(a, r->buf + r->start, r->skim.pos, r->buf_off,
			   r->header.page_size, rec, &err))
		return fail_with(r, &err);
	return 0;
}

static void consume_record(struct crib_reader *r, const struct crib_record *rec)
{
	r->start += rec->raw_len;
	r->buf_off += rec->raw_len;
}

static int check_trailer(struct crib_reader *r, const struct crib_trailer *t)
{
	uint64_t off = r->buf_off;
	char msg[200];

	/* counts first: a record lost or added is named as such, not as damage */
	if (t->records != r->records) {
		snprintf(msg, sizeof(msg), "the trailer counts %llu records, the stream has %llu",
			 (unsigned long long)t->records, (unsigned long long)r->records);
		return fail(r, CRIB_E_COUNT, off, msg);
	}
	if (t->n_counts != r->n_counts)
		return fail(r, CRIB_E_COUNT, off,
			    "the trailer's record types are not the stream's");
	for (size_t i = 0; i < t->n_counts; i++) {
		if (t->counts[i].type != r->counts[i].type || t->counts[i].count != r->counts[i].count) {
			snprintf(msg, sizeof(msg),
				 "the trailer counts %llu records of type 0x%04llx, the stream differs",
				 (unsigned long long)t->counts[i].count,
				 (unsigned long long)t->counts[i].type);
			return fail(r, CRIB_E_COUNT, off, msg);
		}
	}
	if (t->stream_bytes != r->stream_bytes)
		return fail(r, CRIB_E_COUNT, off, "the trailer's byte count is not the stream's");
	if (t->checksum != crib_xxh64_digest(&r->hash))
		return fail(r, CRIB_E_CHECKSUM, off,
			    "the stream's XXH64 is not the trailer's: the snapshot is damaged");
	return 0;
}

/* ---- stored pages (1.4): data frames, read past zstd ---- */

/* Past @len bytes of input: 1, or 0 when the input ends first, -1 on error. */
static int input_skip(struct crib_reader *r, uint64_t len)
{
	size_t n;

	while (len) {
		if (r->in_pos == r->in_len && input_want(r, 1) <= 0)
			return r->failed ? -1 : 0;
		n = r->in_len - r->in_pos;
		if (n > len)
			n = (size_t)len;
		r->in_pos += n;
		len -= n;
	}
	return 1;
}

/*
 * The next @len (<= CRIB_CHUNK_MAX) bytes of input, where they lie in a
 * snapshot in memory, else read into r->data.  Returns 1 with *@data set,
 * 0 when the input ends first, -1 on error.
 */
static int input_take(struct crib_reader *r, size_t len, const uint8_t **data)
{
	size_t have = r->in_len - r->in_pos, got;

	if (r->in_borrowed || have >= len) {
		if (have < len)
			return 0;
		*data = r->in + r->in_pos;
		r->in_pos += len;
		return 1;
	}
	if (!r->data)
		r->data = malloc(CRIB_CHUNK_MAX);
	if (!r->data)
		return fail(r, CRIB_E_NOMEM, r->buf_off, "out of memory");
	memcpy(r->data, r->in + r->in_pos, have);
	r->in_pos += have;
	while (have < len) {
		if (read_source(r, r->data + have, len - have, &got))
			return -1;
		if (!got) {
			r->src_eof = true;
			return 0;
		}
		have += got;
	}
	*data = r->data;
	return 1;
}

/*
 * The stored_pages record just consumed must be the last of its zstd
 * frame: finish the frame (its checksum may be still to read) and find
 * nothing more in it.
 */
static int end_frame(struct crib_reader *r, uint64_t off)
{
	const char *last = "a stored_pages record is not the last of its zstd frame";
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	size_t ret;
	int k;

	if (r->end != r->start || (r->ahead.active && r->ahead.pos != r->ahead.len))
		return fail(r, CRIB_E_SCHEMA, off, last);
	r->start = r->end = 0;
	if (r->ahead.active)
		ahead_finish(r);
	while (!r->frame_done) {
		k = input_want(r, 1);
		if (k <= 0)
			return k < 0 ? -1 : fail(r, CRIB_E_TRUNCATED, off,
						 "input ends inside a zstd frame");
		in = (ZSTD_inBuffer){ r->in, r->in_len, r->in_pos };
		out = (ZSTD_outBuffer){ r->buf, r->buf_cap, 0 };
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		if (ZSTD_isError(ret)) {
			char msg[160];

			snprintf(msg, sizeof(msg), "zstd: %s", ZSTD_getErrorName(ret));
			return fail(r, CRIB_E_ZSTD, off, msg);
		}
		if (out.pos)
			return fail(r, CRIB_E_SCHEMA, off, last);
		r->in_pos = in.pos;
		if (ret == 0)
			r->frame_done = r->frame_start = true;
	}
	return 0;
}

/* The data frame of a stored_pages record at @off: past padding frames, its size checked. */
static int find_data_frame(struct crib_reader *r, uint64_t off, size_t len)
{
	const uint8_t *p;
	uint32_t magic, size;
	int k;

	for (;;) {
		k = input_want(r, CRIB_FRAME_HEADER_LEN);
		if (k <= 0)
			return k < 0 ? -1 : fail(r, CRIB_E_TRUNCATED, off,
						 "input ends before the data of a stored_pages record");
		p = r->in + r->in_pos;
		magic = crib_get_le32(p);
		size = crib_get_le32(p + 4);
		if ((magic & ZSTD_MAGIC_SKIPPABLE_MASK) != ZSTD_MAGIC_SKIPPABLE_START)
			return fail(r, CRIB_E_SCHEMA, off,
				    "a stored_pages record is not followed by its data frame");
		r->in_pos += CRIB_FRAME_HEADER_LEN;
		if (magic == CRIB_FRAME_DATA_MAGIC)
			break;
		k = input_skip(r, size);
		if (k <= 0)
			return k < 0 ? -1 : fail(r, CRIB_E_TRUNCATED, off,
						 "input ends inside a skippable frame");
	}
	if (size != len)
		return fail(r, CRIB_E_SCHEMA, off,
			    "the data frame of a stored_pages record is not npages * page_size long");
	return 0;
}

/*
 * A stored_pages record's data: the contents of the next data frame,
 * counted in the trailer's checksum right after the record.  The record
 * is handed out as the pages record it stands for.
 */
static int take_stored_data(struct crib_reader *r, struct crib_record *rec)
{
	size_t len = (size_t)(rec->u.pages.npages * r->header.page_size);
	const uint8_t *data;
	int k;

	if (end_frame(r, rec->offset) || find_data_frame(r, rec->offset, len))
		return -1;
	k = input_take(r, len, &data);
	if (k <= 0)
		return k < 0 ? -1 : fail(r, CRIB_E_TRUNCATED, rec->offset,
					 "input ends inside the data of a stored_pages record");
	crib_xxh64_update(&r->hash, data, len);
	rec->type = CRIB_REC_PAGES;
	rec->info = crib_record_info_by_type(CRIB_REC_PAGES);
	rec->stored = true;
	rec->u.pages.data = (struct crib_blob){ data, len };
	return 0;
}

/* After the trailer: nothing but the end of the zstd frame and of the input. */
static int check_end(struct crib_reader *r)
{
	int f;

	if (r->end != r->start)
		return fail(r, CRIB_E_TRAILING, r->buf_off, "records after the trailer");
	f = fill(r, 1);
	if (f > 0)
		return fail(r, CRIB_E_TRAILING, r->buf_off, "data after the trailer");
	if (f < 0 && r->err.code == CRIB_E_ZSTD && r->frame_done) {
		/* zstd choked on bytes after a complete frame: that is trailing junk. */
		r->err.code = CRIB_E_TRAILING;
		snprintf(r->err.msg, sizeof(r->err.msg), "garbage after the last zstd frame");
	}
	return f;
}

/*
 * The record stream up to the end of @rec against the bound set on it.
 * Checked on whole records, so that where a stream is refused does not
 * depend on how zstd's output was cut; fill() inflates at most a buffer
 * beyond the record asked for.
 */
static int check_max_size(struct crib_reader *r, const struct crib_record *rec)
{
	char msg[160];

	if (rec->offset + rec->raw_len <= r->max_size)
		return 0;
	snprintf(msg, sizeof(msg),
		 "the record stream inflates past %llu bytes, the size limit set on the reader",
		 (unsigned long long)r->max_size);
	return fail(r, CRIB_E_LIMIT, rec->offset, msg);
}

int crib_reader_next(struct crib_reader *r, struct crib_record *rec)
{
	if (r->failed)
		return -1;
	if (r->done)
		return 0;
	if (!r->header_returned) {
		/* The header was decoded by open(); hand it out first. */
		memset(rec, 0, sizeof(*rec));
		rec->type = CRIB_REC_HEADER;
		rec->info = crib_record_info_by_type(CRIB_REC_HEADER);
		rec->offset = 0;
		rec->raw = r->header_raw;
		rec->raw_len = r->header_raw_len;
		rec->u.header = r->header;
		r->header_returned = true;
		return 1;
	}
	if (read_record(r, &r->arena, rec) || check_max_size(r, rec))
		return -1;
	consume_record(r, rec);
	if (rec->type == CRIB_REC_HEADER)
		return fail(r, CRIB_E_SCHEMA, rec->offset, "a second header record");
	if (rec->type == CRIB_REC_TRAILER) {
		if (check_trailer(r, &rec->u.trailer) || check_end(r))
			return -1;
		r->done = true;
		return 1;
	}
	if (count_type(r, rec->type))
		return -1;
	crib_xxh64_update(&r->hash, rec->raw, rec->raw_len);
	r->stream_bytes += rec->raw_len;
	r->records++;
	if (rec->type == CRIB_REC_STORED_PAGES && take_stored_data(r, rec))
		return -1;
	return 1;
}

static int read_preamble(struct crib_reader *r)
{
	uint8_t pre[CRIB_PREAMBLE_LEN];
	uint16_t major, minor;
	size_t have = 0, got;
	char msg[200];

	while (have < sizeof(pre)) {
		if (read_source(r, pre + have, sizeof(pre) - have, &got))
			return -1;
		if (!got)
			break;
		have += got;
	}
	if (have < CRIB_MAGIC_LEN || memcmp(pre, CRIB_MAGIC, CRIB_MAGIC_LEN))
		return fail(r, CRIB_E_MAGIC, CRIB_OFFSET_NONE, "not a CRIB snapshot (bad magic)");
	if (have < sizeof(pre))
		return fail(r, CRIB_E_TRUNCATED, CRIB_OFFSET_NONE, "file ends inside the preamble");
	major = (uint16_t)(pre[8] | pre[9] << 8);
	minor = (uint16_t)(pre[10] | pre[11] << 8);
	if (major != CRIB_VERSION_MAJOR) {
		snprintf(msg, sizeof(msg),
			 major > CRIB_VERSION_MAJOR
			 ? "snapshot format %u.%u is newer than this reader (%u.%u): a newer crib is needed"
			 : "snapshot format %u.%u is older than any this reader (%u.%u) supports",
			 major, minor, CRIB_VERSION_MAJOR, CRIB_VERSION_MINOR);
		return fail(r, CRIB_E_VERSION, CRIB_OFFSET_NONE, msg);
	}
	/* A newer minor is read; its additions are ancillary or unknown keys. */
	r->header.version_major = major;
	r->header.version_minor = minor;
	crib_xxh64_update(&r->hash, pre, sizeof(pre));
	return 0;
}

static int read_header(struct crib_reader *r)
{
	struct crib_record rec;
	uint16_t major = r->header.version_major, minor = r->header.version_minor;

	/* Pages checks need a page size before the header gives one; none apply here. */
	r->header.page_size = CRIB_PAGE_SIZE_MIN;
	if (read_record(r, &r->hdr_arena, &rec))
		return -1;
	if (rec.type != CRIB_REC_HEADER)
		return fail(r, CRIB_E_SCHEMA, rec.offset, "the first record is not a header");
	r->header_raw = crib_arena_alloc(&r->hdr_arena, rec.raw_len);
	if (!r->header_raw)
		return fail(r, CRIB_E_LIMIT, rec.offset, "header record too large");
	memcpy(r->header_raw, rec.raw, rec.raw_len);
	r->header_raw_len = rec.raw_len;
	consume_record(r, &rec);
	r->header = rec.u.header;
	r->header.version_major = major;
	r->header.version_minor = minor;
	if (count_type(r, rec.type))
		return -1;
	crib_xxh64_update(&r->hash, rec.raw, rec.raw_len);
	r->stream_bytes += rec.raw_len;
	r->records++;
	return 0;
}

/*
 * Past the preamble of a snapshot in memory, zstd reads the memory itself:
 * no copy of it goes through an input buffer.
 */
static void borrow_input(struct crib_reader *r)
{
	free(r->in);
	r->in = (uint8_t *)r->mem + r->mem_pos;
	r->in_borrowed = true;
	r->in_cap = r->in_len = r->mem_len - r->mem_pos;
	r->in_pos = 0;
	r->in_total = r->mem_len;
	r->mem_pos = r->mem_len;
	r->src_eof = true;
}

/*
 * A reader of @read_fn's stream (fd_read: of @fd), or (@read_fn
 * NULL) of @mem_len bytes at @mem.
 */
static struct crib_reader *reader_open(crib_read_fn read_fn, void *ctx, int fd,
				       const void *mem, size_t mem_len, int threads,
				       struct crib_error *err)
{
	struct crib_reader *r = calloc(1, sizeof(*r));
	size_t ret;

	if (!r)
		goto nomem;
	/* The reader holds its own copy of fd, so that fd_read outlives the caller's frame. */
	r->fd = fd;
	r->read_fn = read_fn ? read_fn : mem_read;
	r->ctx = !read_fn ? r : read_fn == fd_read ? &r->fd : ctx;
	r->mem = mem;
	r->mem_len = mem_len;
	crib_xxh64_init(&r->hash, 0);
	r->frame_start = true;
	r->max_size = CRIB_MAX_SIZE_DEFAULT;
	r->in_cap = ZSTD_DStreamInSize();
	r->buf_cap = CRIB_LIMIT_RECORD + ZSTD_DStreamOutSize();
	r->in = malloc(r->in_cap);
	r->buf = malloc(r->buf_cap);
	r->dctx = ZSTD_createDCtx();
	if (!r->in || !r->buf || !r->dctx)
		goto nomem;
	ret = ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, CRIB_LIMIT_WINDOW_LOG);
	if (ZSTD_isError(ret)) {
		crib_set_error(err, CRIB_E_ZSTD, CRIB_OFFSET_NONE, "zstd: %s",
			       ZSTD_getErrorName(ret));
		goto out_free;
	}
	if (read_preamble(r))
		goto failed;
	if (!read_fn) {
		borrow_input(r);
		r->frames = crib_frames_start(r->in, r->in_len, threads);
	}
	if (read_header(r))
		goto failed;
	return r;

failed:
	if (err)
		*err = r->err;
	goto out_free;
nomem:
	crib_set_error(err, CRIB_E_NOMEM, CRIB_OFFSET_NONE, "out of memory");
out_free:
	crib_reader_close(r);
	return NULL;
}

/* Whether @opts name one source, the fd counting as one when not -1. */
static bool one_source(int fd, const struct crib_reader_opts *opts, struct crib_error *err)
{
	int sources = (fd >= 0) + !!CRIB_OPTS_GET(opts, read_fn, NULL) +
		      !!CRIB_OPTS_GET(opts, mem, NULL);

	if (sources == 1)
		return true;
	crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE,
		       sources ? "more than one source to read" : "no source to read");
	return false;
}

struct crib_reader *crib_reader_open(int fd, const struct crib_reader_opts *opts,
				     struct crib_error *err)
{
	struct crib_reader *r;

	if (!CRIB_OPTS_VALID(opts, crib_reader_opts, err) || !one_source(fd, opts, err))
		return NULL;
	if (CRIB_OPTS_GET(opts, mem, NULL))
		r = reader_open(NULL, NULL, -1, opts->mem, CRIB_OPTS_GET(opts, mem_len, 0),
				CRIB_OPTS_GET(opts, threads, 0), err);
	else if (fd < 0)
		r = reader_open(opts->read_fn, CRIB_OPTS_GET(opts, read_ctx, NULL), -1, NULL, 0,
				0, err);
	else
		r = reader_open(fd_read, NULL, fd, NULL, 0, 0, err);
	if (r && CRIB_OPTS_GET(opts, max_size, 0))
		r->max_size = opts->max_size;
	return r;
}

const struct crib_header *crib_reader_header(const struct crib_reader *r)
{
	return &r->header;
}

const struct crib_error *crib_reader_error(const struct crib_reader *r)
{
	return &r->err;
}

uint64_t crib_reader_input_offset(const struct crib_reader *r)
{
	return file_offset(r);
}

size_t crib_reader_mem_peak(const struct crib_reader *r)
{
	return sizeof(*r) + (r->in_borrowed ? 0 : r->in_cap) + r->buf_cap + r->arena.peak +
	       r->hdr_arena.peak + (r->data ? CRIB_CHUNK_MAX : 0);
}

void crib_reader_close(struct crib_reader *r)
{
	if (!r)
		return;
	crib_frames_stop(r->frames);
	ZSTD_freeDCtx(r->dctx);
	if (!r->in_borrowed)
		free(r->in);
	free(r->data);
	free(r->buf);
	crib_arena_free(&r->arena);
	crib_arena_free(&r->hdr_arena);
	free(r);
}

/* ---- standalone decoder ---- */

struct crib_decoder *crib_decoder_new(void)
{
	return calloc(1, sizeof(struct crib_decoder));
}

int crib_decoder_decode(struct crib_decoder *d, const void *raw, size_t len, uint64_t page_size,
			struct crib_record *rec, struct crib_error *err)
{
	struct crib_skim skim;
	size_t need;

	if (!crib_page_size_valid(page_size)) {
		crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE, "bad page size");
		return -1;
	}
	crib_skim_reset(&skim);
	switch (crib_skim_step(&skim, raw, len, &need, err, 0)) {
	case CRIB_SKIM_DONE:
		break;
	case CRIB_SKIM_NEED:
		crib_set_error(err, CRIB_E_TRUNCATED, len, "record ends early");
		return -1;
	default:
		return -1;
	}
	if (skim.pos != len) {
		crib_set_error(err, CRIB_E_TRAILING, skim.pos, "bytes after the record");
		return -1;
	}
	return decode_record(&d->arena, raw, len, 0, page_size, rec, err) ? 0 : -1;
}

void crib_decoder_free(struct crib_decoder *d)
{
	if (!d)
		return;
	crib_arena_free(&d->arena);
	free(d);
}
