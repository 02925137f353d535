/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collecting what a CRIB program sends.  The tool runs the program once
 * through BPF_PROG_RUN and drains its ring buffer; every record starts
 * with a __u32 kind (bpf/dump.h), which says the list it goes to.  A
 * program walking many objects (VMAs, descriptors) stops with
 * DUMP_NO_ROOM when the ring buffer is full, and program_collect_all()
 * runs it again from the object after the last one that arrived.
 */
#ifndef CRIB_TOOL_COLLECT_H
#define CRIB_TOOL_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "error.h"

/* A loaded CRIB program: loaded by this process, or taken from a pin. */
struct crib_prog {
	const char *name;
	int fd;
};

/* The records of one kind, in arrival order. */
struct record_list {
	uint32_t kind;
	size_t size;		/* of one record */
	void *items;
	size_t n, cap;
};

/*
 * Run @prog once with @ctx (@ctx_size bytes) and append what it sends
 * through the ring buffer @map_fd to @out.  Returns the program's result
 * (enum dump_result), or -1 with @err set: a record of another kind, or
 * of the wrong size, is an error.
 */
int program_collect(const struct crib_prog *prog, int map_fd, const void *ctx,
		    size_t ctx_size, struct record_list *out, struct tool_error *err);
/* The same for a program that sends records of several kinds, one list each. */
int program_collect_kinds(const struct crib_prog *prog, int map_fd, const void *ctx,
			  size_t ctx_size, struct record_list **lists, size_t n_lists,
			  struct tool_error *err);

/* A walk of a program over many objects of one process. */
struct collect_walk {
	const struct crib_prog *prog;
	int map_fd;
	void *ctx;			/* the program's context ... */
	size_t ctx_size;
	__u64 *start;			/* ... and the field in it the walk starts from */
	/* Where to start again after the last record that arrived. */
	uint64_t (*resume_after)(const void *last);
	pid_t pid;			/* the process walked, for messages */
};

/*
 * Run @walk to its end into @out, again from where it stopped each time
 * the ring buffer filled, and again (a few times) when it found the
 * process busy.  Returns 0, or -1 with @err set: the process is gone, or
 * the program failed.
 */
int program_collect_all(const struct collect_walk *walk, struct record_list *out,
			struct tool_error *err);

void record_list_free(struct record_list *list);

#endif /* CRIB_TOOL_COLLECT_H */
