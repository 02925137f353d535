/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CRIB snapshot format, version 1: constants, limits, record type numbers,
 * errors and the shared value types.  spec/format.md is the normative text;
 * the numbers here must match it.
 */
#ifndef CRIB_TYPES_H
#define CRIB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* File preamble: 8 magic bytes, major (u16 LE), minor (u16 LE), flags (u32 LE). */
#define CRIB_MAGIC		"\x89" "CRIB\r\n\x1a"
#define CRIB_MAGIC_LEN		8
#define CRIB_PREAMBLE_LEN	16

#define CRIB_VERSION_MAJOR	1
#define CRIB_VERSION_MINOR	10	/* 1.10: netlink, ICMP echo, UDP-Lite, raw IP, packet sockets (spec §2.2) */

/* Limits every reader enforces (spec/format.md, "Limits"). */
#define CRIB_LIMIT_RECORD	(2u << 20)	/* encoded bytes of one record */
#define CRIB_LIMIT_BYTES	(1u << 20)	/* one byte string */
#define CRIB_LIMIT_TEXT		4096u		/* one text string */
#define CRIB_LIMIT_PATH		4095u		/* a path (PATH_MAX minus NUL) */
#define CRIB_LIMIT_DEPTH	8u		/* nesting of arrays and maps */
#define CRIB_LIMIT_ITEMS	65536u		/* entries of one array or map */
#define CRIB_LIMIT_TYPES	256u		/* distinct record types per snapshot */
#define CRIB_LIMIT_DECODED	(8u << 20)	/* memory one decoded record may use */
#define CRIB_LIMIT_WINDOW_LOG	24		/* zstd window: at most 16 MiB */
/*
 * Default bound on the uncompressed record stream a reader inflates
 * (crib_reader_opts.max_size): more than the memory of any machine a
 * snapshot comes from, so no real snapshot reaches it.
 */
#define CRIB_MAX_SIZE_DEFAULT	(1ull << 40)
#define CRIB_CHUNK_MAX		(1u << 20)	/* bulk data carried by one record */
#define CRIB_PAGE_SIZE_MIN	512u
#define CRIB_PAGE_SIZE_MAX	65536u
/*
 * Whether @page_size may stand in a header: a power of two from
 * CRIB_PAGE_SIZE_MIN to CRIB_PAGE_SIZE_MAX (limits.c).
 */
bool crib_page_size_valid(uint64_t page_size);

/*
 * Skippable zstd frames (RFC 8878 §3.1.2) of the compressed section: the
 * data of a stored_pages record (1.4), and padding that aligns it.
 */
#define CRIB_FRAME_DATA_MAGIC	0x184d2a5cu
#define CRIB_FRAME_PAD_MAGIC	0x184d2a50u
#define CRIB_FRAME_HEADER_LEN	8u

/*
 * Record types.  Bit 15 set marks an ancillary record: a reader that does not
 * know it skips it.  An unknown record with bit 15 clear is critical and the
 * reader refuses the snapshot.  Each resource kind owns a block of 0x100.
 */
#define CRIB_REC_ANCILLARY	0x8000u
#define CRIB_REC_TYPE_MAX	0xffffu

enum crib_record_type {
	CRIB_REC_HEADER		= 0x0001,
	CRIB_REC_TRAILER	= 0x0002,
	CRIB_REC_PROCESS	= 0x0100,
	CRIB_REC_THREAD		= 0x0101,
	CRIB_REC_SECCOMP_FILTER	= 0x0102,	/* 1.8 */
	CRIB_REC_SECCOMP	= 0x0103,	/* 1.8 */
	CRIB_REC_MM		= 0x0200,
	CRIB_REC_VMA		= 0x0201,
	CRIB_REC_PAGES		= 0x0202,
	CRIB_REC_SHMEM		= 0x0203,	/* 1.1 */
	CRIB_REC_STORED_PAGES	= 0x0204,	/* 1.4 */
	CRIB_REC_FILE		= 0x0300,
	CRIB_REC_PIPE		= 0x0301,
	CRIB_REC_PIPE_DATA	= 0x0302,
	CRIB_REC_TIMERFD	= 0x0303,	/* 1.2 */
	CRIB_REC_EPOLL_ITEM	= 0x0304,	/* 1.2 */
	CRIB_REC_GHOST		= 0x0305,	/* 1.2 */
	CRIB_REC_GHOST_DATA	= 0x0306,	/* 1.2 */
	CRIB_REC_INOTIFY_WATCH	= 0x0307,	/* 1.3 */
	CRIB_REC_FILE_LOCK	= 0x0308,	/* 1.8 */
	CRIB_REC_TTY		= 0x0309,	/* 1.9 */
	CRIB_REC_PIDFD		= 0x030a,	/* 1.9 */
	CRIB_REC_SOCKET		= 0x0400,
	CRIB_REC_SOCKET_QUEUE	= 0x0401,
	CRIB_REC_SOCKET_FILTER	= 0x0402,	/* 1.8 */
	CRIB_REC_SIGHAND	= 0x0500,
	CRIB_REC_SIGPENDING	= 0x0501,
	CRIB_REC_TIMERS		= 0x0502,
	CRIB_REC_NOTE		= 0x8001,
	CRIB_REC_DUMP_STATS	= 0x8002,	/* 1.8 */
};

static inline bool crib_record_is_critical(uint32_t type)
{
	return !(type & CRIB_REC_ANCILLARY);
}

/* Error codes; crib-inspect maps them to exit codes. */
enum crib_err {
	CRIB_OK = 0,
	CRIB_E_IO,		/* read or write failed */
	CRIB_E_NOMEM,
	CRIB_E_INVAL,		/* bad argument from the caller */
	CRIB_E_MAGIC,		/* not a CRIB snapshot */
	CRIB_E_VERSION,		/* major version this reader does not know */
	CRIB_E_CRITICAL,	/* unknown critical record type */
	CRIB_E_TRUNCATED,	/* stream ends early */
	CRIB_E_ZSTD,		/* compressed data is corrupt */
	CRIB_E_CBOR,		/* malformed or disallowed CBOR */
	CRIB_E_LIMIT,		/* a size, count or depth limit was exceeded */
	CRIB_E_SCHEMA,		/* well-formed CBOR that breaks the record schema */
	CRIB_E_CHECKSUM,	/* the trailer's checksum does not match */
	CRIB_E_TRAILING,	/* data after the trailer */
	CRIB_E_COUNT,		/* the trailer's record or byte counts do not match */
};

#define CRIB_OFFSET_NONE UINT64_MAX

struct crib_error {
	enum crib_err code;
	/* Input bytes consumed when the error was found (compressed file). */
	uint64_t file_offset;
	/* Offset in the uncompressed record stream, or CRIB_OFFSET_NONE. */
	uint64_t stream_offset;
	char msg[256];
};

const char *crib_err_name(enum crib_err code);

/* XXH64 (the trailer checksum algorithm) of a buffer. */
uint64_t crib_xxh64(const void *data, size_t len, uint64_t seed);

/* Opaque binary data; points into memory owned by the caller or the reader. */
struct crib_blob {
	const void *data;
	size_t len;
};

/*
 * Options of crib_writer_open() and crib_reader_open(), as libbpf's
 * LIBBPF_OPTS: the struct starts with its size, so that a caller built
 * against an older header passes a shorter one and a newer library reads
 * the fields it lacks as zero; a caller built against a newer header
 * passes a longer one, which an older library accepts only when the
 * fields it does not know are zero (CRIB_E_INVAL otherwise).
 *
 *	CRIB_OPTS(crib_writer_opts, opts, .level = 3, .threads = 2);
 *	w = crib_writer_open(fd, &hdr, &opts, &err);
 */
#define CRIB_OPTS(TYPE, NAME, ...)				\
	struct TYPE NAME = ({					\
		memset(&NAME, 0, sizeof(struct TYPE));		\
		(struct TYPE){					\
			.sz = sizeof(struct TYPE),		\
			__VA_ARGS__				\
		};						\
	})

#ifdef __cplusplus
}
#endif

#endif /* CRIB_TYPES_H */
