// SPDX-License-Identifier: GPL-2.0
/*
 * Signal handlers and pending signals: the sighand and sigpending records,
 * and the pending list of each thread record.
 *
 * The handler table comes from the dump_sighand CRIB program.  A queue of
 * pending signals is read three times: by dump_sigqueue, by
 * PTRACE_PEEKSIGINFO (which walks it under the signal lock and gives the
 * siginfo_t exactly as user space sees it, the form a restorer hands back
 * to rt_sigqueueinfo), and by dump_sigqueue again.  All three must agree,
 * or the queue changed under the dump (a signal from outside): it is read
 * again, a few times, before the dump gives up.
 *
 * A signal can be pending without a queue entry (SIGKILL, or a legacy
 * signal sent when no entry could be allocated); the kernel delivers it
 * with a zeroed SI_USER siginfo, which is what goes in the snapshot.  A
 * signal the freeze stopped a thread on (a signal-delivery-stop) has left
 * its queue already: it is pending all the same, first in that thread's
 * list, with the siginfo ptrace holds for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_signals.skel.h"
#include "kabi.h"

#define SIGINFO_SIZE	128	/* siginfo_t as user space sees it */
#define QUEUE_READS	5	/* attempts at a consistent read of one queue */

struct queued {
	uint8_t info[SIGINFO_SIZE];
};

/* Queued signals, in delivery order. */
struct queued_list {
	ARRAY(struct queued);
};

/* One queue as the snapshot holds it. */
struct sig_queue {
	pid_t tid;		/* the thread it belongs to; the leader for the shared one */
	struct queued_list list;
	struct crib_siginfo *entries;	/* for the writer, pointing into list */
};

struct signal_state {
	struct crib_sigaction actions[DUMP_NSIG];
	size_t n_actions;
	struct sig_queue shared;
	struct sig_queue *threads;	/* parallel to job->freezer.threads */
	size_t n_threads;
};

/* What one read of a queue by dump_sigqueue found. */
struct bpf_queue {
	struct record_list entries;	/* struct dump_sigqueue_rec */
	struct record_list masks;	/* struct dump_sigmask_rec, exactly one */
};

static const char *queue_name(enum dump_sigqueue_which which)
{
	return which == DUMP_QUEUE_SHARED ? "process-wide" : "thread";
}

static int read_sighand(struct dump_job *job, struct signal_state *s)
{
	struct record_list recs = { .kind = DUMP_REC_SIGHAND,
				    .size = sizeof(struct dump_sighand_rec) };
	struct dump_ctx ctx = { .target = dump_target(job), .pid = job->pid,
				.tgid = job->pid };
	const struct dump_sighand_rec *h;
	const struct dump_sigaction *a;
	int ret, sig;

	ret = program_collect(&job->progs.sighand, job->progs.signal_records, &ctx, sizeof(ctx),
			      &recs, &job->err);
	if (ret < 0)
		goto out;
	if (ret != DUMP_OK || recs.n != 1) {
		ret = tool_fail(&job->err, 0, "dump_sighand failed (result %d, %zu records)", ret,
				recs.n);
		goto out;
	}
	h = recs.items;
	if (h->users != h->nr_threads) {
		ret = tool_fail(&job->err, 0, "process %d shares its signal handlers with another process (CLONE_SIGHAND without CLONE_THREAD: %u users, %u threads)",
				(int)job->pid, h->users, h->nr_threads);
		goto out;
	}
	for (sig = 1; sig <= DUMP_NSIG; sig++) {
		a = &h->action[sig - 1];
		if (a->flags & SA_IMMUTABLE) {
			ret = tool_fail(&job->err, 0, "signal %d of process %d is being forced on it (SA_IMMUTABLE): the process is being killed",
					sig, (int)job->pid);
			goto out;
		}
		/* All zero is the state exec leaves: SIG_DFL, no flags, no mask. */
		if (!a->handler && !a->flags && !a->restorer && !a->mask)
			continue;
		s->actions[s->n_actions++] = (struct crib_sigaction) {
			.signo = (uint64_t)sig, .handler = a->handler, .flags = a->flags,
			.restorer = a->restorer, .mask = a->mask,
		};
	}
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

static void bpf_queue_free(struct bpf_queue *q)
{
	record_list_free(&q->entries);
	record_list_free(&q->masks);
}

static int bpf_read_queue(struct dump_job *job, pid_t tid, enum dump_sigqueue_which which,
			  struct bpf_queue *q)
{
	struct record_list *lists[] = { &q->entries, &q->masks };
	struct dump_ctx ctx = { .target = dump_target(job), .pid = tid, .tgid = job->pid,
				.start = which };
	const struct dump_sigmask_rec *m;
	int ret;

	q->entries = (struct record_list){ .kind = DUMP_REC_SIGQUEUE,
					   .size = sizeof(struct dump_sigqueue_rec) };
	q->masks = (struct record_list){ .kind = DUMP_REC_SIGMASK,
					 .size = sizeof(struct dump_sigmask_rec) };
	ret = program_collect_kinds(&job->progs.sigqueue, job->progs.signal_records, &ctx,
				    sizeof(ctx), lists, 2, &job->err);
	if (ret < 0)
		return -1;
	if (ret == DUMP_TOO_MANY)
		return tool_fail(&job->err, 0, "the %s signal queue of thread %d holds more than %d signals",
				 queue_name(which), (int)tid, DUMP_MAX_SIGQUEUE);
	if (ret == DUMP_NO_TASK)
		return tool_fail(&job->err, 0, "thread %d exited, or its %s signal queue was freed while read",
				 (int)tid, queue_name(which));
	if (ret != DUMP_OK || q->masks.n != 1)
		return tool_fail(&job->err, 0, "dump_sigqueue failed for thread %d (result %d)",
				 (int)tid, ret);
	m = q->masks.items;
	if (m->n_queued != q->entries.n || m->tid != tid || m->queue != which)
		return tool_fail(&job->err, 0, "dump_sigqueue sent an inconsistent account of thread %d",
				 (int)tid);
	return 0;
}

/* The queue through PTRACE_PEEKSIGINFO, under the signal lock. */
static int ptrace_read_queue(struct dump_job *job, pid_t tid, enum dump_sigqueue_which which,
			     struct queued_list *out)
{
	struct __ptrace_peeksiginfo_args args = {
		.flags = which == DUMP_QUEUE_SHARED ? PTRACE_PEEKSIGINFO_SHARED : 0,
		.nr = 64,
	};
	long got;

	/* one more than the limit, to tell a full queue from an overlong one */
	while (out->n <= DUMP_MAX_SIGQUEUE) {
		if (array_reserve(out, (size_t)args.nr))
			return tool_fail(&job->err, 0, "out of memory");
		args.off = out->n;
		got = ptrace(PTRACE_PEEKSIGINFO, tid, &args, out->items + out->n);
		if (got < 0)
			return tool_fail(&job->err, errno, "cannot read the %s signal queue of thread %d",
					 queue_name(which), (int)tid);
		if (got == 0)
			break;
		out->n += (size_t)got;
	}
	return 0;
}

static bool same_bpf_reads(const struct bpf_queue *a, const struct bpf_queue *b)
{
	const struct dump_sigmask_rec *ma = a->masks.items, *mb = b->masks.items;

	return ma->mask == mb->mask && a->entries.n == b->entries.n &&
	       !memcmp(a->entries.items, b->entries.items, a->entries.n * a->entries.size);
}

/* The kernel's siginfo followed by zeros: what ptrace and user space see. */
static bool ptrace_matches_bpf(const struct bpf_queue *q, const struct queued_list *l)
{
	const struct dump_sigqueue_rec *e = q->entries.items;
	static const uint8_t zeros[SIGINFO_SIZE - DUMP_SIGINFO_SIZE];
	size_t i;

	if (l->n != q->entries.n)
		return false;
	for (i = 0; i < l->n; i++)
		if (memcmp(l->items[i].info, e[i].info, DUMP_SIGINFO_SIZE) ||
		    memcmp(l->items[i].info + DUMP_SIGINFO_SIZE, zeros, sizeof(zeros)))
			return false;
	return true;
}

static int info_signo(const uint8_t *info)
{
	int32_t signo;

	memcpy(&signo, info, sizeof(signo));
	return signo;
}

static int append(struct sig_queue *q, const uint8_t *info)
{
	struct queued *e = array_push(&q->list);

	if (!e)
		return -ENOMEM;
	memcpy(e->info, info, SIGINFO_SIZE);
	return 0;
}

/* What collect_signal() hands out for a signal pending without an entry. */
static void fast_path_siginfo(uint8_t *info, int sig)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_USER;
	memcpy(info, &si, SIGINFO_SIZE);
}

/*
 * @read in queue order, then one entry for each signal of @mask that has
 * none; every queued signal must be in @mask.
 */
static int fill_queue(struct dump_job *job, struct sig_queue *out, enum dump_sigqueue_which which,
		      uint64_t mask, const struct queued_list *read)
{
	uint8_t info[SIGINFO_SIZE];
	uint64_t seen = 0;
	size_t i;
	int sig;

	for (i = 0; i < read->n; i++) {
		sig = info_signo(read->items[i].info);
		if (sig < 1 || sig > DUMP_NSIG || !(mask & (1ull << (sig - 1))))
			return tool_fail(&job->err, 0, "the %s signal queue of thread %d holds signal %d, which is not in its pending set %#llx",
					 queue_name(which), (int)out->tid, sig,
					 (unsigned long long)mask);
		seen |= 1ull << (sig - 1);
		if (append(out, read->items[i].info))
			return tool_fail(&job->err, 0, "out of memory");
	}
	for (sig = 1; sig <= DUMP_NSIG; sig++) {
		if (!(mask & (1ull << (sig - 1))) || (seen & (1ull << (sig - 1))))
			continue;
		fast_path_siginfo(info, sig);
		if (append(out, info))
			return tool_fail(&job->err, 0, "out of memory");
	}
	return 0;
}

static int read_queue(struct dump_job *job, pid_t tid, enum dump_sigqueue_which which,
		      struct sig_queue *out)
{
	struct bpf_queue before = { 0 }, after = { 0 };
	struct queued_list read = { 0 };
	int attempt, ret = -1;
	bool stable;

	for (attempt = 0; attempt < QUEUE_READS; attempt++) {
		if (bpf_read_queue(job, tid, which, &before) ||
		    ptrace_read_queue(job, tid, which, &read) ||
		    bpf_read_queue(job, tid, which, &after))
			goto out;
		stable = same_bpf_reads(&before, &after);
		if (stable && ptrace_matches_bpf(&before, &read))
			break;
		dump_verbose(job, "the %s signal queue of thread %d changed while read (%s); again\n",
			     queue_name(which), (int)tid,
			     stable ? "ptrace saw other entries" : "two reads differ");
		bpf_queue_free(&before);
		bpf_queue_free(&after);
		array_free(&read);
	}
	if (attempt == QUEUE_READS) {
		tool_fail(&job->err, 0, "the %s signal queue of thread %d kept changing during the dump (%d reads)",
			  queue_name(which), (int)tid, QUEUE_READS);
		goto out;
	}
	out->tid = tid;
	ret = fill_queue(job, out, which, ((const struct dump_sigmask_rec *)before.masks.items)->mask,
			 &read);
out:
	bpf_queue_free(&before);
	bpf_queue_free(&after);
	array_free(&read);
	return ret;
}

/* The signal @t was stopped on by the freeze, first in its thread's list. */
static int add_stopped_signal(struct dump_job *job, const struct frozen_thread *t,
			      struct sig_queue *q)
{
	uint8_t info[SIGINFO_SIZE];

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, info))
		return tool_fail(&job->err, errno, "cannot read the signal thread %d stopped on",
				 (int)t->tid);
	if (info_signo(info) != t->pending_signal)
		return tool_fail(&job->err, 0, "thread %d stopped on signal %d but ptrace reports signal %d",
				 (int)t->tid, t->pending_signal, info_signo(info));
	if (append(q, info))
		return tool_fail(&job->err, 0, "out of memory");
	dump_verbose(job, "thread %d was stopped on delivering signal %d: kept as pending\n",
		     (int)t->tid, t->pending_signal);
	return 0;
}

static int build_entries(struct sig_queue *q)
{
	size_t i;

	if (!q->list.n)
		return 0;
	q->entries = calloc(q->list.n, sizeof(*q->entries));
	if (!q->entries)
		return -ENOMEM;
	for (i = 0; i < q->list.n; i++) {
		q->entries[i].signo = (uint64_t)info_signo(q->list.items[i].info);
		q->entries[i].info = (struct crib_blob){ .data = q->list.items[i].info,
							 .len = SIGINFO_SIZE };
	}
	return 0;
}

static int read_thread_queues(struct dump_job *job, struct signal_state *s)
{
	const struct frozen_thread *t;
	struct sig_queue *q;
	size_t i;

	s->threads = calloc(job->freezer.threads.n, sizeof(*s->threads));
	if (!s->threads)
		return tool_fail(&job->err, 0, "out of memory");
	s->n_threads = job->freezer.threads.n;
	for (i = 0; i < job->freezer.threads.n; i++) {
		t = &job->freezer.threads.items[i];
		q = &s->threads[i];
		q->tid = t->tid;
		if (t->pending_signal && add_stopped_signal(job, t, q))
			return -1;
		if (read_queue(job, t->tid, DUMP_QUEUE_THREAD, q))
			return -1;
		if (build_entries(q))
			return tool_fail(&job->err, 0, "out of memory");
	}
	return 0;
}

int signals_read(struct dump_job *job)
{
	struct signal_state *s;
	size_t i, n = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tool_fail(&job->err, 0, "out of memory");
	job->signals = s;
	if (read_sighand(job, s) || read_thread_queues(job, s))
		return -1;
	if (read_queue(job, job->pid, DUMP_QUEUE_SHARED, &s->shared))
		return -1;
	if (build_entries(&s->shared))
		return tool_fail(&job->err, 0, "out of memory");
	for (i = 0; i < s->n_threads; i++)
		n += s->threads[i].list.n;
	dump_verbose(job, "%zu signal handlers, %zu signals pending for the process, %zu for single threads\n",
		     s->n_actions, s->shared.list.n, n);
	return 0;
}

const struct crib_siginfo *signals_thread_pending(const struct dump_job *job, pid_t tid,
						  size_t *n)
{
	const struct signal_state *s = job->signals;
	size_t i;

	for (i = 0; s && i < s->n_threads; i++) {
		if (s->threads[i].tid == tid) {
			*n = s->threads[i].list.n;
			return s->threads[i].entries;
		}
	}
	*n = 0;
	return NULL;
}

int signals_write(struct dump_job *job)
{
	const struct signal_state *s = job->signals;
	struct crib_sighand h = {
		.pid = (uint64_t)job->pid, .actions = s->actions, .n_actions = s->n_actions,
	};
	struct crib_sigpending p = {
		.pid = (uint64_t)job->pid, .signals = s->shared.entries,
		.n_signals = s->shared.list.n,
	};

	if (crib_write_sighand(job->writer, &h) || crib_write_sigpending(job->writer, &p))
		return tool_fail(&job->err, 0, "writing the signal records: %s",
				 crib_writer_error(job->writer)->msg);
	return 0;
}

static void queue_free(struct sig_queue *q)
{
	array_free(&q->list);
	free(q->entries);
}

void signals_free(struct dump_job *job)
{
	struct signal_state *s = job->signals;
	size_t i;

	if (!s)
		return;
	queue_free(&s->shared);
	for (i = 0; i < s->n_threads; i++)
		queue_free(&s->threads[i]);
	free(s->threads);
	free(s);
	job->signals = NULL;
}
