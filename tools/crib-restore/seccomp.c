// SPDX-License-Identifier: GPL-2.0
/*
 * Seccomp: each thread's mode and the filters it runs under, given back
 * as they were shared (spec: the seccomp and seccomp_filter records).
 *
 * The filters every thread of a process runs under, from the first
 * installed, are installed by the leader before it starts the other
 * threads, which inherit them, so that they share them as before; each
 * thread then installs its own, and strict mode last.  The tracer holds
 * the process with PTRACE_O_SUSPEND_SECCOMP (tracer.c), so that nothing
 * the restorer or crib-restore still does is filtered: the filters bite
 * once the process is let go.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "seccomp.h"
#include "seccomp_share.h"

static const struct plan_seccomp_filter *find_filter(const struct restore_tree *tree,
						     uint64_t filter_id)
{
	size_t i;

	for (i = 0; i < tree->seccomp_filters.n; i++)
		if (tree->seccomp_filters.items[i]->filter_id == filter_id)
			return tree->seccomp_filters.items[i];
	return NULL;
}

int seccomp_take_filter(struct restore_tree *tree, const struct crib_seccomp_filter *f,
			struct tool_error *err)
{
	struct plan_seccomp_filter *pf, **slot;
	size_t n = f->insns.len / sizeof(struct sock_filter);

	if (!f->filter_id || find_filter(tree, f->filter_id))
		return tool_fail(err, 0, "seccomp filter %llu is %s", (unsigned long long)f->filter_id,
				 f->filter_id ? "given twice" : "numbered 0");
	if (!n || n > BPF_MAXINSNS || f->insns.len % sizeof(struct sock_filter))
		return tool_fail(err, 0, "seccomp filter %llu has %zu bytes, not 1 to %d "
				 "instructions", (unsigned long long)f->filter_id, f->insns.len,
				 BPF_MAXINSNS);
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		goto oom;
	pf->insns = malloc(f->insns.len);
	slot = pf->insns ? array_push(&tree->seccomp_filters) : NULL;
	if (!slot)
		goto oom;
	memcpy(pf->insns, f->insns.data, f->insns.len);
	pf->n_insns = n;
	pf->filter_id = f->filter_id;
	pf->log = f->log;
	*slot = pf;
	return 0;
oom:
	if (pf)
		free(pf->insns);
	free(pf);
	return tool_fail(err, 0, "out of memory");
}

static struct plan_thread *find_thread(struct restore_plan *plan, uint64_t tid)
{
	size_t i;

	for (i = 0; i < plan->threads.n; i++)
		if ((uint64_t)plan->threads.items[i].tid == tid)
			return &plan->threads.items[i];
	return NULL;
}

static int check_mode(const struct crib_seccomp *s, struct tool_error *err)
{
	if (s->mode == CRIB_SECCOMP_STRICT && !s->n_filters)
		return 0;
	if (s->mode == CRIB_SECCOMP_FILTER && s->n_filters)
		return 0;
	return tool_fail(err, 0, "thread %llu: seccomp mode %llu with %zu filters",
			 (unsigned long long)s->tid, (unsigned long long)s->mode, s->n_filters);
}

int seccomp_take(struct restore_tree *tree, struct restore_plan *plan,
		 const struct crib_seccomp *s, struct tool_error *err)
{
	struct plan_thread *pt = find_thread(plan, s->tid);
	size_t i;

	if (!pt || pt->seccomp_mode)
		return tool_fail(err, 0, "a seccomp record of thread %llu, which %s",
				 (unsigned long long)s->tid,
				 pt ? "has one already" : "has no thread record before it");
	if (check_mode(s, err))
		return -1;
	pt->seccomp = calloc(s->n_filters ? s->n_filters : 1, sizeof(*pt->seccomp));
	if (!pt->seccomp)
		return tool_fail(err, 0, "out of memory");
	for (i = 0; i < s->n_filters; i++) {
		pt->seccomp[i] = find_filter(tree, s->filters[i]);
		if (!pt->seccomp[i])
			return tool_fail(err, 0, "thread %llu runs under seccomp filter %llu, "
					 "which has no record before it", (unsigned long long)s->tid,
					 (unsigned long long)s->filters[i]);
	}
	pt->n_seccomp = s->n_filters;
	pt->seccomp_mode = s->mode;
	return 0;
}

static size_t thread_filters(const void *ctx, size_t k)
{
	const struct restore_plan *plan = ctx;

	return plan->threads.items[k].n_seccomp;
}

/* A filter is told from the others by its one plan_seccomp_filter. */
static uint64_t thread_filter(const void *ctx, size_t k, size_t i)
{
	const struct restore_plan *plan = ctx;

	return (uintptr_t)plan->threads.items[k].seccomp[i];
}

static struct seccomp_threads plan_threads(const struct restore_plan *plan)
{
	return (struct seccomp_threads){ .n = plan->threads.n, .ctx = plan,
					 .count = thread_filters, .filter = thread_filter };
}

/* How many filters, from the first installed, every thread of @plan shares. */
static size_t shared_prefix(const struct restore_plan *plan)
{
	struct seccomp_threads st = plan_threads(plan);

	return seccomp_shared_prefix(&st);
}

/*
 * Beyond the shared prefix, each filter is one thread's own, as crib-dump
 * writes them: two threads sharing one would each get their own copy.
 */
int seccomp_check(const struct restore_plan *plan, struct tool_error *err)
{
	struct seccomp_threads st = plan_threads(plan);
	const struct plan_thread *ta;
	size_t a, b, i;

	if (!seccomp_shared_past(&st, seccomp_shared_prefix(&st), &a, &b, &i))
		return 0;
	ta = &plan->threads.items[a];
	return tool_fail(err, 0, "process %llu: threads %d and %d share seccomp filter %llu, "
			 "which not all its threads run under", (unsigned long long)plan->proc.pid,
			 (int)ta->tid, (int)plan->threads.items[b].tid,
			 (unsigned long long)ta->seccomp[i]->filter_id);
}

bool seccomp_in_tree(const struct restore_tree *tree)
{
	size_t p, k;

	for (p = 0; p < tree->procs.n; p++) {
		const struct restore_plan *plan = tree->procs.items[p];

		for (k = 0; k < plan->threads.n; k++)
			if (plan->threads.items[k].seccomp_mode)
				return true;
	}
	return false;
}

static size_t filter_room(const struct plan_seccomp_filter *f)
{
	return sizeof(struct rst_seccomp_filter) + f->n_insns * sizeof(struct sock_filter);
}

size_t seccomp_area_size(const struct restore_plan *plan)
{
	size_t prefix, size = 0, i, k;

	if (!plan->threads.n)
		return 0;
	prefix = shared_prefix(plan);
	for (i = 0; i < prefix; i++)
		size += filter_room(plan->threads.items[0].seccomp[i]);
	for (k = 0; k < plan->threads.n; k++)
		for (i = prefix; i < plan->threads.items[k].n_seccomp; i++)
			size += filter_room(plan->threads.items[k].seccomp[i]);
	return size;
}

/*
 * @n filters at @off: their rst_seccomp_filter array, then each one's
 * instructions.  Returns the offset past them.
 */
static uint64_t fill_filters(struct rst_args *a, const struct plan_seccomp_filter *const *f,
			     size_t n, uint64_t off)
{
	char *base = (char *)a->area_start;
	struct rst_seccomp_filter *out = (struct rst_seccomp_filter *)(base + off);
	size_t i;

	off += n * sizeof(*out);
	for (i = 0; i < n; i++) {
		out[i].flags = SECCOMP_FILTER_FLAG_SPEC_ALLOW |
			       (f[i]->log ? SECCOMP_FILTER_FLAG_LOG : 0);
		out[i].n_insns = (uint32_t)f[i]->n_insns;
		out[i].insns_off = off;
		memcpy(base + off, f[i]->insns, f[i]->n_insns * sizeof(struct sock_filter));
		off += f[i]->n_insns * sizeof(struct sock_filter);
	}
	return off;
}

/*
 * SECCOMP_FILTER_FLAG_SPEC_ALLOW on every filter: a filter installed
 * without it may force a speculation mitigation on, where the thread
 * record says what the thread had, which the restorer sets itself.
 * After threads_fill().
 */
void seccomp_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off)
{
	struct rst_thread *t = (struct rst_thread *)((char *)a->area_start + a->threads_off);
	size_t prefix, k;

	if (!plan->threads.n)
		return;
	prefix = shared_prefix(plan);
	a->n_seccomp = prefix;
	a->seccomp_off = off;
	off = fill_filters(a, plan->threads.items[0].seccomp, prefix, off);
	for (k = 0; k < plan->threads.n; k++) {
		const struct plan_thread *pt = &plan->threads.items[k];

		t[k].seccomp_mode = pt->seccomp_mode == CRIB_SECCOMP_STRICT ?
				    SECCOMP_MODE_STRICT : 0;
		/* Every thread has at least the prefix. */
		t[k].n_seccomp = pt->n_seccomp - prefix;
		t[k].seccomp_off = off;
		off = fill_filters(a, pt->seccomp + prefix, t[k].n_seccomp, off);
	}
}

void seccomp_free_thread(struct plan_thread *pt)
{
	free(pt->seccomp);
	pt->seccomp = NULL;
	pt->n_seccomp = 0;
}

void seccomp_free(struct restore_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->seccomp_filters.n; i++) {
		free(tree->seccomp_filters.items[i]->insns);
		free(tree->seccomp_filters.items[i]);
	}
	array_free(&tree->seccomp_filters);
}
