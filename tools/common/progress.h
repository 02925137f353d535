/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress meter on standard error, for a person watching a terminal:
 *
 *	crib-dump: process 1 of 1, 212.4 of 512.0 MiB, 48.1 MiB/s
 *
 * drawn in place on one line once a run has taken a second, redrawn a few
 * times a second, erased at the end.  It stays silent when standard error
 * is not a terminal (a log, a test) and when the user asked for quiet.
 * Anything else printed while it shows erases its line first
 * (progress_hide()); the next update draws it again.
 */
#ifndef CRIB_TOOL_PROGRESS_H
#define CRIB_TOOL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	FILE *out;		/* standard error */
	bool on;		/* a terminal, and not quiet */
	const char *tool;	/* "crib-dump": the line's prefix */
	unsigned int proc, procs;	/* the process under way (from 1), of how many */
	uint64_t done, total;	/* bytes; total 0 while unknown */
	uint64_t start_ns;	/* progress_begin() */
	uint64_t first_ns;	/* the first bytes, where the rate counts from */
	uint64_t drawn_ns;	/* the last time the line was drawn */
	bool shown;		/* the line is on the terminal now */
};

/* Silent unless standard error is a terminal and not @quiet. */
void progress_init(struct progress *p, const char *tool, bool quiet);
/* A run over @procs processes begins; nothing is shown for its first second. */
void progress_begin(struct progress *p, unsigned int procs);
/* Process @proc (from 1) is under way, with @total bytes to go (0: unknown). */
void progress_process(struct progress *p, unsigned int proc, uint64_t total);
/* @bytes more are done. */
void progress_add(struct progress *p, uint64_t bytes);
/* Erase the line, so that other output starts on a line of its own. */
void progress_hide(struct progress *p);
/* The run is over: the line is erased for good. */
void progress_end(struct progress *p);

#endif /* CRIB_TOOL_PROGRESS_H */
