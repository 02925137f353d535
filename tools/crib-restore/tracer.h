/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Creating the tree's processes and letting them run (tracer.c).
 */
#ifndef CRIB_RESTORE_TRACER_H
#define CRIB_RESTORE_TRACER_H

#include "plan.h"

struct restore_options;
struct udp_refill;

/*
 * Create the processes of @tree and let them run.  Returns the root's PID,
 * or -1 with @err set and nothing left behind.
 */
pid_t restore_tree(const struct restore_tree *tree, struct udp_refill *refill,
		   const struct restore_options *opt, struct tool_error *err);
/* --wait: wait for the restored process; its exit status (128 + N for signal N). */
int restore_wait(pid_t pid);

#endif /* CRIB_RESTORE_TRACER_H */
