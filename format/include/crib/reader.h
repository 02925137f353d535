/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Streaming snapshot reader with bounded memory.  It holds at most one
 * record (CRIB_LIMIT_RECORD encoded, CRIB_LIMIT_DECODED decoded) plus the
 * zstd window (at most 2^CRIB_LIMIT_WINDOW_LOG); no length or count read from
 * the input is used for an allocation before it is checked against a limit.
 */
#ifndef CRIB_READER_H
#define CRIB_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <crib/types.h>
#include <crib/schema.h>
#include <crib/meta.h>
#include <crib/process.h>
#include <crib/mm.h>
#include <crib/files.h>
#include <crib/sockets.h>
#include <crib/signals.h>

struct crib_reader;
struct crib_decoder;

/* Reads up to len bytes; returns the count, 0 at end of input, -1 with errno. */
typedef ssize_t (*crib_read_fn)(void *ctx, void *buf, size_t len);

/*
 * A decoded record.  Pointers (strings, arrays, blobs, raw) stay valid until
 * the next call that decodes a record with the same reader or decoder.
 */
struct crib_record {
	uint32_t type;
	const struct crib_record_info *info;	/* NULL for an unknown ancillary record */
	uint64_t offset;			/* in the uncompressed record stream */
	const uint8_t *raw;			/* the record's CBOR encoding */
	size_t raw_len;
	/*
	 * A stored_pages record (1.4), handed out as the pages record it
	 * stands for: type and info say pages, u.pages.data is the contents
	 * of its data frame, raw is the stored_pages record without them.
	 */
	bool stored;
	union {
		struct crib_header header;
		struct crib_trailer trailer;
		struct crib_note note;
		struct crib_dump_stats dump_stats;
		struct crib_process process;
		struct crib_thread thread;
		struct crib_seccomp_filter seccomp_filter;
		struct crib_seccomp seccomp;
		struct crib_mm mm;
		struct crib_vma vma;
		struct crib_pages pages;
		struct crib_shmem shmem;
		struct crib_file file;
		struct crib_pipe pipe;
		struct crib_pipe_data pipe_data;
		struct crib_timerfd timerfd;
		struct crib_epoll_item epoll_item;
		struct crib_inotify_watch inotify_watch;
		struct crib_file_lock file_lock;
		struct crib_pidfd pidfd;
		struct crib_tty tty;
		struct crib_ghost ghost;
		struct crib_ghost_data ghost_data;
		struct crib_socket socket;
		struct crib_socket_queue socket_queue;
		struct crib_socket_filter socket_filter;
		struct crib_sighand sighand;
		struct crib_sigpending sigpending;
		struct crib_timers timers;
	} u;
};

/*
 * Where crib_reader_open() reads from, and how (CRIB_OPTS(), types.h);
 * NULL, or fields left zero, take the defaults.
 */
struct crib_reader_opts {
	size_t sz;		/* sizeof(struct crib_reader_opts) */
	/* Read through @read_fn(@read_ctx, ...) rather than the fd (then -1). */
	crib_read_fn read_fn;
	void *read_ctx;
	/*
	 * Or read the @mem_len bytes at @mem, which the caller keeps alive
	 * until crib_reader_close() (the fd then -1).
	 */
	const void *mem;
	size_t mem_len;
	/*
	 * From memory, with @threads worker threads decoding the zstd frames
	 * ahead of the records asked for, each frame at once (spec §3:
	 * writers end one every 8 MiB).  What is read, and every error, is
	 * the same as without; the workers take up to (@threads + 1) * 24 MiB
	 * more memory.
	 */
	int threads;
	/*
	 * Refuse (CRIB_E_LIMIT) a record stream that inflates past
	 * @max_size bytes: a few KiB of zstd can stand for gigabytes.  0 is
	 * CRIB_MAX_SIZE_DEFAULT; the header, read by open, is within any
	 * bound.  Stored data (1.4) is not inflated and not counted.
	 */
	uint64_t max_size;
	size_t :0;
};

/*
 * Open a snapshot from @fd (or what @opts name instead): reads and checks
 * the preamble and the header record.  Returns NULL with *err filled on
 * failure (a newer major version, for one; CRIB_E_INVAL for options this
 * library does not know set, or more than one source).
 */
struct crib_reader *crib_reader_open(int fd, const struct crib_reader_opts *opts,
				     struct crib_error *err);

const struct crib_header *crib_reader_header(const struct crib_reader *r);

/*
 * The next record: 1 with *rec filled, 0 after the trailer once the whole
 * stream has been checked, -1 on error (see crib_reader_error()).  The first
 * record is the header, the last the trailer.
 */
int crib_reader_next(struct crib_reader *r, struct crib_record *rec);
const struct crib_error *crib_reader_error(const struct crib_reader *r);
/* Most memory the reader itself had allocated at once, zstd excluded. */
/* Bytes of the input taken so far, the preamble included. */
uint64_t crib_reader_input_offset(const struct crib_reader *r);
size_t crib_reader_mem_peak(const struct crib_reader *r);
void crib_reader_close(struct crib_reader *r);

/*
 * Decode one record from its raw encoding (e.g. a crib_record.raw kept
 * aside), applying the same checks as the reader.  page_size is the
 * header's, used to check pages records.
 */
struct crib_decoder *crib_decoder_new(void);
int crib_decoder_decode(struct crib_decoder *d, const void *raw, size_t len,
			uint64_t page_size, struct crib_record *rec, struct crib_error *err);
void crib_decoder_free(struct crib_decoder *d);

#endif /* CRIB_READER_H */
