/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crib-restore: bring a process tree back from a CRIB snapshot.
 *
 * The whole snapshot is read and checked first (snapshot.c hands each
 * record to the file of its kind; check.c, tree.c), its memory left in
 * the mapped snapshot (direct.c) or going to shadows of the VMAs
 * (shadow.c), shared memory objects (shmem.c) or a page store (a memfd),
 * as pages.c places each run, so nothing is created from a stream that
 * turns out corrupt.  crib-restore then makes every open file description
 * of the tree, sockets included (files.c, sockets.c), and creates the
 * root with its original PID (tracer.c).  Each process, while it still
 * runs crib-restore's code (child.c), forks its children with their PIDs,
 * makes its session and group (tree.c), takes its descriptors from the
 * descriptions it inherited, sets the attributes libc can set and jumps
 * into the restorer (restorer.c) in a restore area of its own (area.c),
 * whose arguments each kind fills (mm.c, pages.c, task.c, threads.c,
 * signals.c, timers.c).  The restorer rebuilds the address space and the
 * threads, crib-restore copying pages in while it waits (direct.c);
 * crib-restore, tracing every thread of every process, sets the
 * registers, unmaps the areas, lets the TCP connections go and then every
 * process.  Any failure kills what was created.
 *
 * Each file says what it offers in a header of its own; plan.h holds the
 * tree that every kind reads.  This header holds only what every step is
 * run with: the options, and the step log of -v.
 */
#ifndef CRIB_RESTORE_TOOL_H
#define CRIB_RESTORE_TOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "fault.h"
#include "progress.h"

struct restore_options {
	bool wait;
	bool verbose;
	bool quiet;			/* no progress meter */
	struct restore_fault fault;
	struct progress *progress;	/* on a terminal */
	uint64_t max_size;		/* most bytes of record stream to inflate */
};

/* The step log of -v, on a line of its own even while the progress meter shows. */
#define restore_verbose(opt, ...) do {					\
	if ((opt)->verbose) {						\
		progress_hide((opt)->progress);				\
		fprintf(stderr, "crib-restore: " __VA_ARGS__);		\
	}								\
} while (0)

#endif /* CRIB_RESTORE_TOOL_H */
