// SPDX-License-Identifier: GPL-2.0
/*
 * Thread records: each thread's registers, signal mask, alternate stack,
 * tid address, robust list, rseq area, parent-death signal, credentials
 * and pending signals, as the restorer and the tracer give them back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crib-restore.h"

/* A thread's own credentials, its groups copied. */
static int take_creds(struct plan_thread *pt, const struct crib_thread *t)
{
	uint64_t *groups = calloc(t->creds.n_groups ? t->creds.n_groups : 1, sizeof(*groups));

	if (!groups)
		return -1;
	memcpy(groups, t->creds.groups, t->creds.n_groups * sizeof(*groups));
	pt->own_creds = t->own_creds;
	pt->creds = t->creds;
	pt->creds.groups = groups;
	return 0;
}

int threads_take(struct restore_plan *plan, const struct crib_thread *t,
		 struct tool_error *err)
{
	struct plan_thread *pt = array_push(&plan->threads);

	if (!pt)
		return tool_fail(err, 0, "out of memory");
	pt->tid = (pid_t)t->tid;
	snprintf(pt->comm, sizeof(pt->comm), "%s", t->comm ? t->comm : "");
	pt->regs = t->regs_x86_64;
	pt->sigmask = t->sigmask;
	pt->altstack = t->sigaltstack;
	pt->clear_child_tid = t->clear_child_tid;
	pt->robust_list = t->robust_list;
	pt->robust_list_len = t->robust_list_len;
	pt->rseq = t->rseq;
	pt->rseq_len = t->rseq_len;
	pt->rseq_sig = t->rseq_sig;
	pt->pdeath_signal = t->pdeath_signal;
	if (take_creds(pt, t))
		return tool_fail(err, 0, "out of memory");
	if (t->regs_arch && t->regs_arch[0])
		return tool_fail(err, 0, "thread %d has %s registers; only x86_64 is supported",
				 (int)pt->tid, t->regs_arch);
	pt->xstate = malloc(t->xstate.len ? t->xstate.len : 1);
	if (!pt->xstate || signals_copy_siginfos(t->pending, t->n_pending, &pt->pending))
		return tool_fail(err, 0, "out of memory");
	memcpy(pt->xstate, t->xstate.data, t->xstate.len);
	pt->xstate_len = t->xstate.len;
	pt->n_pending = t->n_pending;
	return 0;
}

void threads_free(struct restore_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->threads.n; i++) {
		free(plan->threads.items[i].xstate);
		free(plan->threads.items[i].pending);
		free((void *)plan->threads.items[i].creds.groups);
	}
	array_free(&plan->threads);
}

