// SPDX-License-Identifier: GPL-2.0
/*
 * Make the tree and see the restore through.  crib-restore makes every
 * open file description of the tree (files.c), a restore area for each
 * process, and creates the root with its original PID, tracing it from
 * its first instruction with PTRACE_O_EXITKILL, so that the tree dies if
 * crib-restore does, and PTRACE_O_TRACEFORK, so that every process the
 * root forks, and they fork, is traced from birth.  Every thread traps
 * once it is in place; then the pidfds are made, by the processes that
 * hold them, now that what they refer to exists (pidfd.c), the
 * registers, FPU state and signal masks are set by ptrace (the only
 * consistent way to set all of them), each restore area is unmapped by a munmap() its process's leader runs from inside it,
 * the TCP connections are let go (network lock, repair mode), and only
 * then are the threads let go, all of them complete, a process stopped by
 * job control stopped again.
 *
 * crib-restore is a child subreaper meanwhile: a restore that fails kills
 * every process it made and collects them all, orphans included, so that
 * every PID is free again.  One that fails after the network lock was
 * released locks the connections again and puts them back in repair mode
 * first, so that their peers see nothing.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>


#include "area.h"
#include "child.h"
#include "clocks.h"
#include "crib-restore.h"
#include "direct.h"
#include "fault.h"
#include "files.h"
#include "ghost.h"
#include "kabi.h"
#include "network.h"
#include "pidfd.h"
#include "plan.h"
#include "seccomp.h"
#include "shadow.h"
#include "sockets.h"
#include "tracer.h"
#include "tree.h"
#include "udp_queue.h"

/* How long the restorer may take before the restore is given up. */
#define RESTORE_TIMEOUT_S	600

struct tracee {
	pid_t tid;
	size_t proc;		/* index in tree->procs */
	size_t thread;		/* index in its plan's threads */
	bool ready;
};

struct trace {
	const struct restore_tree *tree;
	const struct restore_options *opt;
	struct restore_ctx ctx;
	struct restore_area *areas;	/* by process; zombies have none */
	ARRAY(struct tracee) threads;	/* of every process but the zombies */
	size_t n_ready;
	int *sock_fds;			/* crib-restore's copies of the tree's sockets */
	struct direct_copiers *copiers;	/* direct.c */
	bool resumed;			/* connections left repair mode */
	bool released;			/* the network lock was released */
	struct tool_error *err;
};

static struct rst_thread *area_thread(const struct trace *tr, size_t proc, size_t i)
{
	const struct restore_area *a = &tr->areas[proc];

	return (struct rst_thread *)((char *)a->base + a->args->threads_off) + i;
}

static struct tracee *find_tracee(struct trace *tr, pid_t tid)
{
	size_t i;

	for (i = 0; i < tr->threads.n; i++)
		if (tr->threads.items[i].tid == tid)
			return &tr->threads.items[i];
	return NULL;
}

/* The process or helper whose PID @pid is, and which of the two. */
static const struct restore_plan *proc_of(const struct trace *tr, pid_t pid)
{
	return plan_find(tr->tree, (uint64_t)pid);
}

static const struct plan_helper *helper_of(const struct trace *tr, pid_t pid, size_t *slot)
{
	for (size_t i = 0; i < tr->tree->helpers.n; i++) {
		if (tr->tree->helpers.items[i].pid == pid) {
			*slot = tr->tree->procs.n + i;
			return &tr->tree->helpers.items[i];
		}
	}
	return NULL;
}

/*
 * Kill what was created and collect every exit: crib-restore, a
 * subreaper, is given the orphans of the processes it kills.
 */
static void kill_all(struct trace *tr)
{
	const struct restore_tree *tree = tr->tree;
	int status;
	size_t i;

	for (i = 0; i < tree->procs.n; i++)
		kill((pid_t)tree->procs.items[i]->proc.pid, SIGKILL);
	for (i = 0; i < tree->helpers.n; i++)
		kill(tree->helpers.items[i].pid, SIGKILL);
	while (waitpid(-1, &status, __WALL) > 0 || errno == EINTR)
		;
}

/*
 * The step that failed, and its error: the failing thread's own record
 * when a thread failed, since another thread may have moved the process's
 * step on before exit_group() took it.
 */
static __u32 failed_step(const struct trace *tr, size_t p, __s64 *error)
{
	const struct rst_args *a = tr->areas[p].args;
	const struct rst_thread *t;

	*error = a->error;
	if (a->error && a->failed_thread < tr->tree->procs.items[p]->threads.n) {
		t = area_thread(tr, p, a->failed_thread);
		if (t->state == RST_THREAD_FAILED) {
			*error = t->error;
			return t->step;
		}
	}
	return a->step;
}

/* Why process @p died before it was complete, from what it left in its area. */
static int report_death(struct trace *tr, size_t p, int status)
{
	const struct restore_plan *plan = tr->tree->procs.items[p];
	const struct rst_args *a = tr->areas[p].args;
	const struct rst_thread *t;
	char who[48] = "";
	__s64 error;
	__u32 step = failed_step(tr, p, &error);

	if (tr->tree->procs.n > 1)
		snprintf(who, sizeof(who), "process %llu: ", (unsigned long long)plan->proc.pid);
	if (a->message[0])
		return tool_fail(tr->err, 0, "%s", a->message);
	if (WIFSIGNALED(status))
		return tool_fail(tr->err, 0, "%sthe new process was killed by signal %d while "
				 "%s", who, WTERMSIG(status), area_step_name(a->step));
	if (a->fault_step && a->fault_step == step + 1 && error == -ECANCELED)
		return tool_fail(tr->err, 0, "%srestore failed while %s: injected fault "
				 "(CRIB_RESTORE_FAULT=%s)", who, area_step_name(step),
				 fault_step_name(step));
	if (error) {
		t = area_thread(tr, p, a->failed_thread);
		return tool_fail(tr->err, (int)-error, "%srestore failed while %s (thread %d, "
				 "detail %#llx)", who, area_step_name(step),
				 a->failed_thread < plan->threads.n ? (int)t->tid : 0,
				 (unsigned long long)a->detail);
	}
	return tool_fail(tr->err, 0, "%sthe new process exited (status %d) while %s", who,
			 WEXITSTATUS(status), area_step_name(a->step));
}

/*
 * An exit: expected of a zombie of the snapshot and of a group helper,
 * which leave a message only when they fail; a failure for any other.
 */
static int on_exit_of(struct trace *tr, pid_t pid, int status)
{
	const struct restore_plan *plan = proc_of(tr, pid);
	const struct tracee *t = find_tracee(tr, pid);
	const char *msg;
	size_t slot;

	if (plan && plan->proc.zombie) {
		msg = tree_ctl_message(tr->ctx.ctl, plan->index);
		return msg[0] ? tool_fail(tr->err, 0, "%s", msg) : 0;
	}
	if (!t && helper_of(tr, pid, &slot)) {
		msg = tree_ctl_message(tr->ctx.ctl, slot);
		if (msg[0])
			return tool_fail(tr->err, 0, "%s", msg);
		return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 :
			tool_fail(tr->err, 0, "the helper of group %d died (status %#x)", (int)pid,
				  status);
	}
	if (t)
		return report_death(tr, t->proc, status);
	return tool_fail(tr->err, 0, "an unknown process %d of the tree exited (status %#x)",
			 (int)pid, status);
}

/* A fault in a restorer: where, for the error message. */
static int report_signal(struct trace *tr, pid_t tid, int sig)
{
	const struct tracee *t = find_tracee(tr, tid);
	struct user_regs_struct regs = { 0 };
	siginfo_t si = { 0 };
	uint64_t base = 0;
	uint32_t step = 0;

	if (t) {
		base = (uint64_t)tr->areas[t->proc].base;
		step = tr->areas[t->proc].args->step;
	}
	ptrace(PTRACE_GETSIGINFO, tid, 0, &si);
	ptrace(PTRACE_GETREGS, tid, 0, &regs);
	return tool_fail(tr->err, 0, "thread %d of the new process got signal %d (address %p, "
			 "at %#llx, restorer offset %#llx) while %s", (int)tid, sig, si.si_addr,
			 (unsigned long long)regs.rip, (unsigned long long)(regs.rip - base),
			 area_step_name(step));
}

/*
 * Let stopped thread @tid go on, with @sig.  One that is gone meanwhile
 * (killed by its process's exit_group(), a failure) is no error here: its
 * end comes as an exit, and the process's own tells why.
 */
static int cont(struct trace *tr, pid_t tid, int sig)
{
	if (!ptrace(PTRACE_CONT, tid, 0, sig) || errno == ESRCH)
		return 0;
	return tool_fail(tr->err, errno, "cannot let thread %d of the new process go on",
			 (int)tid);
}

/* A restorer waits for its direct pages (restorer.h): copy them in, let it go on. */
static int fill_direct(struct trace *tr, const struct tracee *t)
{
	struct rst_args *args = tr->areas[t->proc].args;
	bool copy_fails = tr->ctx.fault->site == FAULT_COPY && t->tid == tr->ctx.fault_pid;

	if (direct_fill(tr->copiers, tr->tree->procs.items[t->proc], t->tid, args, copy_fails,
			tr->err))
		return -1;
	args->direct_state = RST_DIRECT_DONE;
	return cont(tr, t->tid, 0);
}

static int on_stop(struct trace *tr, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	const struct restore_plan *plan;
	struct tracee *t;

	/* forks, clones, a new process's first stop, an interrupt: go on */
	if (event)
		return cont(tr, tid, 0);
	t = find_tracee(tr, tid);
	if (sig == SIGTRAP && t && !t->thread &&
	    tr->areas[t->proc].args->direct_state == RST_DIRECT_WAITING)
		return fill_direct(tr, t);
	if (sig == SIGTRAP && t && !t->ready &&
	    area_thread(tr, t->proc, t->thread)->state == RST_THREAD_READY) {
		t->ready = true;
		tr->n_ready++;
		return 0;
	}
	/* A zombie of the snapshot dies of its own signal, as it did. */
	plan = proc_of(tr, tid);
	if (plan && plan->proc.zombie)
		return cont(tr, tid, sig);
	/*
	 * The end of a zombie or a helper tells its parent: the snapshot says
	 * what the process had pending, this is not of it.
	 */
	if (sig == SIGCHLD || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU)
		return cont(tr, tid, 0);
	return report_signal(tr, tid, sig);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Follow the tree until every thread trapped ready, or it failed. */
static int wait_ready(struct trace *tr)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	int status, ret = 0;
	pid_t w;

	sigaction(SIGALRM, &sa, NULL);
	alarm(RESTORE_TIMEOUT_S);
	while (tr->n_ready < tr->threads.n && !ret) {
		w = waitpid(-1, &status, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				ret = tool_fail(tr->err, 0, "the restorers did not finish in %d s",
						RESTORE_TIMEOUT_S);
			else
				ret = tool_fail(tr->err, errno, "waiting for the new processes");
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			ret = on_exit_of(tr, w, status);
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
 * Thread @tid of process @p runs system call @nr from its restore area's
 * syscall instruction, stopped at its entry and at its exit so that the
 * instruction after it never runs; its result in @ret.  The thread's
 * registers are set afterwards (set_thread_regs()).
 */
static int inject_syscall(struct trace *tr, size_t p, pid_t tid, long nr, uint64_t a0,
			  uint64_t a1, uint64_t a2, uint64_t a3, long *ret)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, 0, &regs))
		return tool_fail(tr->err, errno, "PTRACE_GETREGS");
	regs.rip = (uint64_t)tr->areas[p].base + RST_SYSCALL_OFFSET;
	regs.rax = (uint64_t)nr;
	regs.orig_rax = (uint64_t)-1;
	regs.rdi = a0;
	regs.rsi = a1;
	regs.rdx = a2;
	regs.r10 = a3;
	if (ptrace(PTRACE_SETREGS, tid, 0, &regs) ||
	    ptrace(PTRACE_SYSCALL, tid, 0, 0) || wait_stop(tid, SIGTRAP | 0x80, tr->err) ||
	    ptrace(PTRACE_SYSCALL, tid, 0, 0) || wait_stop(tid, SIGTRAP | 0x80, tr->err) ||
	    ptrace(PTRACE_GETREGS, tid, 0, &regs))
		return tool_fail(tr->err, errno, "cannot run system call %ld in thread %d", nr,
				 (int)tid);
	*ret = (long)regs.rax;
	return 0;
}

/* pidfd.c's system calls, run by process @p's leader. */
static int run_in_leader(void *ctx, size_t p, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
			 uint64_t a3, long *ret)
{
	struct trace *tr = ctx;

	return inject_syscall(tr, p, (pid_t)tr->tree->procs.items[p]->proc.pid, nr, a0, a1, a2,
			      a3, ret);
}

/*
 * The leader unmaps its restore area, from inside it: stopped at the
 * system call's exit, before the instruction after it (gone with the
 * area) runs.
 */
static int unmap_area(struct trace *tr, size_t p)
{
	const struct restore_area *area = &tr->areas[p];
	pid_t pid = (pid_t)tr->tree->procs.items[p]->proc.pid;
	long ret;

	if (inject_syscall(tr, p, pid, SYS_munmap, (uint64_t)area->base, area->len, 0, 0, &ret))
		return -1;
	if (ret)
		return tool_fail(tr->err, (int)-ret, "unmapping the restore area failed");
	return 0;
}

/*
 * SIGTRAP's handler and pending SIGTRAPs, which the restorers leave out:
 * the breakpoint each ends on raises a SIGTRAP of its own, which, being
 * blocked, resets the handler and unblocks it, and merges with one the
 * thread already has pending.  They are set now by the threads
 * themselves, every signal blocked (each thread's own mask is set after),
 * from the restore area, where the restorer read them.
 */
static int trap_signals(struct trace *tr, size_t p)
{
	const struct restore_area *area = &tr->areas[p];
	const struct rst_args *a = area->args;
	const struct rst_sigaction *sa = (void *)((char *)area->base + a->actions_off);
	const struct rst_siginfo *si = (void *)((char *)area->base + a->shared_off);
	uint64_t all = ~0ULL;
	const struct rst_thread *t;
	long ret = 0;
	__u64 i, j;

	for (i = 0; i < a->n_threads; i++) {
		t = area_thread(tr, p, i);
		if (ptrace(PTRACE_SETSIGMASK, t->tid, sizeof(all), &all))
			return tool_fail(tr->err, errno, "cannot block the signals of thread %d",
					 (int)t->tid);
	}
	for (i = 0; i < a->n_actions && !ret; i++)
		if (sa[i].signo == SIGTRAP &&
		    inject_syscall(tr, p, a->tgid, SYS_rt_sigaction, SIGTRAP,
				   (uint64_t)(uintptr_t)&sa[i], 0, sizeof(all), &ret))
			return -1;
	for (i = 0; i < a->n_shared && !ret; i++)
		if (si[i].signo == SIGTRAP &&
		    inject_syscall(tr, p, a->tgid, SYS_rt_sigqueueinfo, (uint64_t)a->tgid,
				   SIGTRAP, (uint64_t)(uintptr_t)si[i].info, 0, &ret))
			return -1;
	for (i = 0; i < a->n_threads && !ret; i++) {
		t = area_thread(tr, p, i);
		si = (void *)((char *)area->base + t->pending_off);
		for (j = 0; j < t->n_pending && !ret; j++)
			if (si[j].signo == SIGTRAP &&
			    inject_syscall(tr, p, t->tid, SYS_rt_tgsigqueueinfo,
					   (uint64_t)a->tgid, (uint64_t)t->tid, SIGTRAP,
					   (uint64_t)(uintptr_t)si[j].info, &ret))
				return -1;
	}
	if (ret)
		return tool_fail(tr->err, (int)-ret, "process %d: cannot set SIGTRAP's handler "
				 "or queue it", (int)a->tgid);
	return 0;
}

/*
 * A thread stopped inside a system call shows the kernel's restart code;
 * set it up as the kernel would have on its way out: run the call again,
 * or, when its restart state is gone with the old process, fail it with
 * EINTR.  Then there is nothing left for the kernel to restart.  A call
 * that returned keeps its number in orig_rax, as a dump shows it: with
 * no restart code in rax the kernel does nothing with it.
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
		r->orig_rax = (uint64_t)-1;
		break;
	case -ERESTART_RESTARTBLOCK:
		r->rax = (uint64_t)-EINTR;
		r->orig_rax = (uint64_t)-1;
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

/* The signal that stops @plan again: its own, unless it has a handler for it now. */
static int stop_signal(const struct restore_plan *plan)
{
	int sig = (int)plan->proc.stop_signal;
	size_t i;

	for (i = 0; i < plan->n_actions; i++)
		if ((int)plan->actions[i].signo == sig && plan->actions[i].handler)
			return SIGSTOP;
	return sig;
}

static int fault(struct trace *tr, enum fault_site site, const char *once)
{
	if (tr->ctx.fault->site != site)
		return 0;
	return tool_fail(tr->err, 0, "injected fault (CRIB_RESTORE_FAULT=%s) once %s",
			 tr->ctx.fault->name, once);
}

/* The pidfds, now that every process and thread they may refer to exists. */
static int make_pidfds(struct trace *tr)
{
	if (tr->tree->pidfds.n && pidfd_make(tr->tree, run_in_leader, tr, tr->err))
		return -1;
	return fault(tr, FAULT_PIDFDS, "the pidfds were made");
}

/* Every process in place: registers set, areas gone. */
static int set_registers(struct trace *tr)
{
	const struct restore_plan *plan;
	size_t p, i;

	for (p = 0; p < tr->tree->procs.n; p++) {
		plan = tr->tree->procs.items[p];
		if (plan->proc.zombie)
			continue;
		if (trap_signals(tr, p) || unmap_area(tr, p))
			return -1;
		for (i = 0; i < plan->threads.n; i++)
			if (set_thread_regs(tr, &plan->threads.items[i]))
				return -1;
	}
	if (fault(tr, FAULT_REGISTERS, "the registers were set"))
		return -1;
	/* Last, so that every mapping a seal would now refuse was made. */
	if (ghosts_finish(tr->tree, tr->err))
		return -1;
	return fault(tr, FAULT_SEALS, "the memfds were sealed");
}

/*
 * The TCP connections out of repair mode while the lock still holds them,
 * so that nothing their peers send is acknowledged before the last step
 * that can fail is behind; then out of the lock, and only then is their
 * unsent data (and a FIN) written again, so that it goes out at once
 * rather than when a retransmission timer, backed off while the lock
 * held, fires.  Should one fail, restore_tree() puts them back, but for
 * those that took in data once released (network_hold_again()).
 */
static int let_connections_go(struct trace *tr)
{
	tr->resumed = true;
	if (sockets_leave_repair(tr->tree, tr->sock_fds, tr->err) ||
	    fault(tr, FAULT_RESUME, "the connections left repair mode"))
		return -1;
	tr->released = true;
	if (network_release(tr->tree, tr->err) ||
	    fault(tr, FAULT_UNLOCK, "the network lock was released"))
		return -1;
	return sockets_resume(tr->tree, tr->sock_fds, tr->err);
}

/*
 * Let every thread go.  A process that was stopped by job control gets
 * its stop signal while all its threads are still held, so none of them
 * runs an instruction before the stop.
 */
static int let_go(struct trace *tr)
{
	const struct restore_plan *plan;
	size_t p, i;

	for (p = 0; p < tr->tree->procs.n; p++) {
		plan = tr->tree->procs.items[p];
		if (!plan->proc.zombie && plan->proc.stop_signal &&
		    kill((pid_t)plan->proc.pid, stop_signal(plan)))
			return tool_fail(tr->err, errno, "cannot stop process %llu again",
					 (unsigned long long)plan->proc.pid);
	}
	for (i = 0; i < tr->threads.n; i++) {
		if (ptrace(PTRACE_DETACH, tr->threads.items[i].tid, 0, 0))
			return tool_fail(tr->err, errno, "cannot let thread %d go",
					 (int)tr->threads.items[i].tid);
		if (!i && fault(tr, FAULT_DETACH, "the first thread was let go"))
			return -1;
	}
	return 0;
}

/*
 * The rseq area the root inherited from crib-restore's libc, and every
 * process from it: each restorer unregisters it before that memory goes.
 */
static int note_rseq(struct trace *tr, pid_t root)
{
	struct __ptrace_rseq_configuration conf = { 0 };
	struct rst_args *a;
	int status;
	size_t p;

	/* Only a stopped tracee answers. */
	if (ptrace(PTRACE_INTERRUPT, root, 0, 0) ||
	    waitpid(root, &status, __WALL) != root || !WIFSTOPPED(status))
		return tool_fail(tr->err, errno, "cannot stop the new process");
	if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, root, sizeof(conf), &conf) > 0) {
		for (p = 0; p < tr->tree->procs.n; p++) {
			a = tr->areas[p].args;
			if (!a)
				continue;
			a->rseq_abi = conf.rseq_abi_pointer;
			a->rseq_len = conf.rseq_abi_size;
			a->rseq_sig = conf.signature;
		}
	}
	if (ptrace(PTRACE_CONT, root, 0, 0))
		return tool_fail(tr->err, errno, "cannot resume the new process");
	return 0;
}

static int start_root(struct trace *tr)
{
	pid_t want = (pid_t)plan_root(tr->tree)->proc.pid, pid;
	long opts = PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL |
		    PTRACE_O_TRACESYSGOOD;
	int go[2];

	/* Filters the restorer installs bite only once the tree is let go. */
	if (seccomp_in_tree(tr->tree))
		opts |= PTRACE_O_SUSPEND_SECCOMP;
	if (pipe(go))
		return tool_fail(tr->err, errno, "pipe");
	pid = fork_with_pid(want);
	if (pid == 0) {
		close(go[1]);
		tr->ctx.go_fd = go[0];
		child_restore(&tr->ctx, 0);
	}
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		return tool_fail(tr->err, 0, "cannot create process %d: %s", (int)want,
				 errno == EEXIST ? "the PID is in use" : strerror(errno));
	}
	for (size_t i = 0; i < tr->tree->procs.n; i++)
		shadow_let_go(tr->tree->procs.items[i]);
	if (ptrace(PTRACE_SEIZE, pid, 0, opts)) {
		tool_fail(tr->err, errno, "cannot trace the new process");
	} else if (!note_rseq(tr, pid)) {
		/* Go: the root may start now that it is traced. */
		if (write(go[1], "g", 1) != 1)
			tool_fail(tr->err, errno, "cannot start the new process");
	}
	close(go[1]);
	return tool_failed(tr->err) ? -1 : 0;
}

/* A restore area for every process but the zombies, and the threads to follow. */
static int prepare(struct trace *tr)
{
	const struct restore_tree *tree = tr->tree;
	const struct restore_fault *f = tr->ctx.fault;
	const struct restore_plan *plan;
	struct tracee *t;
	size_t p, i;

	tr->areas = calloc(tree->procs.n, sizeof(*tr->areas));
	tr->sock_fds = calloc(tree->sockets.n + 1, sizeof(int));
	if (!tr->areas || !tr->sock_fds)
		return tool_fail(tr->err, 0, "out of memory");
	tr->ctx.areas = tr->areas;
	for (p = 0; p < tree->procs.n; p++) {
		plan = tree->procs.items[p];
		if (plan->proc.zombie)
			continue;
		if (area_create(&tr->areas[p], plan, tr->err))
			return -1;
		restore_verbose(tr->opt, "process %llu: restore area at %p, %zu bytes\n",
				(unsigned long long)plan->proc.pid, tr->areas[p].base,
				tr->areas[p].len);
		if (f->site == FAULT_RESTORER && (pid_t)plan->proc.pid == tr->ctx.fault_pid)
			tr->areas[p].args->fault_step = f->step + 1;
		for (i = 0; i < plan->threads.n; i++) {
			t = array_push(&tr->threads);
			if (!t)
				return tool_fail(tr->err, 0, "out of memory");
			*t = (struct tracee){ .tid = plan->threads.items[i].tid, .proc = p,
					      .thread = i };
		}
	}
	for (i = 0; i < tree->sockets.n; i++)
		tr->sock_fds[i] = files_socket_fd(tree, tr->ctx.park_base, i);
	return 0;
}

static void cleanup(struct trace *tr)
{
	const struct restore_tree *tree = tr->tree;
	size_t p;

	if (tr->ctx.park_base > 0 && tree->descs.n)
		close_range((unsigned int)tr->ctx.park_base,
			    (unsigned int)(tr->ctx.park_base + (int)tree->descs.n - 1), 0);
	direct_copiers_stop(tr->copiers);
	for (p = 0; tr->areas && p < tree->procs.n; p++)
		area_destroy(&tr->areas[p]);
	free(tr->areas);
	free(tr->sock_fds);
	array_free(&tr->threads);
	tree_ctl_free(tr->ctx.ctl, tree);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

pid_t restore_tree(const struct restore_tree *tree, struct udp_refill *refill,
		   const struct restore_options *opt, struct tool_error *err)
{
	struct trace tr = { .tree = tree, .opt = opt, .err = err };
	pid_t root = (pid_t)plan_root(tree)->proc.pid;
	int ret = -1;

	tr.ctx.tree = tree;
	tr.ctx.fault = &opt->fault;
	tr.ctx.fault_pid = opt->fault.pid ? opt->fault.pid : root;
	tr.ctx.park_base = -1;
	if (opt->fault.site != FAULT_NONE)
		restore_verbose(opt, "a fault will be injected at %s\n", opt->fault.name);
	/* Orphans of what a failure kills come to crib-restore, which collects them. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		tool_fail(err, errno, "cannot become a child subreaper");
		goto out;
	}
	tr.ctx.ctl = tree_ctl_new(tree, err);
	if (!tr.ctx.ctl)
		goto out;
	tr.ctx.park_base = files_park_base(tree);
	if (ghosts_make(tree, err) || fault(&tr, FAULT_GHOSTS, "the unlinked files were made") ||
	    files_make(tree, refill, &opt->fault, tr.ctx.park_base, err) ||
	    fault(&tr, FAULT_DESCRIPTIONS, "every open file description was made") ||
	    prepare(&tr) || clocks_prepare(tree, opt, err))
		goto out;
	restore_verbose(opt, "%zu open file descriptions made, parked from %d\n",
			tree->descs.n, tr.ctx.park_base);
	tr.copiers = direct_copiers_start(tree);
	if (start_root(&tr)) {
		kill_all(&tr);
		goto out;
	}
	if (wait_ready(&tr) || make_pidfds(&tr) || set_registers(&tr) ||
	    files_set_owners(tree, tr.ctx.park_base, err) || let_connections_go(&tr) ||
	    let_go(&tr)) {
		if (tr.resumed)
			network_hold_again(tree, tr.sock_fds, tr.released, err);
		kill_all(&tr);
		goto out;
	}
	restore_verbose(opt, "%zu processes restored, from %d\n", tree->procs.n, (int)root);
	ret = root;
out:
	cleanup(&tr);
	return ret;
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

