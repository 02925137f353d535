/* SPDX-License-Identifier: GPL-2.0-only */
/* Framing records: header (first), trailer (last), note (ancillary). */
#ifndef CRIB_META_H
#define CRIB_META_H

#include <stdint.h>

#include <crib/types.h>
#include <stddef.h>

/* Header flags. */
#define CRIB_HDR_NO_PAGES	0x1	/* memory contents were not dumped */

struct crib_header {
	/* From the file preamble; filled in by the reader, set by the writer. */
	uint16_t version_major;
	uint16_t version_minor;
	/* Record fields. */
	const char *kernel_release;	/* uname -r of the source */
	const char *arch;		/* uname -m of the source, e.g. "x86_64" */
	uint64_t page_size;
	const char *tool_name;
	const char *tool_version;
	uint64_t time_ns;		/* CLOCK_REALTIME when the dump started */
	uint64_t flags;			/* CRIB_HDR_* */
	const char *hostname;
	uint64_t root_pid;		/* root of the dumped process tree */
	/* (1.2) The tree's clocks once it was stopped, and the boot it ran in. */
	uint64_t monotonic_ns;		/* CLOCK_MONOTONIC as the tree saw it */
	uint64_t boottime_ns;		/* CLOCK_BOOTTIME as the tree saw it */
	const char *boot_id;		/* /proc/sys/kernel/random/boot_id */
	/*
	 * (1.5) The offsets of the tree's time namespace (time_namespaces(7)),
	 * which that boot's own clocks plus these made the ones above.
	 */
	int64_t timens_monotonic_ns;
	int64_t timens_boottime_ns;
};

struct crib_type_count {
	uint64_t type;
	uint64_t count;
};

struct crib_trailer {
	uint64_t records;		/* records before the trailer, header included */
	const struct crib_type_count *counts;	/* ascending by type */
	size_t n_counts;
	uint64_t stream_bytes;		/* record stream bytes before the trailer */
	uint64_t checksum;		/* XXH64, seed 0, of preamble and those bytes */
};

struct crib_note {
	const char *name;
	const char *value;
};

/* 1.8: one step of a dump and how long it took. */
struct crib_dump_phase {
	const char *name;		/* "load", "freeze", "read", "write", ... */
	uint64_t ns;
};

/*
 * 1.8: how long the dump took, written by the dump tool last, before the
 * trailer: its phases in order, and how long the tree was stopped.
 */
struct crib_dump_stats {
	const struct crib_dump_phase *phases;
	size_t n_phases;
	uint64_t frozen_ns;		/* the freeze began to the tree let go or this record */
	uint64_t total_ns;		/* the tool's start to this record */
	uint64_t processes;
	uint64_t threads;
};

#define CRIB_DUMP_PHASES_MAX	32u

extern const struct crib_struct_desc crib_header_desc;
extern const struct crib_struct_desc crib_trailer_desc;
extern const struct crib_struct_desc crib_note_desc;
extern const struct crib_struct_desc crib_dump_stats_desc;

struct crib_writer;

int crib_write_dump_stats(struct crib_writer *w, const struct crib_dump_stats *stats);

#endif /* CRIB_META_H */
