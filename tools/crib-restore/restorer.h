/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What crib-restore hands to the restorer, the position-independent code
 * (restorer.c) that rebuilds the address space from inside the new
 * process.  Everything lives in one shared mapping, the restore area:
 *
 *   [ restorer code | struct rst_args | arrays | thread stacks ]
 *
 * The area is placed where the snapshot has no mapping, so it survives
 * the restorer unmapping everything else; crib-restore, which maps it too,
 * reads the progress and error words from it, and unmaps it from the
 * restored process once every thread is in place.  Arrays are referred to
 * by offsets from the area's start so the layout needs no relocation.
 * Fixed-size types only: both sides are built by one compiler, but the
 * restorer sees no libc.
 */
#ifndef CRIB_RESTORER_H
#define CRIB_RESTORER_H

#include <linux/prctl.h>
#include <linux/types.h>

#define RST_MAGIC		0x52425243u	/* "CRBR" */
#define RST_COMM_LEN		16
#define RST_NR_RLIMITS		16
#define RST_MAX_GROUPS		64
#define RST_AUXV_WORDS		64
#define RST_SIGINFO_SIZE	128
#define RST_STACK_SIZE		(64 * 1024)

/* Where a restore stopped: kept in rst_args.step and reported on failure. */
enum rst_step {
	RST_STEP_START = 0,
	RST_STEP_RSEQ,
	RST_STEP_UNMAP,
	RST_STEP_VDSO,
	RST_STEP_MAP,
	RST_STEP_FILL,
	RST_STEP_PROTECT,
	RST_STEP_MM,
	RST_STEP_SIGACTION,
	RST_STEP_ITIMER,
	RST_STEP_RLIMIT,
	RST_STEP_THREAD,
	RST_STEP_THREAD_STATE,
	RST_STEP_SIGQUEUE,
	RST_STEP_POSIX_TIMER,
	RST_STEP_SECCOMP,
	RST_STEP_CREDS,
	RST_STEP_SCHED,
	RST_STEP_IOPRIO,
	RST_STEP_SPEC_CTRL,
	RST_STEP_SECUREBITS,
	RST_STEP_MEMBARRIER,
	RST_STEP_DONE,
};

/* rst_thread.state */
enum rst_thread_state {
	RST_THREAD_NEW = 0,
	RST_THREAD_READY = 1,	/* everything but registers is in place */
	RST_THREAD_FAILED = 2,
};

/* One mapping; fd is -1 for anonymous memory. */
struct rst_vma {
	__u64 start;
	__u64 end;
	__u64 offset;		/* file offset in bytes */
	__u32 prot;		/* final PROT_* */
	__u32 map_prot;		/* PROT_* while filling */
	__u32 flags;		/* MAP_* without MAP_FIXED */
	__s32 fd;
	__u64 shadow;		/* its contents, to move here whole; 0: none */
	__u32 direct;		/* crib-restore copies pages in: see rst_args.direct_state */
	__u32 advice;		/* RST_ADV_*: madvise(2) once filled */
};

/* The snapshot's vma advice bits (CRIB_ADV_*, checked equal in area.c). */
#define RST_ADV_SEQUENTIAL	0x01
#define RST_ADV_RANDOM		0x02
#define RST_ADV_DONTFORK	0x04
#define RST_ADV_WIPEONFORK	0x08
#define RST_ADV_DONTDUMP	0x10
#define RST_ADV_HUGEPAGE	0x20
#define RST_ADV_NOHUGEPAGE	0x40
#define RST_ADV_MERGEABLE	0x80

/*
 * A run of pages to copy from the page store, or (offset RST_IN_PLACE)
 * moved into place with its shadow already, to be made writable: fork()
 * left its page table entries write-protected, and the process's first
 * write to each page would fault.
 */
struct rst_pages {
	__u64 addr;
	__u64 len;
	__u64 offset;		/* in the page store, or RST_IN_PLACE */
};

#define RST_IN_PLACE		(~0ULL)

/*
 * rst_args.direct_state.  The pages of the VMAs marked direct are copied in
 * by crib-restore, from its mapping of the snapshot, through a userfaultfd
 * the restorer opens on them (rst_args.uffd): the restorer traps WAITING,
 * crib-restore takes the descriptor by pidfd_getfd(), copies, sets DONE
 * and lets it go on.  Each page comes into being with its contents, this
 * process's alone: no copy in between, none on its first write.
 */
enum rst_direct_state {
	RST_DIRECT_NONE = 0,
	RST_DIRECT_WAITING = 1,
	RST_DIRECT_DONE = 2,
};

/* The kernel's struct sigaction for rt_sigaction(2) on x86_64. */
struct rst_sigaction {
	__u64 handler;
	__u64 flags;
	__u64 restorer;
	__u64 mask;
	__u32 signo;
	__u32 pad;
};

struct rst_siginfo {
	__u32 signo;
	__u32 pad;
	__u8 info[RST_SIGINFO_SIZE];
};

struct rst_timeval {
	__s64 sec;
	__s64 usec;
};

struct rst_itimer {
	struct rst_timeval interval;
	struct rst_timeval value;
};

struct rst_timespec {
	__s64 sec;
	__s64 nsec;
};

/* A POSIX timer: created again with the same id, then armed. */
struct rst_posix_timer {
	__s32 id;
	__s32 clockid;
	__u32 signo;
	__u32 notify;		/* SIGEV_* */
	__u64 sigev_value;
	__s32 notify_tid;
	__u32 pad;
	struct rst_timespec interval;
	struct rst_timespec value;	/* interval then value: a struct itimerspec */
};

struct rst_rlimit {
	__u64 cur;
	__u64 max;
};

struct rst_creds {
	__u32 uid, euid, suid, fsuid;
	__u32 gid, egid, sgid, fsgid;
	__u32 n_groups;
	__u32 groups[RST_MAX_GROUPS];
	__u64 cap_eff, cap_prm, cap_inh;
	__u64 cap_bnd;		/* the bounding set: what is not in it is dropped */
	__u64 cap_amb;		/* ambient capabilities, raised once permitted */
	__u32 change;		/* 0: the restorer's own (root) credentials are right */
	__u32 securebits;	/* PR_SET_SECUREBITS; 0: left as they are, none */
};

/*
 * A seccomp filter to install: n_insns struct sock_filter at insns_off.
 * The restored process is traced with PTRACE_O_SUSPEND_SECCOMP, so a
 * filter bites only once crib-restore lets the process go.
 */
struct rst_seccomp_filter {
	__u32 flags;		/* SECCOMP_FILTER_FLAG_* */
	__u32 n_insns;
	__u64 insns_off;
};

struct rst_thread {
	__s32 tid;
	__u32 state;		/* enum rst_thread_state, written by the thread */
	__u64 stack_top;	/* 16-byte aligned */
	__u64 altstack_sp;
	__u64 altstack_size;
	__u32 altstack_flags;
	__u32 n_pending;
	__u64 pending_off;	/* rst_siginfo[n_pending] queued to this thread */
	__u64 clear_child_tid;
	__u64 robust_list;
	__u64 robust_list_len;
	__u64 rseq_abi;		/* 0: none registered */
	__u32 rseq_len;
	__u32 rseq_sig;
	char comm[RST_COMM_LEN];
	struct rst_creds creds;	/* the kernel keeps them per thread */
	__s32 pdeath_signal;	/* PR_SET_PDEATHSIG, set after the credentials */
	__u32 seccomp_mode;	/* SECCOMP_MODE_STRICT: set last; else 0 */
	__u64 n_seccomp, seccomp_off;	/* rst_seccomp_filter[]: its own, oldest first */
	/* set by the thread itself once the threads are made; 0: not set */
	__u32 ioprio;		/* ioprio_set(2) */
	__u32 spec_store_bypass;	/* PR_SET_SPECULATION_CTRL's PR_SPEC_* */
	__u32 spec_indirect_branch;
	__u32 pad1;
	__s64 error;		/* -errno of the failed step */
	__u32 step;		/* enum rst_step reached */
	__u32 pad2;
};


struct rst_args {
	__u32 magic;
	__u32 size;		/* of this struct, checked by the restorer */
	__u64 area_start;
	__u64 area_len;
	__u64 task_size;	/* end of the user address space */
	__u64 vvar_start;	/* where the vDSO pair goes; 0: none */
	__u64 shadows_start;	/* kept from unmapping until the shadows are moved */
	__u64 shadows_len;
	__u64 rseq_abi;		/* the rseq area crib-restore's libc registered */
	__u32 rseq_len;
	__u32 rseq_sig;
	__s32 pages_fd;		/* the page store */
	__s32 tgid;
	__u64 n_vmas, vmas_off;		/* struct rst_vma[] */
	__u64 n_pages, pages_off;	/* struct rst_pages[] */
	__u32 n_direct;			/* VMAs marked direct */
	__u32 direct_state;		/* enum rst_direct_state */
	__s32 uffd;			/* on the direct VMAs; -errno: none, write them */
	__u32 pad1;
	__u64 n_actions, actions_off;	/* struct rst_sigaction[] */
	__u64 n_threads, threads_off;	/* struct rst_thread[], the leader first */
	__u64 n_shared, shared_off;	/* rst_siginfo[] queued to the process */
	__u64 n_close, close_off;	/* __s32[]: the restore's own fds */
	__u64 n_timers, timers_off;	/* struct rst_posix_timer[], by id */
	/*
	 * rst_seccomp_filter[] that every thread runs under, oldest first:
	 * the leader installs them before it starts the others.
	 */
	__u64 n_seccomp, seccomp_off;
	/*
	 * PR_SET_MM_MAP's argument as is: the area sits at the same address in
	 * crib-restore and in the new process, so mm.auxv points at auxv below.
	 */
	struct prctl_mm_map mm;
	__u64 auxv[RST_AUXV_WORDS];
	struct rst_itimer itimers[3];	/* ITIMER_REAL, _VIRTUAL, _PROF */
	__u32 itimers_set;		/* bit n: itimers[n] is armed */
	__u32 rlimits_set;		/* bit n: rlimits[n] is given */
	struct rst_rlimit rlimits[RST_NR_RLIMITS];
	__u32 dumpable;			/* PR_SET_DUMPABLE, once every thread has its credentials */
	__u32 membarrier;		/* MEMBARRIER_CMD_REGISTER_* to make, or'ed */
	/*
	 * SCHED_RESET_ON_FORK: each thread sets it with its policy and
	 * priority once the threads are made, since a clone would undo it.
	 */
	__u32 reset_on_fork;
	__u32 sched_policy;
	__u32 sched_priority;
	__u32 pad0;
	/* Testing aid (CRIB_RESTORE_FAULT): 1 + the enum rst_step to fail at; 0: none. */
	__u32 fault_step;
	__u32 pad;
	/* Progress, written by the restorer, read by crib-restore. */
	__u32 step;			/* enum rst_step */
	__u32 failed_thread;		/* index into threads */
	__s64 error;			/* -errno */
	__u64 detail;			/* e.g. the address of a failed mapping */
	char message[256];		/* a failure before the restorer ran */
};

/* The restorer's entry point is at the start of its code; rdi = args. */
#define RST_ENTRY_OFFSET	0
/* A "syscall" instruction crib-restore points a stopped thread at. */
#define RST_SYSCALL_OFFSET	8

#endif /* CRIB_RESTORER_H */
