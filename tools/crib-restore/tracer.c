// SPDX-License-Identifier: GPL-2.0
/*
 * Create the process with its original PID and see the restore through:
 * crib-restore traces the new process from its first instruction, with
 * PTRACE_O_EXITKILL so it dies if crib-restore does.  Every thread traps
 * once it is in place; then the registers, FPU state and signal masks are
 * set by ptrace (the only consistent way to set all of them), the restore
 * area is unmapped by a munmap() the leader runs from inside it, and only
 * then are the threads let go, all of them complete.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/sched.h>

#include "crib-restore.h"
#include "kabi.h"

/* How long the restorer may take before the restore is given up. */
#define RESTORE_TIMEOUT_S	600

struct tracee {
	pid_t tid;
	bool ready;
};

struct trace {
	const struct restore_plan *plan;
	struct udp_refill *refill;
	const struct restore_fault *fault;
	struct restore_area *area;
	struct tracee *threads;
	size_t n_ready;
	pid_t pid;
	struct tool_error *err;
};

static struct rst_thread *area_thread(const struct trace *tr, size_t i)
{
	return (struct rst_thread *)((char *)tr->area->base + tr->area->args->threads_off) + i;
}

static struct tracee *find_tracee(struct trace *tr, pid_t tid)
{
	size_t i;

	for (i = 0; i < tr->plan->threads.n; i++)
		if (tr->threads[i].tid == tid)
			return &tr->threads[i];
	return NULL;
}

static pid_t clone_with_pid(pid_t pid)
{
	struct clone_args ca = {
		.exit_signal = SIGCHLD,
		.set_tid = (uint64_t)(uintptr_t)&pid,
		.set_tid_size = 1,
	};

	return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
}

/* Kill what was created and collect every thread's exit. */
static void kill_all(struct trace *tr)
{
	int status;

	kill(tr->pid, SIGKILL);
	while (waitpid(-1, &status, __WALL) > 0 || errno == EINTR)
		;
}

/* Why the process died before it was complete, from what it left in the area. */
static int report_death(struct trace *tr, int status)
{
	const struct rst_args *a = tr->area->args;
	const struct rst_thread *t;

	if (a->message[0])
		return tool_fail(tr->err, 0, "%s", a->message);
	if (WIFSIGNALED(status))
		return tool_fail(tr->err, 0, "the new process was killed by signal %d while "
				 "%s", WTERMSIG(status), area_step_name(a->step));
	if (a->fault_step && a->fault_step == a->step + 1 && a->error == -ECANCELED)
		return tool_fail(tr->err, 0, "restore failed while %s: injected fault "
				 "(CRIB_RESTORE_FAULT=%s)", area_step_name(a->step),
				 fault_step_name(a->step));
	if (a->error) {
		t = area_thread(tr, a->failed_thread);
		return tool_fail(tr->err, (int)-a->error, "restore failed while %s (thread %d, detail %#llx)",
				 area_step_name(a->step),
				 a->failed_thread < tr->plan->threads.n ? (int)t->tid : 0,
				 (unsigned long long)a->detail);
	}
	return tool_fail(tr->err, 0, "the new process exited (status %d) while %s",
			 WEXITSTATUS(status), area_step_name(a->step));
}

/* A fault in the restorer: where, for the error message. */
static int report_signal(struct trace *tr, pid_t tid, int sig)
{
	struct user_regs_struct regs = { 0 };
	siginfo_t si = { 0 };

	ptrace(PTRACE_GETSIGINFO, tid, 0, &si);
	ptrace(PTRACE_GETREGS, tid, 0, &regs);
	return tool_fail(tr->err, 0, "thread %d of the new process got signal %d (address %p, "
			 "at %#llx, restorer offset %#llx) while %s", (int)tid, sig, si.si_addr,
			 (unsigned long long)regs.rip,
			 (unsigned long long)(regs.rip - (uint64_t)tr->area->base),
			 area_step_name(tr->area->args->step));
}

static int on_stop(struct trace *tr, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct tracee *t;

	if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_STOP)
		return ptrace(PTRACE_CONT, tid, 0, 0) ? -1 : 0;
	t = find_tracee(tr, tid);
	if (sig == SIGTRAP && t && !t->ready &&
	    area_thread(tr, (size_t)(t - tr->threads))->state == RST_THREAD_READY) {
		t->ready = true;
		tr->n_ready++;
		return 0;
	}
	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		return ptrace(PTRACE_CONT, tid, 0, 0) ? -1 : 0;
	return report_signal(tr, tid, sig);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Follow the new process until every thread trapped ready, or it failed. */
static int wait_ready(struct trace *tr)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	int status, ret = 0;
	pid_t w;

	sigaction(SIGALRM, &sa, NULL);
	alarm(RESTORE_TIMEOUT_S);
	while (tr->n_ready < tr->plan->threads.n && !ret) {
		w = waitpid(-1, &status, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				ret = tool_fail(tr->err, 0, "the restorer did not finish in %d s",
						RESTORE_TIMEOUT_S);
			else
				ret = tool_fail(tr->err, errno, "waiting for the new process");
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			ret = report_death(tr, status);
		else if (WIFSTOPPED(status))
			ret = on_stop(tr, w, status);
	}
	alarm(0);
	return ret;
}

static int wait_stop(pid_t tid, int want_sig, struct tool_error *err)
{
	int status;

	if (waitpid(tid, &status, __WALL) != tid)
		return tool_fail(err, errno, "waiting for thread %d", (int)tid);
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != want_sig)
		return tool_fail(err, 0, "thread %d stopped unexpectedly (status %#x)", (int)tid,
				 status);
	return 0;
}

/*
 * The leader unmaps the restore area: pointed at the area's syscall
 * instruction with munmap()'s arguments, it is stopped at the system
 * call's exit, before the instruction after it (gone with the area) runs.
 */
static int unmap_area(struct trace *tr)
{
	struct user_regs_struct regs;
	pid_t pid = tr->pid;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return tool_fail(tr->err, errno, "PTRACE_GETREGS");
	regs.rip = (uint64_t)tr->area->base + RST_SYSCALL_OFFSET;
	regs.rax = SYS_munmap;
	regs.orig_rax = (uint64_t)-1;
	regs.rdi = (uint64_t)tr->area->base;
	regs.rsi = tr->area->len;
	if (ptrace(PTRACE_SETREGS, pid, 0, &regs) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0) || wait_stop(pid, SIGTRAP | 0x80, tr->err) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0) || wait_stop(pid, SIGTRAP | 0x80, tr->err) ||
	    ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return tool_fail(tr->err, errno, "cannot unmap the restore area");
	if (regs.rax)
		return tool_fail(tr->err, (int)-(long)regs.rax, "unmapping the restore area failed");
	return 0;
}

/*
 * A thread stopped inside a system call shows the kernel's restart code;
 * set it up as the kernel would have on its way out: run the call again,
 * or, when its restart state is gone with the old process, fail it with
 * EINTR.
 */
static void resume_syscall(struct user_regs_struct *r)
{
	if ((int64_t)r->orig_rax < 0)
		return;
	switch ((int)r->rax) {
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
		r->rax = r->orig_rax;
		r->rip -= 2;
		break;
	case -ERESTART_RESTARTBLOCK:
		r->rax = (uint64_t)-EINTR;
		break;
	}
}

static void to_user_regs(const struct crib_regs_x86_64 *c, struct user_regs_struct *u)
{
	*u = (struct user_regs_struct) {
		.r15 = c->r15, .r14 = c->r14, .r13 = c->r13, .r12 = c->r12,
		.rbp = c->rbp, .rbx = c->rbx, .r11 = c->r11, .r10 = c->r10,
		.r9 = c->r9, .r8 = c->r8, .rax = c->rax, .rcx = c->rcx,
		.rdx = c->rdx, .rsi = c->rsi, .rdi = c->rdi, .orig_rax = c->orig_rax,
		.rip = c->rip, .cs = c->cs, .eflags = c->eflags, .rsp = c->rsp,
		.ss = c->ss, .fs_base = c->fs_base, .gs_base = c->gs_base,
		.ds = c->ds, .es = c->es, .fs = c->fs, .gs = c->gs,
	};
	resume_syscall(u);
	u->orig_rax = (uint64_t)-1;	/* nothing for the kernel to restart */
}

static int set_thread_regs(struct trace *tr, const struct plan_thread *pt)
{
	struct iovec iov = { .iov_base = pt->xstate, .iov_len = pt->xstate_len };
	struct user_regs_struct regs;
	uint64_t mask = pt->sigmask;

	to_user_regs(&pt->regs, &regs);
	if (ptrace(PTRACE_SETREGS, pt->tid, 0, &regs))
		return tool_fail(tr->err, errno, "cannot set the registers of thread %d",
				 (int)pt->tid);
	if (pt->xstate_len && ptrace(PTRACE_SETREGSET, pt->tid, NT_X86_XSTATE, &iov))
		return tool_fail(tr->err, errno, "cannot set the FPU state of thread %d",
				 (int)pt->tid);
	if (ptrace(PTRACE_SETSIGMASK, pt->tid, sizeof(mask), &mask))
		return tool_fail(tr->err, errno, "cannot set the signal mask of thread %d",
				 (int)pt->tid);
	return 0;
}

static int finish(struct trace *tr)
{
	size_t i;

	if (unmap_area(tr))
		return -1;
	for (i = 0; i < tr->plan->threads.n; i++)
		if (set_thread_regs(tr, &tr->plan->threads.items[i]))
			return -1;
	if (tr->fault->site == FAULT_REGISTERS)
		return tool_fail(tr->err, 0, "injected fault (CRIB_RESTORE_FAULT=registers) once "
				 "the registers were set");
	/* Everything is in place: let them all go. */
	for (i = 0; i < tr->plan->threads.n; i++) {
		if (ptrace(PTRACE_DETACH, tr->threads[i].tid, 0, 0))
			return tool_fail(tr->err, errno, "cannot let thread %d go",
					 (int)tr->threads[i].tid);
		if (tr->fault->site == FAULT_DETACH)
			return tool_fail(tr->err, 0, "injected fault (CRIB_RESTORE_FAULT=detach) "
					 "once thread %d was let go", (int)tr->threads[i].tid);
	}
	return 0;
}

/*
 * The rseq area the new process inherited from crib-restore's libc: the
 * restorer unregisters it before that memory goes.
 */
static int note_rseq(struct trace *tr)
{
	struct __ptrace_rseq_configuration conf = { 0 };
	struct rst_args *a = tr->area->args;
	int status;

	/* Only a stopped tracee answers. */
	if (ptrace(PTRACE_INTERRUPT, tr->pid, 0, 0) ||
	    waitpid(tr->pid, &status, __WALL) != tr->pid || !WIFSTOPPED(status))
		return tool_fail(tr->err, errno, "cannot stop the new process");
	if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, tr->pid, sizeof(conf), &conf) > 0) {
		a->rseq_abi = conf.rseq_abi_pointer;
		a->rseq_len = conf.rseq_abi_size;
		a->rseq_sig = conf.signature;
	}
	if (ptrace(PTRACE_CONT, tr->pid, 0, 0))
		return tool_fail(tr->err, errno, "cannot resume the new process");
	return 0;
}

static int start_child(struct trace *tr, int *sync_fd)
{
	int sync[2];
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD;

	if (pipe(sync))
		return tool_fail(tr->err, errno, "pipe");
	tr->pid = clone_with_pid(tr->pid);
	if (tr->pid == 0) {
		close(sync[1]);
		child_restore(tr->plan, tr->area, tr->refill, sync[0], tr->fault);
	}
	close(sync[0]);
	*sync_fd = sync[1];
	if (tr->pid < 0) {
		close(sync[1]);
		return tool_fail(tr->err, 0, "cannot create process %d: %s",
				 (int)tr->plan->proc.pid,
				 errno == EEXIST ? "the PID is in use" : strerror(errno));
	}
	if (ptrace(PTRACE_SEIZE, tr->pid, 0, opts)) {
		tool_fail(tr->err, errno, "cannot trace the new process");
		close(sync[1]);
		kill_all(tr);
		return -1;
	}
	if (note_rseq(tr)) {
		close(sync[1]);
		kill_all(tr);
		return -1;
	}
	return 0;
}

int restore_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "crib-restore: waiting for %d: %s\n", (int)pid,
				strerror(errno));
			return 1;
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

pid_t restore_process(const struct restore_plan *plan, struct udp_refill *refill,
		      const struct restore_options *opt, struct tool_error *err)
{
	struct restore_area area;
	struct trace tr = { .plan = plan, .refill = refill, .fault = &opt->fault, .area = &area,
			    .err = err };
	int sync_fd = -1, ret = -1;
	size_t i;

	tr.threads = calloc(plan->threads.n, sizeof(*tr.threads));
	if (!tr.threads)
		return tool_fail(err, 0, "out of memory");
	for (i = 0; i < plan->threads.n; i++)
		tr.threads[i].tid = plan->threads.items[i].tid;
	if (area_create(&area, plan, err))
		goto out;
	restore_verbose(opt, "restore area at %p, %zu bytes\n", area.base, area.len);
	if (opt->fault.site != FAULT_NONE)
		restore_verbose(opt, "a fault will be injected at %s\n", opt->fault.name);
	if (opt->fault.site == FAULT_RESTORER)
		area.args->fault_step = opt->fault.step + 1;
	tr.pid = (pid_t)plan->proc.pid;
	if (start_child(&tr, &sync_fd))
		goto out_area;
	/* Go: the child may start now that it is traced. */
	if (write(sync_fd, "g", 1) != 1)
		tool_fail(err, errno, "cannot start the new process");
	close(sync_fd);
	if (tool_failed(err) || wait_ready(&tr) || finish(&tr)) {
		kill_all(&tr);
		goto out_area;
	}
	restore_verbose(opt, "process %d restored with %zu threads\n", (int)tr.pid,
			plan->threads.n);
	ret = tr.pid;
out_area:
	area_destroy(&area);
out:
	free(tr.threads);
	return ret;
}
