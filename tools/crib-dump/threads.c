// SPDX-License-Identifier: GPL-2.0
/*
 * Thread records: the kernel side of each thread (signal mask, alternate
 * stack, tid address, robust list, parent-death signal, and credentials,
 * which the kernel keeps per thread) from the dump_thread CRIB program,
 * checked by sched.c and security.c for what no record carries, its
 * pending signals from signals.c, and its registers from ptrace, which is
 * the only place they are consistent: a stopped thread's user registers
 * are saved on its kernel stack.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_task.skel.h"

/* The format's limit for the XSAVE area (spec: thread.xstate). */
#define XSTATE_MAX	65536

static int read_thread_kernel_state(struct dump_job *job, pid_t tid,
				    struct dump_thread_rec *out)
{
	struct record_list recs = { .kind = DUMP_REC_THREAD, .size = sizeof(*out) };
	struct dump_ctx ctx = { .target = dump_target(job), .pid = tid, .tgid = job->pid };
	int ret;

	ret = program_collect(&job->progs.thread, job->progs.task_records, &ctx, sizeof(ctx),
			      &recs, &job->err);
	if (ret < 0)
		goto out;
	if (ret != DUMP_OK || recs.n != 1) {
		ret = tool_fail(&job->err, 0, "cannot read thread %d (dump_thread result %d)",
				(int)tid, ret);
		goto out;
	}
	memcpy(out, recs.items, sizeof(*out));
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

static void copy_regs(struct crib_regs_x86_64 *r, const struct user_regs_struct *u)
{
	*r = (struct crib_regs_x86_64) {
		.r15 = u->r15, .r14 = u->r14, .r13 = u->r13, .r12 = u->r12,
		.rbp = u->rbp, .rbx = u->rbx, .r11 = u->r11, .r10 = u->r10,
		.r9 = u->r9, .r8 = u->r8, .rax = u->rax, .rcx = u->rcx,
		.rdx = u->rdx, .rsi = u->rsi, .rdi = u->rdi, .orig_rax = u->orig_rax,
		.rip = u->rip, .cs = u->cs, .eflags = u->eflags, .rsp = u->rsp,
		.ss = u->ss, .fs_base = u->fs_base, .gs_base = u->gs_base,
		.ds = u->ds, .es = u->es, .fs = u->fs, .gs = u->gs,
	};
}

/* pages.c clears what the kernel writes into each registered rseq area. */
static int note_rseq_area(struct dump_job *job, uint64_t addr)
{
	uint64_t *area = array_push(&job->rseq_areas);

	if (!area)
		return tool_fail(&job->err, 0, "out of memory");
	*area = addr;
	return 0;
}

/* The thread's rseq registration, which only ptrace reports. */
static int read_rseq(struct dump_job *job, pid_t tid, struct crib_thread *t)
{
	struct __ptrace_rseq_configuration conf = { 0 };

	if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, tid, sizeof(conf), &conf) < 0)
		return tool_fail(&job->err, errno, "cannot read the rseq registration of thread %d",
				 (int)tid);
	t->rseq = conf.rseq_abi_pointer;
	t->rseq_len = conf.rseq_abi_pointer ? conf.rseq_abi_size : 0;
	t->rseq_sig = conf.rseq_abi_pointer ? conf.signature : 0;
	return 0;
}

/*
 * A thread's credentials when they differ from its leader's, which the
 * process record holds: a thread that changed its own with the raw
 * system calls.
 */
static void thread_creds(const struct dump_job *job, const struct dump_creds *c,
			 struct crib_thread *t, uint64_t *groups)
{
	const struct dump_creds *l = &job->task.creds;
	unsigned int i, n = c->ngroups < DUMP_MAX_GROUPS ? c->ngroups : DUMP_MAX_GROUPS;

	/* securebits are in every thread record */
	if (!memcmp(c, l, offsetof(struct dump_creds, securebits)) &&
	    !memcmp(c->groups, l->groups, n * sizeof(c->groups[0])) &&
	    c->cap_eff == l->cap_eff && c->cap_prm == l->cap_prm && c->cap_inh == l->cap_inh &&
	    c->cap_bnd == l->cap_bnd && c->cap_amb == l->cap_amb)
		return;
	for (i = 0; i < n; i++)
		groups[i] = c->groups[i];
	t->own_creds = true;
	t->creds = (struct crib_creds) {
		.uid = c->uid, .gid = c->gid, .euid = c->euid, .egid = c->egid,
		.suid = c->suid, .sgid = c->sgid, .fsuid = c->fsuid, .fsgid = c->fsgid,
		.groups = groups, .n_groups = n,
		.cap_eff = c->cap_eff, .cap_prm = c->cap_prm, .cap_inh = c->cap_inh,
		.cap_bnd = c->cap_bnd, .cap_amb = c->cap_amb,
	};
}

/*
 * Each thread's kernel side, checked before anything is written: what no
 * record carries stops the dump here, naming the thread.
 */
int threads_read(struct dump_job *job)
{
	struct dump_thread_rec *kt;
	pid_t tid;
	size_t i;

	if (job->task.nr_threads != job->freezer.threads.n)
		return tool_fail(&job->err, 0, "process %d has %u threads but %zu were stopped",
				 (int)job->pid, job->task.nr_threads, job->freezer.threads.n);
	for (i = 0; i < job->freezer.threads.n; i++) {
		tid = job->freezer.threads.items[i].tid;
		kt = array_push(&job->threads);
		if (!kt)
			return tool_fail(&job->err, 0, "out of memory");
		if (read_thread_kernel_state(job, tid, kt))
			return -1;
		if (kt->creds.ngroups > DUMP_MAX_GROUPS)
			return tool_fail(&job->err, 0, "thread %d has %u supplementary groups, "
					 "more than the %d supported", (int)tid,
					 kt->creds.ngroups, DUMP_MAX_GROUPS);
		if (sched_check_thread(job, kt) || security_check_thread(job, kt))
			return -1;
	}
	return 0;
}

static int write_thread(struct dump_job *job, const struct dump_thread_rec *kt,
			void *xstate_buf)
{
	pid_t tid = kt->tid;
	struct user_regs_struct regs;
	struct iovec iov = { .iov_base = xstate_buf, .iov_len = XSTATE_MAX };
	char comm[DUMP_COMM_LEN + 1];
	uint64_t groups[DUMP_MAX_GROUPS];
	struct crib_thread t;

	if (ptrace(PTRACE_GETREGS, tid, 0, &regs))
		return tool_fail(&job->err, errno, "cannot read the registers of thread %d",
				 (int)tid);
	if (ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &iov))
		return tool_fail(&job->err, errno, "cannot read the FPU state of thread %d",
				 (int)tid);
	memcpy(comm, kt->comm, DUMP_COMM_LEN);
	comm[DUMP_COMM_LEN] = '\0';

	memset(&t, 0, sizeof(t));
	t.pid = job->pid;
	t.tid = tid;
	t.comm = comm;
	copy_regs(&t.regs_x86_64, &regs);
	t.xstate = (struct crib_blob){ .data = xstate_buf, .len = iov.iov_len };
	t.sigmask = kt->blocked;
	t.pending = signals_thread_pending(job, tid, &t.n_pending);
	t.sigaltstack.sp = kt->sas_ss_sp;
	t.sigaltstack.size = kt->sas_ss_size;
	/* The kernel keeps only SS_AUTODISARM; "disabled" is a zero size. */
	t.sigaltstack.flags = kt->sas_ss_size ? kt->sas_ss_flags : SS_DISABLE;
	t.clear_child_tid = kt->clear_child_tid;
	t.robust_list = kt->robust_list;
	/* The kernel only accepts sizeof(struct robust_list_head), and keeps no length. */
	t.robust_list_len = kt->robust_list ? 24 : 0;
	t.pdeath_signal = (uint64_t)kt->pdeath_signal;
	thread_creds(job, &kt->creds, &t, groups);
	sched_fill_thread(kt, &t);
	security_fill_thread(kt, &t);
	if (read_rseq(job, tid, &t))
		return -1;
	if (t.rseq && note_rseq_area(job, t.rseq))
		return -1;
	if (crib_write_thread(job->writer, &t))
		return tool_fail(&job->err, 0, "writing the record of thread %d: %s", (int)tid,
				 crib_writer_error(job->writer)->msg);
	return 0;
}

int threads_write(struct dump_job *job)
{
	void *xstate_buf;
	size_t i;
	int ret = 0;

	xstate_buf = malloc(XSTATE_MAX);
	if (!xstate_buf)
		return tool_fail(&job->err, 0, "out of memory");
	for (i = 0; i < job->threads.n && !ret; i++)
		ret = write_thread(job, &job->threads.items[i], xstate_buf);
	free(xstate_buf);
	dump_verbose(job, "%zu threads\n", job->threads.n);
	return ret;
}
