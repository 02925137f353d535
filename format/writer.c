// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming writer: preamble, then zstd frames carrying the record
 * stream, each ended at a record boundary past 8 MiB, the trailer last.  Memory is bounded by one record buffer, one
 * zstd output buffer and the zstd context.
 *
 * A writer told to store bulk data (crib_writer_opts.store_bulk) writes the
 * data of each large pages record as it is, in a skippable frame behind a
 * stored_pages record that ends its zstd frame (spec §3, 1.4): no CPU
 * goes into compressing memory that a fast disk would take as fast, and
 * the data is hashed once, for the trailer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <zstd.h>

#include "internal.h"

struct crib_writer {
	crib_write_fn write_fn;
	void *ctx;
	int fd;
	ZSTD_CCtx *cctx;
	uint8_t *out;
	size_t out_cap;

	struct crib_buf rec;		/* the record being encoded */
	struct crib_buf body;		/* fields put with crib_writer_put_* */
	uint32_t cur_type;
	size_t body_entries;
	uint64_t last_key;
	bool in_record;

	bool store_bulk;		/* page data in data frames */
	int splice_pipe[2];		/* for a file: data frames go through it, or -1 */
	uint64_t out_bytes;		/* written so far, the preamble included */
	off_t base;			/* the file's offset where the preamble went, or -1 */
	bool leave_gaps;		/* leave the data of data frames to the caller */
	struct crib_gap *gaps;		/* the holes left and not yet taken */
	size_t n_gaps, gaps_cap, gaps_taken;
	int defer_pipe[2];		/* crib_writer_write_at()'s, or -1 */
	uint64_t frame_bytes;		/* record bytes in the zstd frame not yet ended */

	uint64_t page_size;
	struct crib_xxh64 hash;		/* preamble and records before the trailer */
	uint64_t stream_bytes;
	uint64_t records;
	struct crib_type_count counts[CRIB_LIMIT_TYPES];
	size_t n_counts;

	bool failed;
	struct crib_error err;
};

static ssize_t fd_write(void *ctx, const void *buf, size_t len)
{
	return write(*(int *)ctx, buf, len);
}

static int fail(struct crib_writer *w, enum crib_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error; the writer refuses everything after it. */
static int fail(struct crib_writer *w, enum crib_err code, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		w->err.code = code;
		w->err.file_offset = CRIB_OFFSET_NONE;
		w->err.stream_offset = w->stream_bytes;
		va_start(ap, fmt);
		vsnprintf(w->err.msg, sizeof(w->err.msg), fmt, ap);
		va_end(ap);
		w->failed = true;
	}
	return -1;
}

static int sink_all(struct crib_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = w->write_fn(w->ctx, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(w, CRIB_E_IO, "write: %s", n < 0 ? strerror(errno) : "short write");
		p += n;
		len -= (size_t)n;
		w->out_bytes += (uint64_t)n;
	}
	return 0;
}

/* Past the first @done bytes of the @n pieces at *@iov; the pieces left. */
static int iov_advance(struct iovec **iov, int n, size_t done)
{
	struct iovec *v = *iov;

	while (n && done >= v->iov_len) {
		done -= v->iov_len;
		v++;
		n--;
	}
	if (n) {
		v->iov_base = (uint8_t *)v->iov_base + done;
		v->iov_len -= done;
	}
	*iov = v;
	return n;
}

/* @n pieces, in order; the file descriptor sink takes them in one writev(). */
static int sink_iov(struct crib_writer *w, struct iovec *iov, int n)
{
	ssize_t done;

	if (w->write_fn != fd_write) {
		for (; n; iov++, n--)
			if (sink_all(w, iov->iov_base, iov->iov_len))
				return -1;
		return 0;
	}
	while (n) {
		done = writev(w->fd, iov, n);
		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
			return fail(w, CRIB_E_IO, "write: %s",
				    done < 0 ? strerror(errno) : "short write");
		w->out_bytes += (uint64_t)done;
		n = iov_advance(&iov, n, (size_t)done);
	}
	return 0;
}

/*
 * @n pieces at @iov into @fd through @pipe, at *@at or (@at NULL) at the
 * file's position: vmsplice() hands the pipe the pages of @iov without a
 * copy and splice() copies them into the file, once, in the kernel.  A
 * write() copies from user memory, which emulators and some CPUs make
 * several times slower.  The pipe is emptied before returning, so the
 * caller may reuse its memory.  *@moved counts the bytes that reached
 * the file.  Returns 0, or -1 with *@what the call that failed and errno
 * set, or (errno 0) *@what saying that the call took nothing.
 */
static int splice_out(const int pipe[2], int fd, struct iovec *iov, int n, loff_t *at,
		      uint64_t *moved, const char **what)
{
	ssize_t put, k;

	while (n) {
		put = vmsplice(pipe[1], iov, (unsigned long)n, 0);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0) {
			*what = put ? "vmsplice" : "vmsplice: nothing taken";
			errno = put ? errno : 0;
			return -1;
		}
		/* what the pipe took goes on into the file before anything else */
		for (k = 0; put; put -= k) {
			k = splice(pipe[0], NULL, fd, at, (size_t)put, 0);
			if (k < 0 && errno == EINTR) {
				k = 0;
				continue;
			}
			if (k <= 0) {
				*what = k ? "write" : "write: short write";
				errno = k ? errno : 0;
				return -1;
			}
			*moved += (uint64_t)k;
			n = iov_advance(&iov, n, (size_t)k);
		}
	}
	return 0;
}

/* The same into a regular file, through a pipe of the writer's own. */
static int sink_splice(struct crib_writer *w, struct iovec *iov, int n)
{
	const char *what;

	if (!splice_out(w->splice_pipe, w->fd, iov, n, NULL, &w->out_bytes, &what))
		return 0;
	if (errno)
		return fail(w, CRIB_E_IO, "%s: %s", what, strerror(errno));
	return fail(w, CRIB_E_IO, "%s", what);
}

#define STORED_MIN	(128 * 1024)	/* smaller page data goes into the zstd frame */
/*
 * A zstd frame ends at the first record boundary past this much of the
 * record stream: frames a reader may decode at once, several at a time,
 * while costing no ratio a level-1 window (512 KiB) would notice.
 */
#define FRAME_TARGET	(8u << 20)

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* Feed bytes to zstd; mode ZSTD_e_end also finishes the frame. */
static int compress(struct crib_writer *w, const void *data, size_t len, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->out, w->out_cap, 0 };

		left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return fail(w, CRIB_E_ZSTD, "zstd: %s", ZSTD_getErrorName(left));
		if (out.pos && sink_all(w, w->out, out.pos))
			return -1;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

/* Page data stored in a data frame, not compressed (crib_writer_opts.store_bulk). */
static bool stored(const struct crib_writer *w, uint32_t type, const void *body)
{
	return w->store_bulk && type == CRIB_REC_PAGES &&
	       ((const struct crib_pages *)body)->data.len > STORED_MIN;
}

static int count_type(struct crib_writer *w, uint32_t type)
{
	size_t i;

	for (i = 0; i < w->n_counts && w->counts[i].type < type; i++)
		;
	if (i < w->n_counts && w->counts[i].type == type) {
		w->counts[i].count++;
		return 0;
	}
	if (w->n_counts == CRIB_LIMIT_TYPES)
		return fail(w, CRIB_E_LIMIT, "more than %u distinct record types", CRIB_LIMIT_TYPES);
	memmove(&w->counts[i + 1], &w->counts[i], (w->n_counts - i) * sizeof(w->counts[0]));
	w->counts[i] = (struct crib_type_count){ .type = type, .count = 1 };
	w->n_counts++;
	return 0;
}

static void start_record(struct crib_writer *w, uint32_t type)
{
	w->rec.len = 0;
	w->rec.overflow = w->rec.nomem = false;
	crib_cbor_array(&w->rec, 2);
	crib_cbor_uint(&w->rec, type);
}

/* The record in w->rec is complete: account for it and compress it. */
static int emit_record(struct crib_writer *w, uint32_t type)
{
	size_t len = w->rec.len;

	if (w->rec.nomem)
		return fail(w, CRIB_E_NOMEM, "out of memory");
	if (w->rec.overflow)
		return fail(w, CRIB_E_LIMIT, "record larger than the limit of %u bytes", CRIB_LIMIT_RECORD);
	if (type != CRIB_REC_TRAILER) {
		if (count_type(w, type))
			return -1;
		crib_xxh64_update(&w->hash, w->rec.data, len);
		w->stream_bytes += len;
		w->records++;
	}
	if (compress(w, w->rec.data, len, ZSTD_e_continue))
		return -1;
	w->frame_bytes += len;
	/* the trailer's frame is ended by crib_writer_close(), a stored record's by its writer */
	if (w->frame_bytes < FRAME_TARGET || type == CRIB_REC_TRAILER ||
	    type == CRIB_REC_STORED_PAGES)
		return 0;
	w->frame_bytes = 0;
	return compress(w, NULL, 0, ZSTD_e_end);
}

/* Note a hole the caller is to fill, for crib_writer_take_gaps(). */
static int add_gap(struct crib_writer *w, const struct crib_blob *data, uint64_t at)
{
	struct crib_gap *gaps;
	size_t cap;

	if (w->n_gaps == w->gaps_cap) {
		cap = w->gaps_cap ? 2 * w->gaps_cap : 16;
		gaps = realloc(w->gaps, cap * sizeof(*gaps));
		if (!gaps)
			return fail(w, CRIB_E_NOMEM, "out of memory");
		w->gaps = gaps;
		w->gaps_cap = cap;
	}
	w->gaps[w->n_gaps++] = (struct crib_gap){ data->data, data->len, at };
	return 0;
}

/*
 * The frame header (@n pieces at @iov) written, the data left to the
 * caller: a hole of its length where it belongs, which the caller takes
 * (crib_writer_take_gaps()) and fills before the snapshot is complete.
 */
static int leave_gap(struct crib_writer *w, struct iovec *iov, int n,
		     const struct crib_blob *data)
{
	uint64_t at;

	if (sink_iov(w, iov, n))
		return -1;
	at = (uint64_t)w->base + w->out_bytes;
	if (lseek(w->fd, (off_t)data->len, SEEK_CUR) < 0)
		return fail(w, CRIB_E_IO, "lseek: %s", strerror(errno));
	w->out_bytes += data->len;
	return add_gap(w, data, at);
}

/*
 * The data frame of a stored_pages record, behind a padding frame that
 * puts the data on a page boundary of the output: a reader of a mapped
 * snapshot then finds whole pages where they lie.
 */
static int write_data_frame(struct crib_writer *w, const struct crib_blob *data)
{
	static const uint8_t zeros[CRIB_PAGE_SIZE_MAX];
	uint8_t pad[CRIB_FRAME_HEADER_LEN], head[CRIB_FRAME_HEADER_LEN];
	uint64_t at = w->out_bytes + CRIB_FRAME_HEADER_LEN;
	struct iovec iov[4];
	size_t gap;
	int n = 0;

	if (at % w->page_size) {
		gap = (size_t)(w->page_size - (at + CRIB_FRAME_HEADER_LEN) % w->page_size) %
		      w->page_size;
		put_le32(pad, CRIB_FRAME_PAD_MAGIC);
		put_le32(pad + 4, (uint32_t)gap);
		iov[n++] = (struct iovec){ pad, sizeof(pad) };
		if (gap)
			iov[n++] = (struct iovec){ (void *)zeros, gap };
	}
	put_le32(head, CRIB_FRAME_DATA_MAGIC);
	put_le32(head + 4, (uint32_t)data->len);
	iov[n++] = (struct iovec){ head, sizeof(head) };
	if (w->leave_gaps)
		return leave_gap(w, iov, n, data);
	iov[n++] = (struct iovec){ (void *)data->data, data->len };
	return w->splice_pipe[1] >= 0 ? sink_splice(w, iov, n) : sink_iov(w, iov, n);
}

/*
 * Pages stored (1.4): a stored_pages record ends the zstd frame, and its
 * data follows in a data frame.  The trailer's checksum takes the data
 * right after the record, and nothing hashes it a second time.
 */
static int write_stored_pages(struct crib_writer *w, const struct crib_pages *p)
{
	struct crib_error err = { 0 };

	start_record(w, CRIB_REC_STORED_PAGES);
	if (!crib_encode_struct(&w->rec, &crib_stored_pages_desc, p, &err)) {
		w->failed = true;
		w->err = err;
		w->err.stream_offset = w->stream_bytes;
		return -1;
	}
	if (emit_record(w, CRIB_REC_STORED_PAGES))
		return -1;
	crib_xxh64_update(&w->hash, p->data.data, p->data.len);
	w->frame_bytes = 0;
	if (compress(w, NULL, 0, ZSTD_e_end))
		return -1;
	return write_data_frame(w, &p->data);
}

static bool usable(struct crib_writer *w)
{
	if (w->failed)
		return false;
	if (w->in_record) {
		fail(w, CRIB_E_INVAL, "record started with crib_writer_begin() not ended");
		return false;
	}
	return true;
}

/* Apply the reader's record checks, so the writer never writes what readers refuse. */
static bool record_valid(struct crib_writer *w, const struct crib_record_info *info,
			 const void *body)
{
	struct crib_record rec = { .type = info->type, .info = info, .offset = w->stream_bytes };
	struct crib_error err = { 0 };

	memcpy(&rec.u, body, info->body->size);
	if (crib_record_check(&rec, w->page_size, &err))
		return true;
	err.code = CRIB_E_INVAL;
	w->err = err;
	w->failed = true;
	return false;
}

int crib_writer_record(struct crib_writer *w, uint32_t type, const void *body)
{
	const struct crib_record_info *info = crib_record_info_by_type(type);
	struct crib_error err = { 0 };

	if (!usable(w))
		return -1;
	if (!info || type == CRIB_REC_HEADER || type == CRIB_REC_TRAILER)
		return fail(w, CRIB_E_INVAL, "not a record type for crib_writer_record()");
	if (!record_valid(w, info, body))
		return -1;
	if (stored(w, type, body))
		return write_stored_pages(w, body);
	start_record(w, type);
	if (!crib_encode_struct(&w->rec, info->body, body, &err)) {
		w->failed = true;
		w->err = err;
		w->err.stream_offset = w->stream_bytes;
		return -1;
	}
	return emit_record(w, type);
}

int crib_write_chunks(struct crib_writer *w, uint32_t type, const void *body,
		      struct crib_blob *chunk, uint64_t *counter, uint64_t step,
		      const void *data, size_t len)
{
	while (len) {
		size_t n = len < CRIB_CHUNK_MAX ? len : CRIB_CHUNK_MAX;

		chunk->data = data;
		chunk->len = n;
		if (crib_writer_record(w, type, body))
			return -1;
		*counter += step ? step : n;
		data = (const uint8_t *)data + n;
		len -= n;
	}
	return 0;
}

static int write_header(struct crib_writer *w, const struct crib_header *hdr)
{
	uint8_t pre[CRIB_PREAMBLE_LEN] = { 0 };
	struct crib_error err = { 0 };

	memcpy(pre, CRIB_MAGIC, CRIB_MAGIC_LEN);
	pre[8] = CRIB_VERSION_MAJOR & 0xff;
	pre[9] = CRIB_VERSION_MAJOR >> 8;
	pre[10] = CRIB_VERSION_MINOR & 0xff;
	pre[11] = CRIB_VERSION_MINOR >> 8;
	/* pre[12..15]: preamble flags, none defined in 1.0 */
	if (sink_all(w, pre, sizeof(pre)))
		return -1;
	crib_xxh64_update(&w->hash, pre, sizeof(pre));

	start_record(w, CRIB_REC_HEADER);
	if (!crib_encode_struct(&w->rec, &crib_header_desc, hdr, &err)) {
		w->failed = true;
		w->err = err;
		return -1;
	}
	return emit_record(w, CRIB_REC_HEADER);
}

static struct crib_writer *writer_open(crib_write_fn write_fn, void *ctx, int fd, int level,
				       int threads, const struct crib_header *hdr,
				       struct crib_error *err)
{
	struct crib_writer *w;
	size_t r;

	if (!write_fn || !hdr || level < ZSTD_minCLevel() || level > CRIB_LEVEL_MAX ||
	    threads < 0 || threads > CRIB_THREADS_MAX || !crib_page_size_valid(hdr->page_size)) {
		crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE,
			       "bad writer arguments (level %d, %d threads, page size %llu)", level,
			       threads, hdr ? (unsigned long long)hdr->page_size : 0ull);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		goto nomem;
	w->write_fn = write_fn;
	w->fd = fd;
	w->ctx = ctx ? ctx : &w->fd;
	w->base = write_fn == fd_write ? lseek(fd, 0, SEEK_CUR) : -1;
	w->page_size = hdr->page_size;
	w->splice_pipe[0] = w->splice_pipe[1] = -1;
	w->defer_pipe[0] = w->defer_pipe[1] = -1;
	crib_buf_init(&w->rec, CRIB_LIMIT_RECORD);
	crib_buf_init(&w->body, CRIB_LIMIT_RECORD);
	crib_xxh64_init(&w->hash, 0);
	w->out_cap = ZSTD_CStreamOutSize();
	w->out = malloc(w->out_cap);
	w->cctx = ZSTD_createCCtx();
	if (!w->out || !w->cctx)
		goto nomem;
	r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	if (ZSTD_isError(r)) {
		crib_set_error(err, CRIB_E_ZSTD, CRIB_OFFSET_NONE, "zstd: %s",
			       ZSTD_getErrorName(r));
		goto out_free;
	}
	/* a libzstd built without threads refuses: it compresses in this one */
	if (threads)
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_nbWorkers, threads);
	if (write_header(w, hdr)) {
		if (err)
			*err = w->err;
		goto out_free;
	}
	return w;

nomem:
	crib_set_error(err, CRIB_E_NOMEM, CRIB_OFFSET_NONE, "out of memory");
out_free:
	crib_writer_abort(w);
	return NULL;
}

static void store_bulk(struct crib_writer *w)
{
	struct stat st;

	w->store_bulk = true;
	/* Into a regular file, stored data is spliced (sink_splice()); elsewhere written. */
	if (w->write_fn != fd_write || w->splice_pipe[0] >= 0 || fstat(w->fd, &st) ||
	    !S_ISREG(st.st_mode) || pipe2(w->splice_pipe, O_CLOEXEC))
		return;
	/* room for a whole record, so that one vmsplice() takes it */
	fcntl(w->splice_pipe[1], F_SETPIPE_SZ, 2 * CRIB_LIMIT_RECORD);
}

struct crib_writer *crib_writer_open(int fd, const struct crib_header *hdr,
				     const struct crib_writer_opts *opts,
				     struct crib_error *err)
{
	crib_write_fn write_fn;
	struct crib_writer *w;

	if (!CRIB_OPTS_VALID(opts, crib_writer_opts, err))
		return NULL;
	write_fn = CRIB_OPTS_GET(opts, write_fn, NULL);
	if (write_fn && fd >= 0) {
		crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE,
			       "both a descriptor and a function to write to");
		return NULL;
	}
	/* A NULL context makes the writer pass its own copy of fd. */
	w = writer_open(write_fn ? write_fn : fd_write, CRIB_OPTS_GET(opts, write_ctx, NULL), fd,
			CRIB_OPTS_GET(opts, level, 0), CRIB_OPTS_GET(opts, threads, 0), hdr, err);
	if (w && CRIB_OPTS_GET(opts, store_bulk, false))
		store_bulk(w);
	return w;
}

bool crib_writer_stores_bulk(const struct crib_writer *w)
{
	return w->store_bulk;
}

int crib_writer_leave_gaps(struct crib_writer *w, bool on)
{
	struct stat st;

	if (on && (!w->store_bulk || w->base < 0 || fstat(w->fd, &st) || !S_ISREG(st.st_mode)))
		return -1;
	if (on && w->defer_pipe[0] < 0) {
		if (pipe2(w->defer_pipe, O_CLOEXEC))
			return -1;
		/* room for a whole record, so that one vmsplice() takes it */
		fcntl(w->defer_pipe[1], F_SETPIPE_SZ, 2 * CRIB_LIMIT_RECORD);
	}
	w->leave_gaps = on;
	return 0;
}

size_t crib_writer_take_gaps(struct crib_writer *w, struct crib_gap *gaps, size_t max)
{
	size_t n = w->n_gaps - w->gaps_taken;

	if (n > max)
		n = max;
	if (!n)
		return 0;
	memcpy(gaps, w->gaps + w->gaps_taken, n * sizeof(*gaps));
	w->gaps_taken += n;
	if (w->gaps_taken == w->n_gaps)
		w->n_gaps = w->gaps_taken = 0;
	return n;
}

/* As sink_splice(), through a pipe of its own, into the file at @offset. */
int crib_writer_write_at(const struct crib_writer *w, const void *data, size_t len,
			 uint64_t offset)
{
	struct iovec iov = { (void *)data, len };
	loff_t at = (loff_t)offset;
	uint64_t moved = 0;
	const char *what;

	if (!splice_out(w->defer_pipe, w->fd, &iov, 1, &at, &moved, &what))
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

/* ---- generic records ---- */

int crib_writer_begin(struct crib_writer *w, uint32_t type)
{
	if (!usable(w))
		return -1;
	if (type == 0 || type > CRIB_REC_TYPE_MAX || type == CRIB_REC_HEADER ||
	    type == CRIB_REC_TRAILER)
		return fail(w, CRIB_E_INVAL, "bad record type");
	w->in_record = true;
	w->cur_type = type;
	w->body.len = 0;
	w->body.overflow = w->body.nomem = false;
	w->body_entries = 0;
	return 0;
}

static int put_key(struct crib_writer *w, uint64_t key)
{
	if (w->failed)
		return -1;
	if (!w->in_record)
		return fail(w, CRIB_E_INVAL, "crib_writer_put_*() outside a record");
	if (w->body_entries && key <= w->last_key)
		return fail(w, CRIB_E_INVAL, "keys must be strictly ascending");
	if (w->body_entries == CRIB_LIMIT_ITEMS)
		return fail(w, CRIB_E_LIMIT, "too many fields");
	w->last_key = key;
	w->body_entries++;
	crib_cbor_uint(&w->body, key);
	return 0;
}

int crib_writer_put_uint(struct crib_writer *w, uint64_t key, uint64_t value)
{
	if (put_key(w, key))
		return -1;
	crib_cbor_uint(&w->body, value);
	return 0;
}

int crib_writer_put_int(struct crib_writer *w, uint64_t key, int64_t value)
{
	if (put_key(w, key))
		return -1;
	crib_cbor_int(&w->body, value);
	return 0;
}

int crib_writer_put_bool(struct crib_writer *w, uint64_t key, bool value)
{
	if (put_key(w, key))
		return -1;
	crib_cbor_bool(&w->body, value);
	return 0;
}

int crib_writer_put_text(struct crib_writer *w, uint64_t key, const char *value)
{
	size_t len = strlen(value);

	if (len > CRIB_LIMIT_TEXT || !crib_utf8_valid((const uint8_t *)value, len))
		return fail(w, CRIB_E_INVAL, "text too long or not UTF-8");
	if (put_key(w, key))
		return -1;
	crib_cbor_text(&w->body, value, len);
	return 0;
}

int crib_writer_put_bytes(struct crib_writer *w, uint64_t key, const void *data, size_t len)
{
	if (len > CRIB_LIMIT_BYTES)
		return fail(w, CRIB_E_LIMIT, "byte string too long");
	if (put_key(w, key))
		return -1;
	crib_cbor_bytes(&w->body, data, len);
	return 0;
}

int crib_writer_end(struct crib_writer *w)
{
	if (w->failed)
		return -1;
	if (!w->in_record)
		return fail(w, CRIB_E_INVAL, "crib_writer_end() without begin");
	w->in_record = false;
	if (w->body.nomem)
		return fail(w, CRIB_E_NOMEM, "out of memory");
	start_record(w, w->cur_type);
	crib_cbor_map(&w->rec, w->body_entries);
	if (!w->body.overflow)
		crib_buf_put(&w->rec, w->body.data, w->body.len);
	else
		w->rec.overflow = true;
	return emit_record(w, w->cur_type);
}

/* ---- finishing ---- */

uint64_t crib_writer_page_size(const struct crib_writer *w)
{
	return w->page_size;
}

const struct crib_error *crib_writer_error(const struct crib_writer *w)
{
	return &w->err;
}

int crib_writer_close(struct crib_writer *w, struct crib_error *err)
{
	struct crib_error enc_err = { 0 };
	struct crib_trailer t;
	int ret = -1;

	if (!w) {
		crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE, "no writer");
		return -1;
	}
	if (!usable(w))
		goto out;
	t = (struct crib_trailer){
		.records = w->records,
		.counts = w->counts,
		.n_counts = w->n_counts,
		.stream_bytes = w->stream_bytes,
		.checksum = crib_xxh64_digest(&w->hash),
	};
	start_record(w, CRIB_REC_TRAILER);
	if (!crib_encode_struct(&w->rec, &crib_trailer_desc, &t, &enc_err)) {
		w->err = enc_err;
		w->failed = true;
		goto out;
	}
	if (emit_record(w, CRIB_REC_TRAILER) || compress(w, NULL, 0, ZSTD_e_end))
		goto out;
	ret = 0;
out:
	if (ret && err)
		*err = w->err;
	crib_writer_abort(w);
	return ret;
}

void crib_writer_abort(struct crib_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	if (w->splice_pipe[0] >= 0) {
		close(w->splice_pipe[0]);
		close(w->splice_pipe[1]);
	}
	if (w->defer_pipe[0] >= 0) {
		close(w->defer_pipe[0]);
		close(w->defer_pipe[1]);
	}
	free(w->out);
	free(w->gaps);
	crib_buf_free(&w->rec);
	crib_buf_free(&w->body);
	free(w);
}
