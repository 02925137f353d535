// SPDX-License-Identifier: GPL-2.0
/*
 * Seccomp: each thread's mode and the filters it runs under (spec: the
 * seccomp and seccomp_filter records).
 *
 * dump_thread walks a thread's filters by kernel address, so two threads
 * that share a filter object are seen to share it; the filters' programs
 * are read with PTRACE_SECCOMP_GET_FILTER while the threads are stopped.
 * A restore can make again what every thread of a process shares (its
 * leader installs it before it starts the others) and what one thread
 * installed for itself; a filter shared by some threads only, or one
 * with a user-space listener, cannot be made again, and is refused.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "crib-dump.h"
#include "seccomp_share.h"

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER	0x420c
#endif
#ifndef PTRACE_SECCOMP_GET_METADATA
#define PTRACE_SECCOMP_GET_METADATA	0x420d
#endif

/* One filter object of the process, numbered for the snapshot. */
struct seccomp_filter_entry {
	uint64_t addr;			/* the kernel's, never written */
	uint64_t filter_id;
	bool log;
	struct sock_filter *insns;
	size_t n_insns;
};

struct seccomp_state {
	ARRAY(struct seccomp_filter_entry) filters;
};

/* Thread @t's filter @i (0: the last installed), oldest first. */
static uint64_t chain_at(const struct dump_thread_rec *t, uint32_t i)
{
	return t->attrs.seccomp_chain[t->attrs.seccomp_walked - 1 - i];
}

static int refuse(struct dump_job *job, const struct dump_thread_rec *t, const char *why)
{
	return tool_fail(&job->err, 0, "process %d, thread %d: %s, which cannot be restored",
			 (int)job->pid, (int)t->tid, why);
}

static int check_thread(struct dump_job *job, const struct dump_thread_rec *t)
{
	const struct dump_thread_attrs *a = &t->attrs;

	if (a->seccomp_mode != SECCOMP_MODE_DISABLED && a->seccomp_mode != SECCOMP_MODE_STRICT &&
	    a->seccomp_mode != SECCOMP_MODE_FILTER)
		return refuse(job, t, "it runs in an unknown seccomp mode");
	if (a->seccomp_filters > a->seccomp_walked)
		return tool_fail(&job->err, 0, "process %d, thread %d: it runs under %u seccomp "
				 "filters, more than the %d a snapshot carries", (int)job->pid,
				 (int)t->tid, a->seccomp_filters, DUMP_MAX_SECCOMP);
	if (a->seccomp_listener)
		return refuse(job, t, "it runs under a seccomp filter with a user-space listener "
			      "(SECCOMP_FILTER_FLAG_NEW_LISTENER), whose supervisor is not carried");
	return 0;
}

static size_t thread_filters(const void *ctx, size_t k)
{
	const struct dump_job *job = ctx;

	return job->threads.items[k].attrs.seccomp_walked;
}

static uint64_t thread_filter(const void *ctx, size_t k, size_t i)
{
	const struct dump_job *job = ctx;

	return chain_at(&job->threads.items[k], (uint32_t)i);
}

/* The threads of @job, their filters by kernel address. */
static struct seccomp_threads job_threads(const struct dump_job *job)
{
	return (struct seccomp_threads){ .n = job->threads.n, .ctx = job,
					 .count = thread_filters, .filter = thread_filter };
}

/*
 * A filter past the shared prefix must be one thread's own: the restore
 * installs each thread's own filters in that thread, so two threads would
 * get two copies, and a later SECCOMP_FILTER_FLAG_TSYNC would see them
 * differ where it saw them agree.
 */
static int check_sharing(struct dump_job *job)
{
	struct seccomp_threads st = job_threads(job);
	size_t a, b, i;

	if (!seccomp_shared_past(&st, seccomp_shared_prefix(&st), &a, &b, &i))
		return 0;
	return tool_fail(&job->err, 0, "process %d: threads %d and %d share a seccomp filter "
			 "that not all its threads run under, which cannot be restored",
			 (int)job->pid, (int)job->threads.items[a].tid,
			 (int)job->threads.items[b].tid);
}

static struct seccomp_filter_entry *find_filter(struct seccomp_state *s, uint64_t addr)
{
	size_t i;

	for (i = 0; i < s->filters.n; i++)
		if (s->filters.items[i].addr == addr)
			return &s->filters.items[i];
	return NULL;
}

/*
 * The program of thread @tid's filter @index: PTRACE_SECCOMP_GET_FILTER
 * counts from the first installed, 0.
 */
static int read_program(struct dump_job *job, pid_t tid, uint32_t index,
			struct seccomp_filter_entry *f)
{
	long n;

	n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)(unsigned long)index, NULL);
	if (n <= 0 || n > BPF_MAXINSNS)
		return tool_fail(&job->err, n < 0 ? errno : 0, "process %d, thread %d: cannot "
				 "read seccomp filter %u (PTRACE_SECCOMP_GET_FILTER)",
				 (int)job->pid, (int)tid, index);
	f->insns = calloc(n, sizeof(*f->insns));
	if (!f->insns)
		return tool_fail(&job->err, 0, "out of memory");
	if (ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)(unsigned long)index, f->insns) != n)
		return tool_fail(&job->err, errno, "process %d, thread %d: seccomp filter %u "
				 "changed while read", (int)job->pid, (int)tid, index);
	f->n_insns = n;
	return 0;
}

static int read_filters(struct dump_job *job, const struct dump_thread_rec *t)
{
	struct seccomp_state *s = job->seccomp;
	struct seccomp_filter_entry *f;
	uint32_t i;

	for (i = 0; i < t->attrs.seccomp_walked; i++) {
		if (find_filter(s, t->attrs.seccomp_chain[i]))
			continue;
		f = array_push(&s->filters);
		if (!f)
			return tool_fail(&job->err, 0, "out of memory");
		memset(f, 0, sizeof(*f));
		f->addr = t->attrs.seccomp_chain[i];
		f->log = t->attrs.seccomp_log & (1u << i);
		if (read_program(job, t->tid, t->attrs.seccomp_walked - 1 - i, f))
			return -1;
	}
	return 0;
}

int seccomp_read(struct dump_job *job)
{
	size_t k;

	for (k = 0; k < job->threads.n; k++)
		if (check_thread(job, &job->threads.items[k]))
			return -1;
	if (check_sharing(job))
		return -1;
	job->seccomp = calloc(1, sizeof(*job->seccomp));
	if (!job->seccomp)
		return tool_fail(&job->err, 0, "out of memory");
	for (k = 0; k < job->threads.n; k++)
		if (read_filters(job, &job->threads.items[k]))
			return -1;
	return 0;
}

static int write_filters(struct dump_job *job)
{
	struct seccomp_state *s = job->seccomp;
	struct seccomp_filter_entry *f;
	size_t i;

	for (i = 0; i < s->filters.n; i++) {
		f = &s->filters.items[i];
		f->filter_id = ++job->tree->seccomp_filters;
		if (crib_write_seccomp_filter(job->writer, &(struct crib_seccomp_filter) {
			.filter_id = f->filter_id,
			.log = f->log,
			.insns = { .data = f->insns, .len = f->n_insns * sizeof(*f->insns) },
		}))
			return tool_fail(&job->err, 0, "writing a seccomp filter of process %d: %s",
					 (int)job->pid, crib_writer_error(job->writer)->msg);
	}
	return 0;
}

static int write_thread(struct dump_job *job, const struct dump_thread_rec *t)
{
	uint64_t ids[DUMP_MAX_SECCOMP];
	uint32_t i;

	for (i = 0; i < t->attrs.seccomp_walked; i++)
		ids[i] = find_filter(job->seccomp, chain_at(t, i))->filter_id;
	if (crib_write_seccomp(job->writer, &(struct crib_seccomp) {
		.pid = job->pid,
		.tid = t->tid,
		.mode = t->attrs.seccomp_mode,
		.filters = ids,
		.n_filters = t->attrs.seccomp_walked,
	}))
		return tool_fail(&job->err, 0, "writing the seccomp record of thread %d: %s",
				 (int)t->tid, crib_writer_error(job->writer)->msg);
	return 0;
}

int seccomp_write(struct dump_job *job)
{
	size_t k;

	if (!job->seccomp || write_filters(job))
		return job->seccomp ? -1 : 0;
	for (k = 0; k < job->threads.n; k++)
		if (job->threads.items[k].attrs.seccomp_mode &&
		    write_thread(job, &job->threads.items[k]))
			return -1;
	return 0;
}

void seccomp_free(struct dump_job *job)
{
	struct seccomp_state *s = job->seccomp;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->filters.n; i++)
		free(s->filters.items[i].insns);
	array_free(&s->filters);
	free(s);
	job->seccomp = NULL;
}
