// SPDX-License-Identifier: GPL-2.0
/*
 * What a thread locks itself into besides seccomp (seccomp.c): securebits,
 * speculation controls and syscall user dispatch.  Securebits and the
 * speculation controls are carried in the thread record, the controls as
 * the PR_SET_SPECULATION_CTRL values that make them again; what no value
 * makes again, and syscall user dispatch, is refused, naming the thread.
 */
#include <sys/prctl.h>

#include "crib-dump.h"
#include "kabi.h"

static int refuse(struct dump_job *job, const struct dump_thread_rec *t, const char *what,
		  unsigned int value)
{
	return tool_fail(&job->err, 0, "process %d, thread %d: %s (%#x), which a snapshot does "
			 "not carry: that cannot be restored", (int)job->pid, (int)t->tid, what,
			 value);
}

/*
 * The store bypass control as PR_SET_SPECULATION_CTRL sets it: each value
 * leaves one combination of the task's flags; 0 for none, -1 for one no
 * value leaves.
 */
static long store_bypass_ctrl(unsigned int flags)
{
	switch (flags & (PFA_SPEC_SSB_DISABLE | PFA_SPEC_SSB_FORCE_DISABLE |
			 PFA_SPEC_SSB_NOEXEC)) {
	case 0:
		return 0;
	case PFA_SPEC_SSB_DISABLE:
		return PR_SPEC_DISABLE;
	case PFA_SPEC_SSB_DISABLE | PFA_SPEC_SSB_FORCE_DISABLE:
		return PR_SPEC_FORCE_DISABLE;
	case PFA_SPEC_SSB_DISABLE | PFA_SPEC_SSB_NOEXEC:
		return PR_SPEC_DISABLE_NOEXEC;
	}
	return -1;
}

static long indirect_branch_ctrl(unsigned int flags)
{
	switch (flags & (PFA_SPEC_IB_DISABLE | PFA_SPEC_IB_FORCE_DISABLE)) {
	case 0:
		return 0;
	case PFA_SPEC_IB_DISABLE:
		return PR_SPEC_DISABLE;
	case PFA_SPEC_IB_DISABLE | PFA_SPEC_IB_FORCE_DISABLE:
		return PR_SPEC_FORCE_DISABLE;
	}
	return -1;
}

int security_check_thread(struct dump_job *job, const struct dump_thread_rec *t)
{
	const struct dump_thread_attrs *a = &t->attrs;

	if (store_bypass_ctrl(a->spec_flags) < 0)
		return refuse(job, t, "its speculative store bypass control is in a state "
			      "PR_SET_SPECULATION_CTRL does not make", a->spec_flags);
	if (indirect_branch_ctrl(a->spec_flags) < 0)
		return refuse(job, t, "its indirect branch speculation control is in a state "
			      "PR_SET_SPECULATION_CTRL does not make", a->spec_flags);
	if (a->syscall_dispatch)
		return refuse(job, t, "it turned on syscall user dispatch "
			      "(PR_SET_SYSCALL_USER_DISPATCH)", a->syscall_dispatch);
	return 0;
}

void security_fill_thread(const struct dump_thread_rec *kt, struct crib_thread *t)
{
	t->securebits = kt->creds.securebits;
	t->spec_store_bypass = (uint64_t)store_bypass_ctrl(kt->attrs.spec_flags);
	t->spec_indirect_branch = (uint64_t)indirect_branch_ctrl(kt->attrs.spec_flags);
}
