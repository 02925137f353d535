// SPDX-License-Identifier: GPL-2.0
/*
 * The timers record: ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF and the
 * POSIX timers, read by the dump_timers CRIB program.
 *
 * The program gives raw kernel state: absolute expiry times, the clock
 * base offsets and CLOCK_MONOTONIC at the time of the read for timers on
 * hrtimer clocks, the CPU time consumed so far for CPU-time timers.  This
 * file turns them into time left, the way getitimer(2) and
 * timer_gettime(2) would have reported it at that moment (a timer whose
 * expiry is not delivered yet is moved on by its interval, an expired one
 * whose signal is on its way is due in 1 ns).
 *
 * The POSIX timer list is walked without its lock, so every timer is also
 * checked against /proc/PID/timers.  What cannot be represented stops the
 * dump, naming the timer: alarm clocks, a timer counting another process's
 * CPU time, a timer that signals a thread which is gone.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_signals.skel.h"
#include "kabi.h"

#define DUE_NOW			1	/* ns left for an expired timer whose signal is on its way */

struct timer_state {
	struct crib_timers rec;
	struct crib_posix_timer *posix;
};

static int32_t make_process_cpuclock(uint32_t pid, int32_t which)
{
	return (int32_t)((~pid) << 3) | which;
}

static int32_t make_thread_cpuclock(uint32_t tid, int32_t which)
{
	return make_process_cpuclock(tid, which | CPUCLOCK_PERTHREAD);
}

/* The hrtimer's expiry relative to CLOCK_MONOTONIC @now. */
static int64_t hrtimer_left(const struct dump_hrtimer *h, int64_t now)
{
	return h->expires - h->base_offset - now;
}

/* itimer_get_remtime(): 1 us for a queued timer that is overdue. */
static uint64_t itimer_real_left(const struct dump_timers_rec *sum)
{
	int64_t left = hrtimer_left(&sum->real, sum->now);

	if (!sum->real.state && !sum->real.running)
		return 0;
	return left > 0 ? (uint64_t)left : 1000;
}

static int cpu_itimer(struct dump_job *job, const struct dump_timers_rec *sum, int clock,
		      const char *name, struct crib_itimer *out)
{
	const struct dump_cpu_itimer *it = &sum->it[clock];
	uint64_t now = sum->group_sample[clock];

	out->interval_ns = it->incr;
	if (!it->expires)
		return 0;
	if (!sum->timers_active)
		return tool_fail(&job->err, 0, "%s of process %d is armed but the process's CPU time is not being counted for it",
				 name, (int)job->pid);
	out->value_ns = it->expires > now ? it->expires - now : DUE_NOW;
	return 0;
}

/* The first expiry after @now of a timer that expired at @expires. */
static int64_t forward(int64_t expires, int64_t now, int64_t interval)
{
	if (expires > now)
		return expires;
	return expires + ((now - expires) / interval + 1) * interval;
}

/* common_timer_get() for a timer on an hrtimer clock. */
static uint64_t posix_hrtimer_left(const struct dump_posix_timer_rec *p, int64_t now)
{
	bool sig_none = p->sigev_notify == SIGEV_NONE;
	int64_t clock_now = now + p->hr.base_offset, expires = p->hr.expires;

	if (!p->interval && !p->active)
		return 0;
	if (p->interval > 0 && ((p->requeue_pending & REQUEUE_PENDING) || sig_none))
		expires = forward(expires, clock_now, p->interval);
	if (expires > clock_now)
		return (uint64_t)(expires - clock_now);
	return sig_none ? 0 : DUE_NOW;
}

/* posix_cpu_timer_get() for a timer on a CPU-time clock. */
static uint64_t posix_cpu_left(const struct dump_posix_timer_rec *p, int which)
{
	bool sig_none = p->sigev_notify == SIGEV_NONE;
	int64_t now = (int64_t)p->cpu_sample[which], expires = (int64_t)p->cpu_expires;

	if (p->interval > 0 && ((p->requeue_pending & REQUEUE_PENDING) || sig_none))
		expires = forward(expires, now, p->interval);
	if (expires > now)
		return (uint64_t)(expires - now);
	return sig_none ? 0 : DUE_NOW;
}

static bool is_our_thread(const struct dump_job *job, pid_t tid)
{
	size_t i;

	for (i = 0; i < job->freezer.threads.n; i++)
		if (job->freezer.threads.items[i].tid == tid)
			return true;
	return false;
}

static int hrtimer_clock(struct dump_job *job, const struct dump_posix_timer_rec *p,
			 int64_t now, struct crib_posix_timer *out)
{
	switch (p->clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d is on an alarm clock (%d), which crib-dump does not read",
				 p->id, (int)job->pid, p->clock);
	default:
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d is on clock %d, which crib-dump does not know",
				 p->id, (int)job->pid, p->clock);
	}
	/* A relative CLOCK_REALTIME timer runs on CLOCK_MONOTONIC (hrtimer_init()). */
	if (p->hr.base_clockid != p->clock &&
	    !(p->clock == CLOCK_REALTIME && p->hr.base_clockid == CLOCK_MONOTONIC))
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d: clock %d but its hrtimer runs on clock %d",
				 p->id, (int)job->pid, p->clock, p->hr.base_clockid);
	out->clockid = p->clock;
	out->interval_ns = (uint64_t)p->interval;
	out->value_ns = posix_hrtimer_left(p, now);
	return 0;
}

/*
 * A CPU-time clock, named in the snapshot so that it means the same thing
 * in a restored process: its own process's clock (pid 0), or the clock of
 * one of its threads by tid.
 */
static int cpu_clock(struct dump_job *job, const struct dump_posix_timer_rec *p,
		     struct crib_posix_timer *out)
{
	int which = p->clock & CPUCLOCK_CLOCK_MASK;
	bool per_thread = p->clock & CPUCLOCK_PERTHREAD;

	if (which == CLOCKFD)
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d is on a dynamic clock (clock %d)",
				 p->id, (int)job->pid, p->clock);
	if (per_thread ? !is_our_thread(job, p->cpu_target) : p->cpu_target != job->pid)
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d counts the CPU time of %s %d, not its own",
				 p->id, (int)job->pid, per_thread ? "thread" : "process",
				 p->cpu_target);
	out->clockid = per_thread ? make_thread_cpuclock((uint32_t)p->cpu_target, which) :
				    make_process_cpuclock(0, which);
	if (!p->cpu_expires)
		return 0;	/* disarmed: timer_gettime() reports no interval either */
	if (!p->has_cpu_sample)
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d is armed but the CPU time it counts could not be read",
				 p->id, (int)job->pid);
	out->interval_ns = (uint64_t)p->interval;
	out->value_ns = posix_cpu_left(p, which);
	return 0;
}

static int posix_timer(struct dump_job *job, const struct dump_posix_timer_rec *p, int64_t now,
		       struct crib_posix_timer *out)
{
	*out = (struct crib_posix_timer) {
		.id = (uint64_t)p->id, .signo = (uint64_t)p->signo,
		.notify = (uint64_t)p->sigev_notify, .sigev_value = p->sigev_value,
		.overrun = p->overrun_last > 0 ? (uint64_t)p->overrun_last : 0,
	};
	if (p->sigev_notify & SIGEV_THREAD_ID) {
		if (!is_our_thread(job, p->target))
			return tool_fail(&job->err, 0, "POSIX timer %d of process %d signals thread %d, which is not one of its threads (it exited)",
					 p->id, (int)job->pid, p->target);
		out->notify_tid = (uint64_t)p->target;
	} else if (p->target != job->pid) {
		return tool_fail(&job->err, 0, "POSIX timer %d of process %d signals process %d",
				 p->id, (int)job->pid, p->target);
	}
	if (p->clock >= 0)
		return hrtimer_clock(job, p, now, out);
	return cpu_clock(job, p, out);
}

/* One POSIX timer as /proc/PID/timers shows it. */
struct procfs_timer {
	int id, signo, target, clock;
	unsigned long long value;
	char notify[16], target_kind[8];
};

struct procfs_timers {
	ARRAY(struct procfs_timer);
};

/* The timers /proc/PID/timers lists, none when there is no such file; 0 or -1. */
static int read_procfs_timers(struct dump_job *job, struct procfs_timers *out)
{
	struct procfs_timer *cur = NULL;
	char path[64], line[256];
	FILE *f;
	int ok = 1;

	snprintf(path, sizeof(path), "/proc/%d/timers", (int)job->pid);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return tool_fail(&job->err, errno, "cannot read %s", path);
	}
	while (ok && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ID: ", 4)) {
			cur = array_push(out);
			if (!cur) {
				fclose(f);
				return tool_fail(&job->err, 0, "out of memory");
			}
			ok = sscanf(line, "ID: %d", &cur->id) == 1;
		} else if (!cur) {
			ok = 0;
		} else if (!strncmp(line, "signal: ", 8)) {
			ok = sscanf(line, "signal: %d/%llx", &cur->signo, &cur->value) == 2;
		} else if (!strncmp(line, "notify: ", 8)) {
			ok = sscanf(line, "notify: %15[^/]/%7[^.].%d", cur->notify, cur->target_kind,
				    &cur->target) == 3;
		} else if (!strncmp(line, "ClockID: ", 9)) {
			ok = sscanf(line, "ClockID: %d", &cur->clock) == 1;
		}
	}
	fclose(f);
	if (!ok)
		return tool_fail(&job->err, 0, "cannot parse %s: \"%.*s\"", path,
				 (int)strcspn(line, "\n"), line);
	return 0;
}

static bool same_as_procfs(const struct dump_posix_timer_rec *p, const struct procfs_timer *f)
{
	static const char *const notify[] = { "signal", "none", "thread" };
	int how = p->sigev_notify & ~SIGEV_THREAD_ID;

	return p->signo == f->signo && p->sigev_value == f->value && p->clock == f->clock &&
	       p->target == f->target && how >= 0 && how < 3 && !strcmp(notify[how], f->notify) &&
	       !strcmp(p->sigev_notify & SIGEV_THREAD_ID ? "tid" : "pid", f->target_kind);
}

/*
 * The timers were read without their locks: check every one against
 * /proc/PID/timers, which lists them under the lock (a kernel without it,
 * CONFIG_CHECKPOINT_RESTORE off, leaves the check out).
 */
static int check_against_procfs(struct dump_job *job, const struct record_list *posix)
{
	const struct dump_posix_timer_rec *p = posix->items;
	struct procfs_timers timers = { 0 };
	size_t i, j;
	int ret = 0;

	if (read_procfs_timers(job, &timers)) {
		ret = -1;
		goto out;
	}
	if (timers.n != posix->n) {
		ret = tool_fail(&job->err, 0, "the CRIB program read %zu POSIX timers of process %d, /proc/%d/timers lists %zu",
				posix->n, (int)job->pid, (int)job->pid, timers.n);
		goto out;
	}
	for (i = 0; i < posix->n && !ret; i++) {
		for (j = 0; j < timers.n && timers.items[j].id != p[i].id; j++)
			;
		if (j == timers.n || !same_as_procfs(&p[i], &timers.items[j]))
			ret = tool_fail(&job->err, 0, "POSIX timer %d of process %d: what the CRIB program read differs from /proc/%d/timers",
					p[i].id, (int)job->pid, (int)job->pid);
	}
out:
	array_free(&timers);
	return ret;
}

static int by_id(const void *a, const void *b)
{
	const struct crib_posix_timer *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int convert(struct dump_job *job, const struct dump_timers_rec *sum,
		   const struct record_list *posix, struct timer_state *ts)
{
	const struct dump_posix_timer_rec *p = posix->items;
	size_t i;

	ts->rec.pid = (uint64_t)job->pid;
	ts->rec.real.interval_ns = (uint64_t)sum->real_incr;
	ts->rec.real.value_ns = itimer_real_left(sum);
	if (cpu_itimer(job, sum, DUMP_CPUCLOCK_VIRT, "ITIMER_VIRTUAL", &ts->rec.virt) ||
	    cpu_itimer(job, sum, DUMP_CPUCLOCK_PROF, "ITIMER_PROF", &ts->rec.prof))
		return -1;
	if (!posix->n)
		return 0;
	ts->posix = calloc(posix->n, sizeof(*ts->posix));
	if (!ts->posix)
		return tool_fail(&job->err, 0, "out of memory");
	for (i = 0; i < posix->n; i++)
		if (posix_timer(job, &p[i], sum->now, &ts->posix[i]))
			return -1;
	/* The kernel lists the newest first. */
	qsort(ts->posix, posix->n, sizeof(*ts->posix), by_id);
	ts->rec.posix = ts->posix;
	ts->rec.n_posix = posix->n;
	return 0;
}

int timers_read(struct dump_job *job)
{
	struct record_list sums = { .kind = DUMP_REC_TIMERS, .size = sizeof(struct dump_timers_rec) };
	struct record_list posix = { .kind = DUMP_REC_POSIX_TIMER,
				     .size = sizeof(struct dump_posix_timer_rec) };
	struct record_list *lists[] = { &sums, &posix };
	struct dump_ctx ctx = { .target = dump_target(job), .pid = job->pid,
				.tgid = job->pid };
	const struct dump_timers_rec *sum;
	struct timer_state *ts;
	int ret;

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return tool_fail(&job->err, 0, "out of memory");
	job->timers = ts;
	ret = program_collect_kinds(&job->progs.timers, job->progs.signal_records, &ctx,
				    sizeof(ctx), lists, 2, &job->err);
	if (ret < 0)
		goto out;
	if (ret == DUMP_TOO_MANY) {
		ret = tool_fail(&job->err, 0, "process %d has more than %d POSIX timers",
				(int)job->pid, DUMP_MAX_TIMERS);
		goto out;
	}
	if (ret == DUMP_NO_TASK) {
		ret = tool_fail(&job->err, 0, "process %d exited, or a POSIX timer was freed while read",
				(int)job->pid);
		goto out;
	}
	if (ret != DUMP_OK || sums.n != 1) {
		ret = tool_fail(&job->err, 0, "dump_timers failed (result %d)", ret);
		goto out;
	}
	sum = sums.items;
	if (sum->n_posix != posix.n) {
		ret = tool_fail(&job->err, 0, "dump_timers sent %zu of %u POSIX timers", posix.n,
				sum->n_posix);
		goto out;
	}
	ret = check_against_procfs(job, &posix);
	if (!ret)
		ret = convert(job, sum, &posix, ts);
	if (!ret)
		dump_verbose(job, "timers: ITIMER_REAL %s, %zu POSIX timers\n",
			     ts->rec.real.value_ns ? "armed" : "off", ts->rec.n_posix);
out:
	record_list_free(&sums);
	record_list_free(&posix);
	return ret;
}

int timers_write(struct dump_job *job)
{
	if (crib_write_timers(job->writer, &job->timers->rec))
		return tool_fail(&job->err, 0, "writing the timers record: %s",
				 crib_writer_error(job->writer)->msg);
	return 0;
}

void timers_free(struct dump_job *job)
{
	if (!job->timers)
		return;
	free(job->timers->posix);
	free(job->timers);
	job->timers = NULL;
}
