// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's scheduling: policy, real-time priority, nice value,
 * SCHED_RESET_ON_FORK, the CPUs it may run on, its timer slack and its I/O
 * priority.  The process record carries the leader's policy, priority,
 * nice value, SCHED_RESET_ON_FORK, CPUs and timer slack, which a restore
 * gives every thread; each thread record its own I/O priority.  What a
 * thread set apart from its leader, and what no record carries
 * (SCHED_DEADLINE), is refused here.  The default timer slack (what PR_SET_TIMERSLACK with 0
 * returns to) is its creator's slack when it was made: spec/state.md says
 * why it is not carried.
 */
#include <sched.h>
#include <stdbool.h>

#include "crib-dump.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE		6
#endif

static int refuse(struct dump_job *job, const struct dump_thread_rec *t, const char *what)
{
	return tool_fail(&job->err, 0, "process %d, thread %d: %s, which a snapshot does not "
			 "carry: that cannot be restored", (int)job->pid, (int)t->tid, what);
}

/* Whether @t schedules as its leader does, which the process record says. */
static bool same_as_leader(const struct dump_thread_attrs *a, const struct dump_thread_attrs *l)
{
	return a->policy == l->policy && a->rt_priority == l->rt_priority && a->nice == l->nice &&
	       a->reset_on_fork == l->reset_on_fork;
}

int sched_check_thread(struct dump_job *job, const struct dump_thread_rec *t)
{
	const struct dump_thread_attrs *a = &t->attrs, *leader = &job->task.attrs;

	if (a->policy == SCHED_DEADLINE)
		return refuse(job, t, "its scheduling policy is SCHED_DEADLINE");
	if (!same_as_leader(a, leader))
		return refuse(job, t, "its scheduling policy, priority, nice value or "
			      "SCHED_RESET_ON_FORK differs from its process's leader's "
			      "(sched_setattr(2) on one thread)");
	if (a->nr_cpus_allowed > 64 || (unsigned int)__builtin_popcountll(a->cpus) != a->nr_cpus_allowed)
		return refuse(job, t, "its CPU affinity names CPUs above 63");
	if (a->cpus != leader->cpus)
		return refuse(job, t, "its CPU affinity differs from its process's leader's "
			      "(sched_setaffinity(2) on one thread)");
	if (a->timer_slack_ns != leader->timer_slack_ns)
		return refuse(job, t, "its timer slack differs from its process's leader's "
			      "(PR_SET_TIMERSLACK on one thread)");
	return 0;
}

void sched_fill_thread(const struct dump_thread_rec *kt, struct crib_thread *t)
{
	t->ioprio = kt->attrs.ioprio;
}
