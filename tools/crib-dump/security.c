// SPDX-License-Identifier: GPL-2.0
/*
 * What a thread locks itself into besides seccomp (seccomp.c): securebits,
 * speculation controls and syscall user dispatch.  No record carries
 * them, so each is refused when it is not at its default, naming the
 * thread.
 */
#include "crib-dump.h"

static int refuse(struct dump_job *job, const struct dump_thread_rec *t, const char *what,
		  unsigned int value)
{
	return tool_fail(&job->err, 0, "process %d, thread %d: %s (%u), which a snapshot does "
			 "not carry: that cannot be restored", (int)job->pid, (int)t->tid, what,
			 value);
}

int security_check_thread(struct dump_job *job, const struct dump_thread_rec *t)
{
	const struct dump_thread_attrs *a = &t->attrs;

	if (t->creds.securebits)
		return refuse(job, t, "it set securebits (PR_SET_SECUREBITS)", t->creds.securebits);
	if (a->spec_flags)
		return refuse(job, t, "it set speculation controls (PR_SET_SPECULATION_CTRL)",
			      a->spec_flags);
	if (a->syscall_dispatch)
		return refuse(job, t, "it turned on syscall user dispatch "
			      "(PR_SET_SYSCALL_USER_DISPATCH)", a->syscall_dispatch);
	return 0;
}
