/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection, a testing aid (fault.c).
 */
#ifndef CRIB_RESTORE_FAULT_H
#define CRIB_RESTORE_FAULT_H

#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/*
 * Fault injection, a testing aid (fault.c): CRIB_RESTORE_FAULT names a
 * step, after the new process exists, at which the restore is made to fail.
 */
enum fault_site {
	FAULT_NONE = 0,
	FAULT_GHOSTS,		/* crib-restore, once the unlinked files are made again */
	FAULT_SOCKETS,		/* crib-restore, once every socket is made, of every family */
	FAULT_DESCRIPTIONS,	/* crib-restore, once every description is made, epolls filled */
	FAULT_FORK,		/* the child, once it forked its children */
	FAULT_SESSION,		/* the child, once its session and group are made */
	FAULT_TERMINAL,		/* the child, once its terminal and foreground group are set */
	FAULT_FILES,		/* the child, once its descriptors are open */
	FAULT_LOCKS,		/* the child, once it took its file locks */
	FAULT_ATTRIBUTES,	/* the child, once its attributes are set */
	FAULT_RESTORER,		/* the restorer, entering restore_fault.step */
	FAULT_PIDFDS,		/* the tracer, once the pidfds are made */
	FAULT_REGISTERS,	/* the tracer, once the registers are set */
	FAULT_SEALS,		/* the tracer, once the memfds are sealed */
	FAULT_RESUME,		/* the tracer, once the connections left repair mode */
	FAULT_UNLOCK,		/* the tracer, once the network lock is released */
	FAULT_DETACH,		/* the tracer, once the first thread is let go */
	FAULT_COPY,		/* no failure: direct.c's copy fails, the pages are written */
};

/*
 * The child and restorer sites fail in one process: the root, or the one
 * CRIB_RESTORE_FAULT=STEP@PID names.
 */
struct restore_fault {
	enum fault_site site;
	uint32_t step;		/* FAULT_RESTORER: an enum rst_step */
	const char *name;	/* its CRIB_RESTORE_FAULT name */
	pid_t pid;		/* where; 0: the root */
};

/* Read CRIB_RESTORE_FAULT; 0 (FAULT_NONE when unset) or -1 for a bad name. */
int fault_from_env(struct restore_fault *f, struct tool_error *err);
/* The CRIB_RESTORE_FAULT name of a restorer step. */
const char *fault_step_name(uint32_t step);

#endif /* CRIB_RESTORE_FAULT_H */
