// SPDX-License-Identifier: GPL-2.0
/*
 * The restorer: runs inside the new process, from the restore area, after
 * crib-restore's own code and libraries are gone.  It unmaps everything
 * but the area, maps the snapshot's VMAs, fills them from the page store,
 * sets the mm layout, signal handlers, timers and limits, starts the other
 * threads with their original TIDs, and has every thread put its own
 * per-thread state back (TID address, robust list, alternate stack, name,
 * private pending signals, credentials) before it traps into crib-restore,
 * which is tracing it and sets the registers.
 *
 * Built freestanding and position independent, linked into a flat blob
 * (restorer.lds): no libc, no absolute addresses, no writable globals.
 * All signals stay blocked from the first instruction: handlers point into
 * memory that is not there yet.
 */
#include <asm/prctl.h>
#include <asm/unistd.h>
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/ioctl.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>

#include "restorer.h"
#include "restorer_mem.h"

#define SIG_SETMASK		2
#define SIGSET_SIZE		8
#define SIGTRAP			5
#define RSEQ_FLAG_UNREGISTER	1
#define IOPRIO_WHO_PROCESS	1	/* with 0: the calling thread */
#define CAP_SETPCAP_BIT		(1ULL << CAP_SETPCAP)

typedef unsigned long size_t;
#define NULL ((void *)0)

/* ---- the restorer itself: system calls, entry, failure, steps ---- */

static inline long sys6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 asm("r10") = a4;
	register long r8 asm("r8") = a5;
	register long r9 asm("r9") = a6;
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
		     : "rcx", "r11", "memory");
	return ret;
}

#define sys0(nr)			sys6(nr, 0, 0, 0, 0, 0, 0)
#define sys1(nr, a)			sys6(nr, (long)(a), 0, 0, 0, 0, 0)
#define sys2(nr, a, b)			sys6(nr, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(nr, a, b, c)		sys6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(nr, a, b, c, d)		sys6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(nr, a, b, c, d, e)		\
	sys6(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

/*
 * The blob starts with a jump to rst_main() and, at RST_SYSCALL_OFFSET, the
 * one system call crib-restore runs in the restored process before it lets
 * it go: munmap() of this area, stopped at its exit so the ud2 after it
 * never runs.
 */
asm(".pushsection .text.entry, \"ax\"\n"
    ".globl rst_entry\n"
    ".hidden rst_entry\n"
    "rst_entry:\n\t"
    "jmp rst_main\n\t"
    ".balign 8\n"
    "rst_syscall_insn:\n\t"
    "syscall\n\t"
    "ud2\n"
    ".popsection");

static void *at(const struct rst_args *a, __u64 off)
{
	return (void *)(a->area_start + off);
}

static __attribute__((noreturn)) void fail(struct rst_args *a, struct rst_thread *t,
					   __u32 step, long err, __u64 detail)
{
	struct rst_thread *threads = at(a, a->threads_off);

	if (t) {
		t->step = step;
		t->error = err;
		t->state = RST_THREAD_FAILED;
		a->failed_thread = (__u32)(t - threads);
	}
	a->step = step;
	a->error = err;
	a->detail = detail;
	for (;;)
		sys1(__NR_exit_group, 1);
}

/* ECANCELED: the error of a fault injected for testing. */
#define RST_ECANCELED	125

/*
 * Record that @t (NULL: the process) enters @step; a fault injected there
 * (CRIB_RESTORE_FAULT, a testing aid) fails it at once.
 */
static void enter(struct rst_args *a, struct rst_thread *t, __u32 step)
{
	if (t)
		t->step = step;
	else
		a->step = step;
	if (a->fault_step == step + 1)
		fail(a, t, step, -RST_ECANCELED, 0);
}

/* ---- memory: the address space, its contents, its layout (mm.c, pages.c) ---- */

/* Unmap [start, end) unless it is empty. */
static void unmap_range(struct rst_args *a, __u64 start, __u64 end)
{
	long ret;

	if (start >= end)
		return;
	ret = sys2(__NR_munmap, start, end - start);
	if (ret)
		fail(a, NULL, RST_STEP_UNMAP, ret, start);
}

/* Everything goes but the area and the shadows, which lie apart. */
static void unmap_all_but_area(struct rst_args *a)
{
	__u64 lo[2] = { a->area_start, a->shadows_start };
	__u64 hi[2] = { a->area_start + a->area_len, a->shadows_start + a->shadows_len };
	int first = lo[0] < lo[1] ? 0 : 1;

	if (!a->shadows_len) {
		unmap_range(a, 0, lo[0]);
		unmap_range(a, hi[0], a->task_size);
		return;
	}
	unmap_range(a, 0, lo[first]);
	unmap_range(a, hi[first], lo[!first]);
	unmap_range(a, hi[!first], a->task_size);
}

/*
 * Map every VMA: a shadow is moved into place with its pages, no copy;
 * anything else is mapped afresh.  What is left of the shadows' room
 * goes after.
 */
static void map_vmas(struct rst_args *a)
{
	struct rst_vma *v = at(a, a->vmas_off);
	__u64 i;
	long ret;

	for (i = 0; i < a->n_vmas; i++, v++) {
		if (v->shadow)
			ret = sys5(__NR_mremap, v->shadow, v->end - v->start, v->end - v->start,
				   MREMAP_MAYMOVE | MREMAP_FIXED, v->start);
		else
			ret = sys6(__NR_mmap, v->start, v->end - v->start, v->map_prot,
				   v->flags | MAP_FIXED, v->fd, v->offset);
		if (ret != (long)v->start)
			fail(a, NULL, RST_STEP_MAP, ret < 0 ? ret : -14, v->start);
	}
	if (a->shadows_len) {
		ret = sys2(__NR_munmap, a->shadows_start, a->shadows_len);
		if (ret)
			fail(a, NULL, RST_STEP_MAP, ret, a->shadows_start);
	}
}

/* A userfaultfd with every direct VMA registered on it; -errno when none. */
static long open_direct_uffd(struct rst_args *a)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_SIGBUS };
	struct uffdio_register reg;
	struct rst_vma *v = at(a, a->vmas_off);
	long uffd, ret;
	__u64 i;

	/* The pages are copied in by ioctl; a fault on one is a bug: SIGBUS. */
	uffd = sys1(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd == -22)	/* EINVAL: a kernel before UFFD_USER_MODE_ONLY */
		uffd = sys1(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return uffd;
	ret = sys3(__NR_ioctl, uffd, UFFDIO_API, &api);
	for (i = 0; !ret && i < a->n_vmas; i++) {
		if (!v[i].direct)
			continue;
		reg = (struct uffdio_register){
			.range = { v[i].start, v[i].end - v[i].start },
			.mode = UFFDIO_REGISTER_MODE_MISSING,
		};
		ret = sys3(__NR_ioctl, uffd, UFFDIO_REGISTER, &reg);
	}
	if (ret) {
		sys1(__NR_close, uffd);	/* which drops what was registered */
		return ret;
	}
	return uffd;
}

/*
 * Wait at a trap while crib-restore copies the direct VMAs' pages in
 * (enum rst_direct_state); closing the userfaultfd after, the last
 * reference to it, ends the registrations.
 */
static void fill_direct(struct rst_args *a)
{
	__u64 all = ~0ULL;
	long uffd;

	if (!a->n_direct)
		return;
	uffd = open_direct_uffd(a);
	a->uffd = (__s32)uffd;
	a->direct_state = RST_DIRECT_WAITING;
	asm volatile("int3" ::: "memory");
	if (a->direct_state != RST_DIRECT_DONE)
		fail(a, NULL, RST_STEP_FILL, -5, 0);
	/* The breakpoint's SIGTRAP, blocked, unblocked it: block it again. */
	sys4(__NR_rt_sigprocmask, SIG_SETMASK, &all, 0, SIGSET_SIZE);
	if (uffd >= 0)
		sys1(__NR_close, uffd);
}

static void fill_from_store(struct rst_args *a)
{
	struct rst_pages *p = at(a, a->pages_off);
	__u64 i, done;
	long ret;

	for (i = 0; i < a->n_pages; i++, p++) {
		if (p->offset == RST_IN_PLACE) {
			/* The pages are there: only their write-protection goes. */
			ret = sys3(__NR_madvise, p->addr, p->len, MADV_POPULATE_WRITE);
			if (ret)
				fail(a, NULL, RST_STEP_FILL, ret, p->addr);
			continue;
		}
		for (done = 0; done < p->len; done += ret) {
			ret = sys4(__NR_pread64, a->pages_fd, p->addr + done, p->len - done,
				   p->offset + done);
			if (ret <= 0)
				fail(a, NULL, RST_STEP_FILL, ret ? ret : -5, p->addr + done);
		}
	}
}

static void advise(struct rst_args *a, const struct rst_vma *v, __u32 bit, int advice)
{
	long ret;

	if (!(v->advice & bit))
		return;
	ret = sys3(__NR_madvise, v->start, v->end - v->start, advice);
	if (ret)
		fail(a, NULL, RST_STEP_PROTECT, ret, v->start);
}

/* The final protection, then what madvise(2) had set (spec: vma advice). */
static void protect_vmas(struct rst_args *a)
{
	struct rst_vma *v = at(a, a->vmas_off);
	__u64 i;
	long ret;

	for (i = 0; i < a->n_vmas; i++, v++) {
		if (v->prot != v->map_prot) {
			ret = sys3(__NR_mprotect, v->start, v->end - v->start, v->prot);
			if (ret)
				fail(a, NULL, RST_STEP_PROTECT, ret, v->start);
		}
		if (!v->advice)
			continue;
		advise(a, v, RST_ADV_SEQUENTIAL, MADV_SEQUENTIAL);
		advise(a, v, RST_ADV_RANDOM, MADV_RANDOM);
		advise(a, v, RST_ADV_DONTFORK, MADV_DONTFORK);
		advise(a, v, RST_ADV_WIPEONFORK, MADV_WIPEONFORK);
		advise(a, v, RST_ADV_DONTDUMP, MADV_DONTDUMP);
		advise(a, v, RST_ADV_HUGEPAGE, MADV_HUGEPAGE);
		advise(a, v, RST_ADV_NOHUGEPAGE, MADV_NOHUGEPAGE);
		advise(a, v, RST_ADV_MERGEABLE, MADV_MERGEABLE);
	}
}

static void set_mm(struct rst_args *a)
{
	long ret;

	ret = sys5(__NR_prctl, PR_SET_MM, PR_SET_MM_MAP, &a->mm, sizeof(a->mm), 0);
	if (ret)
		fail(a, NULL, RST_STEP_MM, ret, 0);
}

/* ---- signals: handlers, interval timers, pending signals (signals.c, timers.c) ---- */

static void set_process_signals(struct rst_args *a)
{
	struct rst_sigaction *sa = at(a, a->actions_off);
	__u64 i;
	long ret;

	for (i = 0; i < a->n_actions; i++, sa++) {
		if (sa->signo == SIGTRAP)
			continue;	/* crib-restore's, after the last breakpoint */
		ret = sys4(__NR_rt_sigaction, sa->signo, sa, 0, SIGSET_SIZE);
		if (ret)
			fail(a, NULL, RST_STEP_SIGACTION, ret, sa->signo);
	}
	enter(a, NULL, RST_STEP_ITIMER);
	for (i = 0; i < 3; i++) {
		if (!(a->itimers_set & (1u << i)))
			continue;
		ret = sys3(__NR_setitimer, i, &a->itimers[i], 0);
		if (ret)
			fail(a, NULL, RST_STEP_ITIMER, ret, i);
	}
}

static void queue_signals(struct rst_args *a, struct rst_thread *t,
			  struct rst_siginfo *si, __u64 n, int shared)
{
	long ret;

	for (; n; n--, si++) {
		if (si->signo == SIGTRAP)
			continue;	/* crib-restore's, after the last breakpoint */
		if (shared)
			ret = sys3(__NR_rt_sigqueueinfo, a->tgid, si->signo, si->info);
		else
			ret = sys4(__NR_rt_tgsigqueueinfo, a->tgid, t->tid, si->signo, si->info);
		if (ret)
			fail(a, t, RST_STEP_SIGQUEUE, ret, si->signo);
	}
}

/* ---- threads: credentials, per-thread state, creation (threads.c) ---- */

static long set_caps(__u64 eff, __u64 prm, __u64 inh)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ (__u32)eff, (__u32)prm, (__u32)inh },
		{ (__u32)(eff >> 32), (__u32)(prm >> 32), (__u32)(inh >> 32) },
	};

	return sys2(__NR_capset, &hdr, data);
}

/*
 * The bounding set, while the thread still has CAP_SETPCAP: the
 * restorer's is full, so what the thread had dropped is dropped.
 * Capabilities past the last this kernel knows (PR_CAPBSET_READ says
 * EINVAL) end the walk.
 */
static void set_cap_bounds(struct rst_args *a, struct rst_thread *t)
{
	__u64 cap;
	long ret;

	for (cap = 0; cap < 64; cap++) {
		if (t->creds.cap_bnd & (1ULL << cap))
			continue;
		ret = sys5(__NR_prctl, PR_CAPBSET_READ, cap, 0, 0, 0);
		if (ret == -22)
			break;
		if (ret == 1)
			ret = sys5(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0);
		if (ret < 0)
			fail(a, t, RST_STEP_CREDS, ret, cap);
	}
}

/*
 * Ambient capabilities, once they are permitted and inheritable, and
 * before securebits may forbid raising them (SECBIT_NO_CAP_AMBIENT_RAISE).
 */
static void raise_ambient(struct rst_args *a, struct rst_thread *t)
{
	__u64 cap;
	long ret;

	for (cap = 0; cap < 64; cap++) {
		if (!(t->creds.cap_amb & (1ULL << cap)))
			continue;
		ret = sys5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
		if (ret)
			fail(a, t, RST_STEP_CREDS, ret, cap);
	}
}

/*
 * Securebits, lock bits included, take CAP_SETPCAP; a uid change took it
 * out of the effective set (KEEPCAPS keeps only the permitted one), so
 * it is made effective again for them, then dropped with the exact sets.
 * Setting them also sets SECBIT_KEEP_CAPS as the thread had it, where
 * PR_SET_KEEPCAPS would otherwise clear it.
 */
static void set_securebits(struct rst_args *a, struct rst_thread *t)
{
	struct rst_creds *c = &t->creds;
	long ret = 0;

	enter(a, t, RST_STEP_SECUREBITS);
	if (!c->securebits)
		return;
	if (c->change)
		ret = set_caps(c->cap_prm | CAP_SETPCAP_BIT, c->cap_prm | CAP_SETPCAP_BIT,
			       c->cap_inh);
	if (ret)
		fail(a, t, RST_STEP_SECUREBITS, ret, c->securebits);
	raise_ambient(a, t);
	ret = sys5(__NR_prctl, PR_SET_SECUREBITS, c->securebits, 0, 0, 0);
	if (ret)
		fail(a, t, RST_STEP_SECUREBITS, ret, c->securebits);
}

/*
 * Per-thread credentials: the kernel keeps them per thread, not per
 * process, and a thread may have changed its own.  The parent-death
 * signal last: changing credentials clears it.
 */
static void set_creds(struct rst_args *a, struct rst_thread *t)
{
	struct rst_creds *c = &t->creds;
	long ret;

	enter(a, t, RST_STEP_CREDS);
	set_cap_bounds(a, t);
	if (!c->change) {
		set_securebits(a, t);
		return;
	}
	ret = sys2(__NR_setgroups, c->n_groups, c->groups);
	if (!ret)
		ret = sys3(__NR_setresgid, c->gid, c->egid, c->sgid);
	if (!ret)
		ret = sys1(__NR_setfsgid, c->fsgid) < 0 ? -1 : 0;
	/* Keep the capabilities across the uid change, then set them exactly. */
	if (!ret)
		ret = sys5(__NR_prctl, PR_SET_KEEPCAPS, 1, 0, 0, 0);
	if (!ret)
		ret = sys3(__NR_setresuid, c->uid, c->euid, c->suid);
	if (!ret)
		ret = sys1(__NR_setfsuid, c->fsuid) < 0 ? -1 : 0;
	if (ret)
		fail(a, t, RST_STEP_CREDS, ret, 0);
	set_securebits(a, t);
	ret = set_caps(c->cap_eff, c->cap_prm, c->cap_inh);
	if (!ret && !c->securebits)
		ret = sys5(__NR_prctl, PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (ret)
		fail(a, t, RST_STEP_CREDS, ret, 0);
	if (!c->securebits)
		raise_ambient(a, t);
}

static void set_pdeath_signal(struct rst_args *a, struct rst_thread *t)
{
	long ret;

	if (!t->pdeath_signal)
		return;
	ret = sys5(__NR_prctl, PR_SET_PDEATHSIG, t->pdeath_signal, 0, 0, 0);
	if (ret)
		fail(a, t, RST_STEP_CREDS, ret, (__u64)t->pdeath_signal);
}

/*
 * Until every other thread has its credentials: a thread changing its
 * effective ids makes the mm not dumpable, which only the leader, after
 * them all, sets back.
 */
static void wait_for_threads(struct rst_args *a)
{
	struct rst_thread *t = at(a, a->threads_off);
	__u64 i;

	for (i = 1; i < a->n_threads; i++)
		while (__atomic_load_n(&t[i].state, __ATOMIC_ACQUIRE) == RST_THREAD_NEW)
			sys0(__NR_sched_yield);
}

static void set_thread_state(struct rst_args *a, struct rst_thread *t)
{
	struct {
		__u64 sp;
		__s32 flags;
		__u32 pad;
		__u64 size;
	} ss = { t->altstack_sp, (__s32)t->altstack_flags, 0, t->altstack_size };
	long ret;

	enter(a, t, RST_STEP_THREAD_STATE);
	sys1(__NR_set_tid_address, t->clear_child_tid);
	if (t->robust_list) {
		ret = sys2(__NR_set_robust_list, t->robust_list, t->robust_list_len);
		if (ret)
			fail(a, t, RST_STEP_THREAD_STATE, ret, t->robust_list);
	}
	if (t->altstack_size) {
		ret = sys2(__NR_sigaltstack, &ss, 0);
		if (ret)
			fail(a, t, RST_STEP_THREAD_STATE, ret, t->altstack_sp);
	}
	if (t->rseq_abi) {
		ret = sys4(__NR_rseq, t->rseq_abi, t->rseq_len, 0, t->rseq_sig);
		if (ret)
			fail(a, t, RST_STEP_THREAD_STATE, ret, t->rseq_abi);
	}
	ret = sys5(__NR_prctl, PR_SET_NAME, t->comm, 0, 0, 0);
	if (ret)
		fail(a, t, RST_STEP_THREAD_STATE, ret, 0);
	queue_signals(a, t, at(a, t->pending_off), t->n_pending, 0);
}

/* ---- a thread's own attributes: scheduling, I/O, speculation (threads.c, task.c) ---- */

/*
 * What each thread sets for itself once every thread is made, since a
 * thread passes these on to those it clones: SCHED_RESET_ON_FORK (which
 * a clone undoes), its I/O priority and speculation controls (which a
 * forced disable would make impossible to set back).  Before its
 * credentials drop the privileges they take.
 */
static void set_thread_attrs(struct rst_args *a, struct rst_thread *t)
{
	__s32 priority = (__s32)a->sched_priority;
	long ret;

	enter(a, t, RST_STEP_SCHED);
	if (a->reset_on_fork) {
		ret = sys3(__NR_sched_setscheduler, 0, a->sched_policy | SCHED_RESET_ON_FORK,
			   &priority);
		if (ret)
			fail(a, t, RST_STEP_SCHED, ret, a->sched_policy);
	}
	enter(a, t, RST_STEP_IOPRIO);
	if (t->ioprio) {
		ret = sys3(__NR_ioprio_set, IOPRIO_WHO_PROCESS, 0, t->ioprio);
		if (ret)
			fail(a, t, RST_STEP_IOPRIO, ret, t->ioprio);
	}
	enter(a, t, RST_STEP_SPEC_CTRL);
	if (t->spec_store_bypass) {
		ret = sys5(__NR_prctl, PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS,
			   t->spec_store_bypass, 0, 0);
		if (ret)
			fail(a, t, RST_STEP_SPEC_CTRL, ret, t->spec_store_bypass);
	}
	if (t->spec_indirect_branch) {
		ret = sys5(__NR_prctl, PR_SET_SPECULATION_CTRL, PR_SPEC_INDIRECT_BRANCH,
			   t->spec_indirect_branch, 0, 0);
		if (ret)
			fail(a, t, RST_STEP_SPEC_CTRL, ret, t->spec_indirect_branch);
	}
}

/* The address space's membarrier(2) registrations, one command per bit. */
static void register_membarrier(struct rst_args *a)
{
	__u32 bit;
	long ret;

	enter(a, NULL, RST_STEP_MEMBARRIER);
	for (bit = 1; bit && bit <= a->membarrier; bit <<= 1) {
		if (!(a->membarrier & bit))
			continue;
		ret = sys3(__NR_membarrier, bit, 0, 0);
		if (ret)
			fail(a, NULL, RST_STEP_MEMBARRIER, ret, bit);
	}
}

/* ---- seccomp: filters and strict mode (seccomp.c) ---- */

/*
 * Install @n filters at @off, the first installed first.  The tracer
 * suspends seccomp for the process until it lets it go, so what follows
 * is not filtered; the thread is still privileged, so no_new_privs is not
 * needed.
 */
static void install_filters(struct rst_args *a, struct rst_thread *t, __u64 n, __u64 off)
{
	const struct rst_seccomp_filter *f = at(a, off);
	struct {
		__u16 len;
		__u16 pad[3];
		__u64 filter;
	} prog;
	long ret;
	__u64 i;

	for (i = 0; i < n; i++) {
		prog.len = (__u16)f[i].n_insns;
		prog.filter = (__u64)at(a, f[i].insns_off);
		ret = sys3(__NR_seccomp, SECCOMP_SET_MODE_FILTER, f[i].flags, (long)&prog);
		if (ret)
			fail(a, t, RST_STEP_SECCOMP, ret, i);
	}
}

/* A thread's own filters, then strict mode; before its credentials drop privileges. */
static void set_seccomp(struct rst_args *a, struct rst_thread *t)
{
	long ret;

	enter(a, t, RST_STEP_SECCOMP);
	install_filters(a, t, t->n_seccomp, t->seccomp_off);
	if (t->seccomp_mode == SECCOMP_MODE_STRICT) {
		ret = sys3(__NR_seccomp, SECCOMP_SET_MODE_STRICT, 0, 0);
		if (ret)
			fail(a, t, RST_STEP_SECCOMP, ret, 0);
	}
}

/* The end of every thread: crib-restore takes over at the trap. */
static __attribute__((noreturn)) void thread_ready(struct rst_args *a, struct rst_thread *t)
{
	enter(a, t, RST_STEP_DONE);
	t->state = RST_THREAD_READY;
	for (;;)
		asm volatile("int3" ::: "memory");
}

struct rst_thread_start {
	struct rst_args *args;
	struct rst_thread *thread;
};

__attribute__((visibility("hidden"), used, noreturn))
void rst_thread_main(struct rst_thread_start *s)
{
	struct rst_args *a = s->args;
	struct rst_thread *t = s->thread;

	set_thread_state(a, t);
	set_thread_attrs(a, t);
	set_seccomp(a, t);
	set_creds(a, t);
	set_pdeath_signal(a, t);
	thread_ready(a, t);
}

/*
 * clone3() a thread with tid t->tid onto its own stack.  The child returns
 * from the system call on that stack with nothing of this frame, so it goes
 * straight to rst_thread_main() with the start block kept in r12.
 */
static long clone_thread(struct rst_args *a, struct rst_thread *t, struct rst_thread_start *s)
{
	__s32 tid = t->tid;
	struct clone_args ca = {
		.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			 CLONE_THREAD | CLONE_SYSVSEM,
		.stack = t->stack_top - RST_STACK_SIZE,
		.stack_size = RST_STACK_SIZE,
		.set_tid = (__u64)(unsigned long)&tid,
		.set_tid_size = 1,
	};
	register struct rst_thread_start *r12 asm("r12") = s;
	long ret;

	s->args = a;
	s->thread = t;
	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov %%r12, %%rdi\n\t"
		     "call rst_thread_main\n\t"
		     "ud2\n"
		     "1:"
		     : "=a"(ret)
		     : "0"((long)__NR_clone3), "D"(&ca), "S"(sizeof(ca)), "r"(r12)
		     : "rcx", "r11", "memory");
	return ret;
}

static void start_threads(struct rst_args *a)
{
	struct rst_thread *t = at(a, a->threads_off);
	/* One start block per thread: each child reads its own after we move on. */
	struct rst_thread_start *starts = (void *)(t + a->n_threads);
	__u64 i;
	long ret;

	for (i = 1; i < a->n_threads; i++) {
		ret = clone_thread(a, &t[i], &starts[i]);
		if (ret != t[i].tid)
			fail(a, &t[i], RST_STEP_THREAD, ret < 0 ? ret : -22, (__u64)t[i].tid);
	}
}

/* ---- timers: POSIX timers (timers.c) ---- */

/*
 * POSIX timers get the next free id, counting up from where the last one
 * was made; the ids in between are taken by placeholders that are deleted
 * once every timer has its id.  Armed last, with the time they had left.
 */
static void create_posix_timers(struct rst_args *a)
{
	struct rst_posix_timer *pt = at(a, a->timers_off);
	struct {
		__u64 value;
		__s32 signo;
		__s32 notify;
		__s32 tid;
		__u8 pad[44];
	} ev;
	__s32 id, placeholder = -1;
	__u64 i;
	long ret;

	for (i = 0; i < a->n_timers; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.value = pt[i].sigev_value;
		ev.signo = (__s32)pt[i].signo;
		ev.notify = (__s32)pt[i].notify;
		ev.tid = pt[i].notify_tid;
		for (;;) {
			ret = sys3(__NR_timer_create, pt[i].clockid, &ev, &id);
			if (ret)
				fail(a, NULL, RST_STEP_POSIX_TIMER, ret, (__u64)pt[i].id);
			if (id == pt[i].id)
				break;
			if (id > pt[i].id)
				fail(a, NULL, RST_STEP_POSIX_TIMER, -17, (__u64)pt[i].id);
			/* A placeholder: only the lowest one needs remembering. */
			if (placeholder < 0)
				placeholder = id;
		}
	}
	for (id = placeholder; placeholder >= 0 && a->n_timers &&
	     id < pt[a->n_timers - 1].id; id++) {
		for (i = 0; i < a->n_timers && pt[i].id != id; i++)
			;
		if (i == a->n_timers)
			sys1(__NR_timer_delete, id);
	}
	for (i = 0; i < a->n_timers; i++) {
		if (!pt[i].value.sec && !pt[i].value.nsec)
			continue;
		ret = sys4(__NR_timer_settime, pt[i].id, 0, &pt[i].interval, 0);
		if (ret)
			fail(a, NULL, RST_STEP_POSIX_TIMER, ret, (__u64)pt[i].id);
	}
}

/* ---- the process: its limits, the restore's own descriptors (task.c) ---- */

static void set_rlimits(struct rst_args *a)
{
	__u32 i;
	long ret;

	for (i = 0; i < RST_NR_RLIMITS; i++) {
		if (!(a->rlimits_set & (1u << i)))
			continue;
		ret = sys4(__NR_prlimit64, 0, i, &a->rlimits[i], 0);
		if (ret)
			fail(a, NULL, RST_STEP_RLIMIT, ret, i);
	}
}

/* The restore's own descriptors: the page store, the files mapped. */
static void close_own_fds(struct rst_args *a)
{
	__s32 *fd = at(a, a->close_off);
	__u64 i;

	for (i = 0; i < a->n_close; i++)
		sys1(__NR_close, fd[i]);
}

/* ---- the whole restore, in order ---- */

__attribute__((visibility("hidden"), used, noreturn))
void rst_main(struct rst_args *a)
{
	__u64 all = ~0ULL;
	struct rst_thread *leader;
	long ret;

	sys4(__NR_rt_sigprocmask, SIG_SETMASK, &all, 0, SIGSET_SIZE);
	if (a->magic != RST_MAGIC || a->size != sizeof(*a))
		fail(a, NULL, RST_STEP_START, -22, 0);
	enter(a, NULL, RST_STEP_START);
	leader = at(a, a->threads_off);

	/*
	 * The kernel writes to a registered rseq area on the way back to user
	 * space; crib-restore's is about to be unmapped.
	 */
	enter(a, NULL, RST_STEP_RSEQ);
	if (a->rseq_abi) {
		ret = sys4(__NR_rseq, a->rseq_abi, a->rseq_len, RSEQ_FLAG_UNREGISTER, a->rseq_sig);
		if (ret)
			fail(a, NULL, RST_STEP_RSEQ, ret, a->rseq_abi);
	}
	enter(a, NULL, RST_STEP_UNMAP);
	unmap_all_but_area(a);
	enter(a, NULL, RST_STEP_VDSO);
	if (a->vvar_start) {
		/* Returns the size of the vDSO image. */
		ret = sys2(__NR_arch_prctl, ARCH_MAP_VDSO_64, a->vvar_start);
		if (ret < 0)
			fail(a, NULL, RST_STEP_VDSO, ret, a->vvar_start);
	}
	enter(a, NULL, RST_STEP_MAP);
	map_vmas(a);
	enter(a, NULL, RST_STEP_FILL);
	fill_direct(a);
	fill_from_store(a);
	enter(a, NULL, RST_STEP_PROTECT);
	protect_vmas(a);
	enter(a, NULL, RST_STEP_MM);
	set_mm(a);
	enter(a, NULL, RST_STEP_SIGACTION);
	set_process_signals(a);
	close_own_fds(a);
	/* What every thread runs under: they inherit it, and so share it. */
	enter(a, NULL, RST_STEP_SECCOMP);
	install_filters(a, NULL, a->n_seccomp, a->seccomp_off);
	enter(a, NULL, RST_STEP_THREAD);
	start_threads(a);
	/* After the threads: a timer may signal one of them. */
	enter(a, NULL, RST_STEP_POSIX_TIMER);
	create_posix_timers(a);
	enter(a, NULL, RST_STEP_SIGQUEUE);
	queue_signals(a, leader, at(a, a->shared_off), a->n_shared, 1);
	/* The threads are started: the limits may be tighter than what that took. */
	enter(a, NULL, RST_STEP_RLIMIT);
	set_rlimits(a);
	register_membarrier(a);
	set_thread_state(a, leader);
	set_thread_attrs(a, leader);
	set_seccomp(a, leader);
	set_creds(a, leader);
	set_pdeath_signal(a, leader);
	/* Last: changing credentials resets it, in any thread. */
	wait_for_threads(a);
	ret = sys5(__NR_prctl, PR_SET_DUMPABLE, a->dumpable, 0, 0, 0);
	if (ret)
		fail(a, leader, RST_STEP_CREDS, ret, a->dumpable);
	a->step = RST_STEP_DONE;
	thread_ready(a, leader);
}
