// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: a process's signal state and timers.
 *
 *   dump_sighand   every entry of the signal handler table
 *   dump_sigqueue  one signal queue, in order: a thread's own, or the
 *                  process-wide one (ctx->start, enum dump_sigqueue_which),
 *                  then the queue's pending set
 *   dump_timers    ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF, then every
 *                  POSIX timer of the process
 *
 * The queues and the timer list are walked without their locks (a CRIB
 * program cannot take a spinlock): the threads are stopped, so only other
 * tasks can change them, and crib-dump reads them twice and compares with
 * what ptrace reads under the lock.  Raw kernel values go out; crib-dump
 * turns expiry times into time left.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "dump.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} signal_records SEC(".maps");

_Static_assert(sizeof(struct k_sigaction) == sizeof(struct dump_sigaction),
	       "struct k_sigaction is not four words");
_Static_assert(sizeof(kernel_siginfo_t) == DUMP_SIGINFO_SIZE, "kernel_siginfo size");

/* The task @ctx names, if it is a thread of the process @ctx->tgid. */
static __always_inline struct task_struct *task_of(const struct dump_ctx *ctx, int *ret)
{
	struct task_struct *task;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task) {
		*ret = DUMP_NO_TASK;
		return NULL;
	}
	if (task->tgid != ctx->tgid) {
		bpf_task_release(task);
		*ret = DUMP_NOT_OURS;
		return NULL;
	}
	return task;
}

static __always_inline s32 pid_nr_of(struct pid *pid)
{
	return pid ? pid->numbers[0].nr : 0;
}

SEC("crib")
int dump_sighand(struct dump_ctx *ctx)
{
	struct sighand_struct *sighand;
	struct dump_sighand_rec *h;
	struct task_struct *task;
	int ret = DUMP_OK;

	task = task_of(ctx, &ret);
	if (!task)
		return ret;
	sighand = task->sighand;
	if (!sighand) {		/* released: the task has exited */
		bpf_task_release(task);
		return DUMP_NO_TASK;
	}
	h = bpf_ringbuf_reserve(&signal_records, sizeof(*h), 0);
	if (!h) {
		bpf_task_release(task);
		return DUMP_NO_ROOM;
	}
	dump_zero(h, sizeof(*h));
	h->kind = DUMP_REC_SIGHAND;
	h->users = sighand->count.refs.counter;
	h->nr_threads = task->signal->nr_threads;
	bpf_probe_read_kernel(h->action, sizeof(h->action), &sighand->action);
	bpf_task_release(task);
	bpf_ringbuf_submit(h, 0);
	return DUMP_OK;
}

static __always_inline int send_sigmask(s32 tid, u64 mask, u32 queue, u32 n)
{
	struct dump_sigmask_rec *m;

	m = bpf_ringbuf_reserve(&signal_records, sizeof(*m), 0);
	if (!m)
		return DUMP_NO_ROOM;
	dump_zero(m, sizeof(*m));
	m->kind = DUMP_REC_SIGMASK;
	m->tid = tid;
	m->mask = mask;
	m->queue = queue;
	m->n_queued = n;
	bpf_ringbuf_submit(m, 0);
	return DUMP_OK;
}

SEC("crib")
int dump_sigqueue(struct dump_ctx *ctx)
{
	struct dump_sigqueue_rec *rec;
	struct task_struct *task;
	struct sigpending *queue;
	struct bpf_iter_num it;
	struct sigqueue q;
	u64 head, next;
	int ret = DUMP_OK;
	u32 n = 0;

	task = task_of(ctx, &ret);
	if (!task)
		return ret;
	if (ctx->start == DUMP_QUEUE_SHARED)
		queue = &task->signal->shared_pending;
	else
		queue = &task->pending;
	head = (u64)&queue->list;
	next = (u64)queue->list.next;
	for_each_step(it, DUMP_MAX_SIGQUEUE) {
		if (next == head)
			break;
		/* list is the first member of struct sigqueue */
		if (bpf_probe_read_kernel(&q, sizeof(q), (void *)next)) {
			ret = DUMP_NO_TASK;	/* freed under us: the process is going */
			break;
		}
		rec = bpf_ringbuf_reserve(&signal_records, sizeof(*rec), 0);
		if (!rec) {
			ret = DUMP_NO_ROOM;
			break;
		}
		rec->kind = DUMP_REC_SIGQUEUE;
		rec->flags = q.flags;
		__builtin_memcpy(rec->info, &q.info, sizeof(rec->info));
		bpf_ringbuf_submit(rec, 0);
		next = (u64)q.list.next;
		n++;
	}
	bpf_iter_num_destroy(&it);
	if (!ret && next != head)
		ret = DUMP_TOO_MANY;
	if (!ret)
		ret = send_sigmask(task->pid, queue->signal.sig[0], (u32)ctx->start, n);
	bpf_task_release(task);
	return ret;
}

static __always_inline void read_hrtimer(struct hrtimer *timer, struct dump_hrtimer *out)
{
	struct hrtimer_clock_base *base = timer->base;

	out->expires = timer->node.expires;
	out->state = timer->state;
	if (base) {
		out->base_offset = base->offset;
		out->base_clockid = base->clockid;
		out->running = (u64)base->running == (u64)timer;
	}
}

static __always_inline void sample_cputime(struct task_cputime_atomic *at, u64 *sample)
{
	u64 utime = at->utime.counter, stime = at->stime.counter;

	sample[DUMP_CPUCLOCK_PROF] = utime + stime;
	sample[DUMP_CPUCLOCK_VIRT] = utime;
	sample[DUMP_CPUCLOCK_SCHED] = at->sum_exec_runtime.counter;
}

/*
 * The CPU time a per-thread CPU timer counts, from its thread (stopped,
 * so its counters are final: task_sched_runtime() adds nothing for a task
 * that is not on a CPU).
 */
static __always_inline void sample_thread(s32 tid, s32 tgid, struct dump_posix_timer_rec *p)
{
	struct task_struct *t = bpf_crib_task_from_vpid(tid);

	if (!t)
		return;
	if (t->tgid == tgid) {
		p->cpu_sample[DUMP_CPUCLOCK_PROF] = t->utime + t->stime;
		p->cpu_sample[DUMP_CPUCLOCK_VIRT] = t->utime;
		p->cpu_sample[DUMP_CPUCLOCK_SCHED] = t->se.sum_exec_runtime;
		p->has_cpu_sample = 1;
	}
	bpf_task_release(t);
}

/* One POSIX timer; @node is its k_itimer's list member (the first). */
static __always_inline int send_posix_timer(u64 node, const struct dump_timers_rec *sum,
					    s32 tgid)
{
	struct dump_posix_timer_rec *p;
	struct k_itimer *k;

	k = bpf_rdonly_cast((void *)node, bpf_core_type_id_kernel(struct k_itimer));
	p = bpf_ringbuf_reserve(&signal_records, sizeof(*p), 0);
	if (!p)
		return DUMP_NO_ROOM;
	dump_zero(p, sizeof(*p));
	p->kind = DUMP_REC_POSIX_TIMER;
	p->id = k->it_id;
	p->clock = k->it_clock;
	p->sigev_notify = k->it_sigev_notify;
	p->target = pid_nr_of(k->it_pid);
	if (k->sigq) {
		p->signo = k->sigq->info.si_signo;
		p->sigev_value = (u64)k->sigq->info._sifields._timer._sigval.sival_ptr;
	}
	p->interval = k->it_interval;
	p->overrun = k->it_overrun;
	p->overrun_last = k->it_overrun_last;
	p->active = k->it_active;
	p->requeue_pending = k->it_requeue_pending;
	if (k->it_clock >= 0) {
		read_hrtimer(&k->it.real.timer, &p->hr);
	} else {
		p->cpu_expires = k->it.cpu.node.expires;
		/* the verifier types a union by its first member: cast back */
		p->cpu_target = pid_nr_of(bpf_rdonly_cast((void *)k->it.cpu.pid,
							  bpf_core_type_id_kernel(struct pid)));
		p->cpu_queued = k->it.cpu.head != NULL;
		p->cpu_firing = k->it.cpu.firing;
		if (k->it_clock & 4) {	/* CPUCLOCK_PERTHREAD_MASK */
			sample_thread(p->cpu_target, tgid, p);
		} else if (p->cpu_target == tgid && sum->timers_active) {
			__builtin_memcpy(p->cpu_sample, sum->group_sample, sizeof(p->cpu_sample));
			p->has_cpu_sample = 1;
		}
	}
	bpf_ringbuf_submit(p, 0);
	return DUMP_OK;
}

SEC("crib")
int dump_timers(struct dump_ctx *ctx)
{
	struct dump_timers_rec *sum;
	struct task_struct *task;
	struct signal_struct *sig;
	struct bpf_iter_num it;
	int ret = DUMP_OK;
	u64 node;
	u32 n = 0;

	task = task_of(ctx, &ret);
	if (!task)
		return ret;
	sig = task->signal;
	/* The summary is built first and sent last, with the count. */
	sum = bpf_ringbuf_reserve(&signal_records, sizeof(*sum), 0);
	if (!sum) {
		bpf_task_release(task);
		return DUMP_NO_ROOM;
	}
	dump_zero(sum, sizeof(*sum));
	sum->kind = DUMP_REC_TIMERS;
	sum->now = bpf_ktime_get_ns();
	read_hrtimer(&sig->real_timer, &sum->real);
	sum->real_incr = sig->it_real_incr;
	sum->it[0].expires = sig->it[0].expires;
	sum->it[0].incr = sig->it[0].incr;
	sum->it[1].expires = sig->it[1].expires;
	sum->it[1].incr = sig->it[1].incr;
	sum->timers_active = sig->posix_cputimers.timers_active;
	sample_cputime(&sig->cputimer.cputime_atomic, sum->group_sample);

	node = (u64)sig->posix_timers.first;
	for_each_step(it, DUMP_MAX_TIMERS) {
		if (!node)
			break;
		ret = send_posix_timer(node, sum, task->tgid);
		if (ret)
			break;
		/* hlist_node.next; a timer freed under us means the process is going */
		if (bpf_probe_read_kernel(&node, sizeof(node), (void *)node)) {
			ret = DUMP_NO_TASK;
			break;
		}
		n++;
	}
	bpf_iter_num_destroy(&it);
	if (!ret && node)
		ret = DUMP_TOO_MANY;
	sum->n_posix = n;
	if (ret)
		bpf_ringbuf_discard(sum, 0);
	else
		bpf_ringbuf_submit(sum, 0);
	bpf_task_release(task);
	return ret;
}
