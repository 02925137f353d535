// SPDX-License-Identifier: GPL-2.0
/*
 * Thread records: each thread's registers, signal mask, alternate stack,
 * tid address, robust list, rseq area, parent-death signal, credentials
 * and securebits, I/O priority, speculation controls and pending signals,
 * as the restorer and the tracer give them back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "seccomp.h"
#include "signals.h"
#include "threads.h"

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
	pt->securebits = t->securebits;
	pt->ioprio = t->ioprio;
	pt->spec_store_bypass = t->spec_store_bypass;
	pt->spec_indirect_branch = t->spec_indirect_branch;
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

/* ---- for the restorer ---- */

/* A thread's credentials: its own, or, as most have, its process's. */
static void fill_creds(struct rst_creds *c, const struct restore_plan *plan,
		       const struct plan_thread *pt)
{
	const struct crib_process *p = &plan->proc;
	struct crib_creds cr = {
		.uid = p->uid, .gid = p->gid, .euid = p->euid, .egid = p->egid,
		.suid = p->suid, .sgid = p->sgid, .fsuid = p->fsuid, .fsgid = p->fsgid,
		.groups = p->groups, .n_groups = p->n_groups,
		.cap_eff = p->cap_eff, .cap_prm = p->cap_prm, .cap_inh = p->cap_inh,
		.cap_bnd = p->cap_bnd, .cap_amb = p->cap_amb,
	};
	size_t i;

	if (pt->own_creds)
		cr = pt->creds;
	*c = (struct rst_creds) {
		.uid = (uint32_t)cr.uid, .euid = (uint32_t)cr.euid, .suid = (uint32_t)cr.suid,
		.fsuid = (uint32_t)cr.fsuid, .gid = (uint32_t)cr.gid, .egid = (uint32_t)cr.egid,
		.sgid = (uint32_t)cr.sgid, .fsgid = (uint32_t)cr.fsgid,
		.cap_eff = cr.cap_eff, .cap_prm = cr.cap_prm, .cap_inh = cr.cap_inh,
		.cap_bnd = cr.cap_bnd, .cap_amb = cr.cap_amb,
	};
	c->n_groups = cr.n_groups < RST_MAX_GROUPS ? (uint32_t)cr.n_groups : RST_MAX_GROUPS;
	for (i = 0; i < c->n_groups; i++)
		c->groups[i] = (uint32_t)cr.groups[i];
	/* Anything but the restorer's own root credentials needs changing. */
	c->change = cr.uid || cr.euid || cr.suid || cr.fsuid || cr.gid || cr.egid ||
		    cr.sgid || cr.fsgid || cr.n_groups || cr.cap_eff != cr.cap_prm || cr.cap_inh;
}

static uint64_t fill_thread(struct rst_thread *t, const struct restore_plan *plan,
			    const struct plan_thread *pt, uint64_t stack_top, uint64_t pending_off)
{
	memset(t, 0, sizeof(*t));
	fill_creds(&t->creds, plan, pt);
	t->creds.securebits = (uint32_t)pt->securebits;
	t->pdeath_signal = (int32_t)pt->pdeath_signal;
	t->ioprio = (uint32_t)pt->ioprio;
	t->spec_store_bypass = (uint32_t)pt->spec_store_bypass;
	t->spec_indirect_branch = (uint32_t)pt->spec_indirect_branch;
	t->tid = pt->tid;
	t->stack_top = stack_top;
	t->altstack_sp = pt->altstack.sp;
	t->altstack_size = pt->altstack.size;
	t->altstack_flags = pt->altstack.size ? (uint32_t)pt->altstack.flags : 0;
	t->n_pending = (uint32_t)pt->n_pending;
	t->pending_off = pending_off;
	t->clear_child_tid = pt->clear_child_tid;
	t->robust_list = pt->robust_list;
	t->robust_list_len = pt->robust_list_len;
	t->rseq_abi = pt->rseq;
	t->rseq_len = (uint32_t)pt->rseq_len;
	t->rseq_sig = (uint32_t)pt->rseq_sig;
	memcpy(t->comm, pt->comm, sizeof(t->comm));
	t->comm[RST_COMM_LEN - 1] = '\0';
	return pending_off + pt->n_pending * sizeof(struct rst_siginfo);
}

/*
 * The threads, for the restorer: their array at @off in the area, their
 * pending signals from @siginfo_off on, their stacks below @stacks_off +
 * (i + 1) stacks.  Returns where the siginfos that follow them go.
 */
uint64_t threads_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off,
		      uint64_t siginfo_off, uint64_t stacks_off)
{
	char *base = (char *)a->area_start;
	struct rst_thread *t = (struct rst_thread *)(base + off);
	size_t i;

	a->threads_off = off;
	off = siginfo_off;
	a->n_threads = plan->threads.n;
	for (i = 0; i < plan->threads.n; i++) {
		signals_fill_siginfo((struct rst_siginfo *)(base + off),
				     plan->threads.items[i].pending,
				     plan->threads.items[i].n_pending);
		off = fill_thread(&t[i], plan, &plan->threads.items[i],
				  a->area_start + stacks_off + (i + 1) * RST_STACK_SIZE, off);
	}
	return off;
}

void threads_free(struct restore_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->threads.n; i++) {
		free(plan->threads.items[i].xstate);
		free(plan->threads.items[i].pending);
		free((void *)plan->threads.items[i].creds.groups);
		seccomp_free_thread(&plan->threads.items[i]);
	}
	array_free(&plan->threads);
}

