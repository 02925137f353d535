/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Streaming snapshot writer.  Records are encoded one at a time into a
 * bounded buffer and fed to a zstd stream; nothing is ever seeked, so the
 * output may be a pipe.  Memory use: one record (at most CRIB_LIMIT_RECORD)
 * plus the zstd context of the chosen level.
 *
 * Every function returns 0 on success and -1 on error.  After an error the
 * writer refuses further records; crib_writer_error() says why.
 */
#ifndef CRIB_WRITER_H
#define CRIB_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <crib/types.h>

struct crib_writer;
struct crib_header;

/* Writes up to len bytes; returns the count written, or -1 with errno set. */
typedef ssize_t (*crib_write_fn)(void *ctx, const void *buf, size_t len);

/* Level 1 compresses about twice as fast as 3, into a snapshot a few percent larger. */
#define CRIB_LEVEL_DEFAULT	1
#define CRIB_LEVEL_MAX		19	/* higher levels need a window over the reader limit */
#define CRIB_THREADS_MAX	64

/*
 * How crib_writer_open() writes (CRIB_OPTS(), types.h); NULL, or fields
 * left zero, take the defaults.
 */
struct crib_writer_opts {
	size_t sz;		/* sizeof(struct crib_writer_opts) */
	/*
	 * Write through @write_fn(@write_ctx, ...) rather than to the fd
	 * (which must then be -1).
	 */
	crib_write_fn write_fn;
	void *write_ctx;
	/* A zstd level from ZSTD_minCLevel() to CRIB_LEVEL_MAX; 0 is zstd's default (3). */
	int level;
	/*
	 * Compress in @threads worker threads while the caller goes on (0: in
	 * the caller's thread).  The stream is the same frames, in order; a
	 * libzstd built without threads compresses in the caller's thread.
	 */
	int threads;
	/*
	 * Store the data of every pages record of more than 128 KiB as it
	 * is, not compressed: a stored_pages record ends the zstd frame and
	 * the data follows in a data frame, page-aligned in the output (spec
	 * §3, 1.4).  What a fast disk takes faster than zstd compresses.
	 */
	bool store_bulk;
	size_t :0;
};

/*
 * Start a snapshot into @fd (or @opts->write_fn): writes the preamble and
 * the header record.  The header's version fields are ignored (the writer
 * always writes its own version).  NULL with *@err filled on failure,
 * CRIB_E_INVAL for options this library does not know set.
 */
struct crib_writer *crib_writer_open(int fd, const struct crib_header *hdr,
				     const struct crib_writer_opts *opts,
				     struct crib_error *err);
/* Whether the writer was opened storing bulk data (crib_writer_opts.store_bulk). */
bool crib_writer_stores_bulk(const struct crib_writer *w);

/* Stored data the writer left a hole for: @len bytes at @data belong at @offset of the file. */
struct crib_gap {
	const void *data;	/* the caller's, as given to crib_write_pages() */
	size_t len;
	uint64_t offset;
};
/*
 * From now on (until called with @on false), leave the data of each data
 * frame to the caller rather than write it: the writer writes everything
 * else around a hole of the data's length, and the caller takes the holes
 * (crib_writer_take_gaps()) and writes the data there
 * (crib_writer_write_at()), in any thread, before it relies on the
 * snapshot; the data stays the caller's meanwhile.  For a writer storing
 * bulk data into a regular file opened with crib_writer_open(); -1 for
 * any other.
 */
int crib_writer_leave_gaps(struct crib_writer *w, bool on);
/*
 * The holes left since the last call, in the order they were left: up to
 * @max into @gaps, how many; those past @max come at the next call.
 */
size_t crib_writer_take_gaps(struct crib_writer *w, struct crib_gap *gaps, size_t max);
/*
 * Write deferred data where it belongs, all of it: from one thread at a
 * time, while others use the writer.  0, or -1 with errno set.
 */
int crib_writer_write_at(const struct crib_writer *w, const void *data, size_t len,
			 uint64_t offset);

/* One record of a type from the registry, body being its C struct. */
int crib_writer_record(struct crib_writer *w, uint32_t type, const void *body);

/*
 * Records of types the registry does not describe (new ancillary records):
 * begin, put fields with strictly ascending keys, end.  No schema check.
 */
int crib_writer_begin(struct crib_writer *w, uint32_t type);
int crib_writer_put_uint(struct crib_writer *w, uint64_t key, uint64_t value);
int crib_writer_put_int(struct crib_writer *w, uint64_t key, int64_t value);
int crib_writer_put_bool(struct crib_writer *w, uint64_t key, bool value);
int crib_writer_put_text(struct crib_writer *w, uint64_t key, const char *value);
int crib_writer_put_bytes(struct crib_writer *w, uint64_t key, const void *data, size_t len);
int crib_writer_end(struct crib_writer *w);

/* The page size declared in the header (for sizing pages records). */
uint64_t crib_writer_page_size(const struct crib_writer *w);
const struct crib_error *crib_writer_error(const struct crib_writer *w);

/*
 * Finish: writes the trailer, ends the zstd frame, flushes and frees the
 * writer.  Returns -1 (and fills *err when not NULL) if anything failed,
 * including any earlier error.
 */
int crib_writer_close(struct crib_writer *w, struct crib_error *err);
/* Free without finishing; the output is left without a trailer. */
void crib_writer_abort(struct crib_writer *w);

int crib_write_note(struct crib_writer *w, const char *name, const char *value);

#endif /* CRIB_WRITER_H */
