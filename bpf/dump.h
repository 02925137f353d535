/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the dump_*.bpf.c programs and crib-dump: the context each
 * program is run with and the records it sends back through its ring
 * buffer.  Fixed-size types only, so both sides agree on the layout.
 *
 * Every record starts with a __u32 kind, so one ring buffer callback can
 * check what it got.  Kernel device numbers are passed as the kernel
 * encodes them (major << 20 | minor); user space converts them.
 */
#ifndef CRIB_DUMP_H
#define CRIB_DUMP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "crib_target.h"

#define DUMP_COMM_LEN		16
#define DUMP_NR_RLIMITS		16	/* RLIM_NLIMITS */
#define DUMP_MAX_GROUPS		64
#define DUMP_MAX_SECCOMP	32	/* filters a thread may run under */
#define DUMP_AUXV_WORDS		50	/* mm->saved_auxv, AT_VECTOR_SIZE on x86_64 */
#define DUMP_NSIG		64	/* _NSIG: signals 1 to 64 */
#define DUMP_SIGINFO_SIZE	48	/* struct kernel_siginfo; user space's siginfo_t is
					 * the same bytes followed by zeros up to 128 */
#define DUMP_MAX_SIGQUEUE	4096	/* the format's limit for one queue */
#define DUMP_MAX_TIMERS		4096	/* the format's limit for POSIX timers */
#define DUMP_MAX_DESCS		65536	/* open file descriptions one dump numbers */

/* Return values of the dump programs. */
enum dump_result {
	DUMP_OK = 0,
	DUMP_NO_TASK = 1,	/* no task with that pid (it exited) */
	DUMP_NO_ROOM = 2,	/* ring buffer full: consume and run again */
	DUMP_NO_MM = 3,		/* the task has no address space (exiting, or a kthread) */
	DUMP_NOT_OURS = 4,	/* the thread does not belong to the process */
	DUMP_BUSY = 5,		/* a lock was taken (the mm's, or the task's while it
				 * executes a program): try again */
	DUMP_TOO_MANY = 6,	/* a list longer than the format allows */
	DUMP_NO_ACCESS = 7,	/* the caller may not ptrace the process */
};

enum dump_record_kind {
	DUMP_REC_TASK = 1,
	DUMP_REC_THREAD = 2,
	DUMP_REC_VMA = 3,
	DUMP_REC_FILE = 4,
	DUMP_REC_SIGHAND = 5,
	DUMP_REC_SIGQUEUE = 6,
	DUMP_REC_SIGMASK = 7,
	DUMP_REC_TIMERS = 8,
	DUMP_REC_POSIX_TIMER = 9,
	DUMP_REC_CHILD = 10,
	DUMP_REC_EPOLL_ITEM = 11,
	DUMP_REC_INOTIFY_WATCH = 12,
};

/* The event files dump_files recognises, by asking each kfunc in turn. */
enum dump_event_kind {
	DUMP_EVENT_NONE = 0,
	DUMP_EVENT_EVENTFD = 1,
	DUMP_EVENT_TIMERFD = 2,
	DUMP_EVENT_SIGNALFD = 3,
	DUMP_EVENT_EPOLL = 4,
	DUMP_EVENT_INOTIFY = 5,
};

/* Which signal queue dump_sigqueue walks (dump_ctx.start). */
enum dump_sigqueue_which {
	DUMP_QUEUE_THREAD = 0,	/* task->pending: signals sent to that thread */
	DUMP_QUEUE_SHARED = 1,	/* signal->shared_pending: sent to the process */
};

/*
 * What to dump.  @pid names the process (thread group leader) or, for
 * dump_thread, the thread; @tgid the process a thread must belong to.
 * @start resumes a walk cut short by DUMP_NO_ROOM: an address for VMAs,
 * a descriptor for files, the last child sent for dump_children; for
 * dump_sigqueue it says which queue.  Every run is scoped to the dump's
 * root (@target): a program reaches it and its descendants, no other
 * process, and only if crib-dump may ptrace it.
 */
struct dump_ctx {
	struct crib_target target;
	__s32 pid;
	__s32 tgid;
	__u64 start;
};

struct dump_rlimit {
	__u64 cur;
	__u64 max;
};

/* Credentials, as struct cred holds them. */
struct dump_creds {
	__u32 uid, gid, euid, egid, suid, sgid, fsuid, fsgid;
	__u32 ngroups;		/* may exceed DUMP_MAX_GROUPS: then only those are in groups[] */
	__u32 securebits;
	__u32 groups[DUMP_MAX_GROUPS];
	__u64 cap_eff, cap_prm, cap_inh, cap_bnd, cap_amb;
};

/*
 * The namespaces of a task, by inode number, as the links in
 * /proc/PID/ns show them.
 * A zombie has none but its pid namespace, which is told by its level
 * (0 the initial one): a process crib-dump sees is in crib-dump's pid
 * namespace or one below it.
 */
enum dump_ns_kind {
	DUMP_NS_PID_FOR_CHILDREN,
	DUMP_NS_MNT,
	DUMP_NS_NET,
	DUMP_NS_UTS,
	DUMP_NS_IPC,
	DUMP_NS_CGROUP,
	DUMP_NS_USER,
	DUMP_NS_TIME,
	DUMP_NS_TIME_FOR_CHILDREN,
	DUMP_NR_NS,
};

struct dump_namespaces {
	__u32 ino[DUMP_NR_NS];	/* 0 where the task has none (a zombie) */
	__u32 pid_level;	/* of its own pid namespace */
};

/* An object a path names: a file, a directory. */
struct dump_inode_id {
	__u64 ino;
	__u32 dev;		/* kernel encoding */
	__u32 present;		/* 0 when there is no such object */
};

/*
 * What a thread sets for itself besides its signals and credentials: its
 * scheduling, the CPUs it may run on, its timer slack, and the sandboxes
 * it put itself in.
 */
struct dump_thread_attrs {
	__u32 policy;		/* SCHED_* */
	__u32 rt_priority;
	__s32 nice;
	__u32 reset_on_fork;	/* SCHED_RESET_ON_FORK */
	__u64 timer_slack_ns;
	__u64 cpus;		/* cpus_mask: CPUs 0 to 63 */
	__u32 nr_cpus_allowed;	/* more than cpus holds: CPUs beyond 63 */
	__u32 seccomp_mode;	/* SECCOMP_MODE_* */
	__u32 seccomp_filters;	/* how many it runs under */
	/*
	 * Its filters by kernel address, the last installed first, as far as
	 * DUMP_MAX_SECCOMP: equal in two threads when they share the filter.
	 * crib-dump compares them and never writes them out.
	 */
	__u64 seccomp_chain[DUMP_MAX_SECCOMP];
	__u32 seccomp_walked;	/* how many of them are in seccomp_chain */
	__u32 seccomp_log;	/* bit i: filter i was installed with SECCOMP_FILTER_FLAG_LOG */
	__u32 seccomp_listener;	/* bit i: filter i has a user-space listener */
	__u32 seccomp_pad;
	__u32 spec_flags;	/* PR_SET_SPECULATION_CTRL's bits of atomic_flags */
	__u32 syscall_dispatch;	/* PR_SET_SYSCALL_USER_DISPATCH is on */
	__u32 ioprio;		/* ioprio_set(2), 0 when never set */
};

struct dump_task_rec {
	__u32 kind;		/* DUMP_REC_TASK */
	__s32 pid;
	__s32 tgid;
	__s32 ppid;
	__s32 pgid;
	__s32 sid;
	__u32 nr_threads;
	char comm[DUMP_COMM_LEN];
	struct dump_creds creds;	/* the leader's */
	/* how it is in its tree */
	__u32 exit_state;	/* EXIT_ZOMBIE (0x20): exited, its parent not told */
	__u32 exit_code;	/* a zombie's wait status */
	__s32 exit_signal;	/* what its parent gets when it exits */
	__u32 stopped;		/* group stop (SIGNAL_STOP_STOPPED) */
	__u32 stop_code;	/* the stop signal its parent has yet to be told of, or 0 */
	__u32 child_subreaper;
	__u32 threads_live;	/* threads not yet exited */
	__u32 pad2;
	/*
	 * What fork() copies and clone() can share, by kernel address: equal
	 * in two processes when they share it.  crib-dump compares them and
	 * never writes them out.
	 */
	__u64 mm_obj, files_obj, fs_obj, sighand_obj;
	/* process attributes (its scheduling is the leader's, in attrs) */
	__u32 personality;
	__u32 umask;
	__u32 no_new_privs;
	__u32 pad3;
	__u64 start_boottime;	/* ns since boot, suspend included */
	struct dump_rlimit rlim[DUMP_NR_RLIMITS];
	struct dump_inode_id cwd;
	struct dump_inode_id root;
	/* address space */
	__u32 has_mm;
	__u32 map_count;
	__u64 mm_flags;
	__u64 start_code, end_code, start_data, end_data;
	__u64 start_brk, brk, start_stack;
	__u64 arg_start, arg_end, env_start, env_end;
	__u64 vdso;		/* mm->context.vdso: start of the [vdso] VMA */
	struct dump_inode_id exe;
	__u64 auxv[DUMP_AUXV_WORDS];
	/* namespaces: the leader's, and the first thread whose differ */
	struct dump_namespaces ns;
	__s32 ns_odd_tid;	/* 0 when every thread shares the leader's */
	__u32 ns_odd_mask;	/* bit n: namespace n (dump_ns_kind) differs */
	__s32 oom_score_adj;
	__u32 membarrier_state;	/* mm's MEMBARRIER_STATE_* registrations */
	struct dump_thread_attrs attrs;	/* the leader's */
};

struct dump_thread_rec {
	__u32 kind;		/* DUMP_REC_THREAD */
	__s32 tid;
	__s32 tgid;
	__u32 sas_ss_flags;
	char comm[DUMP_COMM_LEN];
	__u64 blocked;		/* bit n-1 is signal n */
	__u64 sas_ss_sp;
	__u64 sas_ss_size;
	__u64 clear_child_tid;
	__u64 robust_list;
	__s32 pdeath_signal;
	__u32 pad;
	struct dump_creds creds;
	struct dump_thread_attrs attrs;
};

/* A child of the process dump_children was run for. */
struct dump_child_rec {
	__u32 kind;		/* DUMP_REC_CHILD */
	__s32 pid;		/* its thread group id */
	__u32 exit_state;	/* EXIT_ZOMBIE once it exited */
	__u32 pad;
};

struct dump_vma_rec {
	__u32 kind;		/* DUMP_REC_VMA */
	__u32 has_file;
	__u64 start;
	__u64 end;
	__u64 vm_flags;
	__u64 pgoff;
	__u64 ino;
	__u32 dev;		/* kernel encoding */
	__u32 i_mode;
	__u64 size;		/* of the backing file: a shared memory object's size */
};

struct dump_file_rec {
	__u32 kind;		/* DUMP_REC_FILE */
	__s32 fd;
	__u32 f_flags;
	__u32 f_mode;		/* FMODE_* */
	__s64 pos;
	__u64 ino;
	__u64 size;
	__u32 dev;		/* kernel encoding */
	__u32 i_mode;
	__u32 rdev;		/* kernel encoding */
	__u32 cloexec;
	__u32 desc;		/* the open file description: the same id for the same struct file */
	__u32 pipe_readers;	/* pipes and FIFOs: the pipe's descriptions for reading, ... */
	__u32 pipe_writers;	/* ... and for writing, wherever they are */
	__u32 event;		/* enum dump_event_kind */
	/* event files: what the eventfd, timerfd and signalfd kfuncs read */
	__u32 event_flags;	/* eventfd: EFD_*; timerfd: TFD_TIMER_* of its last settime */
	__s32 clockid;		/* timerfd */
	__u64 count;		/* eventfd: the counter; timerfd: expirations not yet read;
				 * epoll, inotify: how many files it watches */
	__u64 sigmask;		/* signalfd: the signals it accepts, bit n - 1 for signal n */
	__s64 value_ns;		/* timerfd: time left on its clock, 0 when disarmed or due */
	__s64 interval_ns;	/* timerfd: its period, 0 for one shot */
	__u64 queued;		/* inotify: events queued and not read */
	__u32 locks;		/* 1: a POSIX, OFD or flock() lock or a lease was taken
				 * through it (or a list was longer than DUMP_MAX_LOCKS_WALKED) */
	/* who gets SIGIO (F_SETOWN, F_SETOWN_EX) and as which signal (F_SETSIG) */
	__s32 owner_pid;	/* 0: none */
	__u32 owner_type;	/* enum pid_type: PIDTYPE_PID, _TGID or _PGID */
	__u32 owner_signum;	/* 0: SIGIO */
};

#define DUMP_MAX_LOCKS_WALKED	1024

/*
 * What dump_epoll walks: the epoll at descriptor @fd of process @pid,
 * from its item number @start (the items of a frozen epoll keep their
 * order).  The same layout as struct dump_ctx.
 */
struct dump_epoll_ctx {
	struct crib_target target;
	__s32 pid;
	__s32 fd;
	__u64 start;
};

/* One file an epoll watches. */
struct dump_epoll_item_rec {
	__u32 kind;		/* DUMP_REC_EPOLL_ITEM */
	__s32 tfd;		/* the descriptor number it was added under */
	__u64 index;		/* its place in the epoll's items, from 0 */
	__u32 events;		/* epoll_event.events */
	__u32 desc;		/* the watched file's number, as dump_files numbers files */
	__u64 data;		/* epoll_event.data */
};

/*
 * One watch of an inotify, as dump_inotify reads it (a dump_epoll_ctx
 * names the inotify).  The path is from the root of the watched inode's
 * filesystem, which crib-dump finds among the mounts by its device.
 */
#define DUMP_WATCH_PATH_MAX 4096
struct dump_inotify_watch_rec {
	__u32 kind;		/* DUMP_REC_INOTIFY_WATCH */
	__s32 wd;
	__u64 index;		/* its place in the instance's watches, from 0 */
	__u32 mask;		/* IN_* as inotify_add_watch() takes it */
	__u32 dev_major;	/* the watched inode's filesystem */
	__u32 dev_minor;
	__s32 path_len;		/* with its NUL; or -errno when it has none */
	__u64 ino;
	char path[DUMP_WATCH_PATH_MAX];
};

/* One entry of sighand->action[], as struct k_sigaction lays it out. */
struct dump_sigaction {
	__u64 handler;		/* SIG_DFL 0, SIG_IGN 1, else a user address */
	__u64 flags;		/* SA_*, kernel-internal bits included */
	__u64 restorer;
	__u64 mask;		/* bit n-1 is signal n */
};

struct dump_sighand_rec {
	__u32 kind;		/* DUMP_REC_SIGHAND */
	__u32 users;		/* tasks sharing the table (sighand->count) */
	__u32 nr_threads;	/* threads of the process */
	__u32 pad;
	struct dump_sigaction action[DUMP_NSIG];	/* action[n-1] is signal n */
};

/* One queued signal, in queue order. */
struct dump_sigqueue_rec {
	__u32 kind;		/* DUMP_REC_SIGQUEUE */
	__u32 flags;		/* SIGQUEUE_PREALLOC (1): a POSIX timer's own signal */
	__u8 info[DUMP_SIGINFO_SIZE];
};

/* What dump_sigqueue saw of a queue besides its entries; sent last. */
struct dump_sigmask_rec {
	__u32 kind;		/* DUMP_REC_SIGMASK */
	__s32 tid;
	__u64 mask;		/* the queue's pending set; bit n-1 is signal n */
	__u32 queue;		/* enum dump_sigqueue_which */
	__u32 n_queued;		/* entries sent */
};

/* An hrtimer as its clock base sees it. */
struct dump_hrtimer {
	__s64 expires;		/* node.expires, in the time of its clock */
	__s64 base_offset;	/* that clock minus CLOCK_MONOTONIC (clock base offset) */
	__s32 base_clockid;
	__u32 state;		/* HRTIMER_STATE_*: nonzero while queued */
	__u32 running;		/* its callback is running right now */
	__u32 pad;
};

struct dump_cpu_itimer {
	__u64 expires;		/* absolute, in process CPU time; 0 when disarmed */
	__u64 incr;
};

/* CPU-time samples in the kernel's CPUCLOCK_* order. */
enum dump_cpuclock {
	DUMP_CPUCLOCK_PROF = 0,	/* utime + stime */
	DUMP_CPUCLOCK_VIRT = 1,	/* utime */
	DUMP_CPUCLOCK_SCHED = 2,	/* sum_exec_runtime */
	DUMP_CPUCLOCK_MAX = 3,
};

/* The process's interval timers; its POSIX timers follow as records of their own. */
struct dump_timers_rec {
	__u32 kind;		/* DUMP_REC_TIMERS */
	__u32 n_posix;		/* POSIX timers sent */
	__s64 now;		/* CLOCK_MONOTONIC when the timers were read, ns */
	struct dump_hrtimer real;	/* ITIMER_REAL: signal->real_timer */
	__s64 real_incr;
	struct dump_cpu_itimer it[2];	/* indexed by CPUCLOCK_PROF, CPUCLOCK_VIRT */
	__u64 group_sample[DUMP_CPUCLOCK_MAX];	/* signal->cputimer; valid when ... */
	__u32 timers_active;	/* ... the group's CPU timer accounting runs */
	__u32 pad;
};

struct dump_posix_timer_rec {
	__u32 kind;		/* DUMP_REC_POSIX_TIMER */
	__s32 id;
	__s32 clock;		/* it_clock */
	__s32 sigev_notify;
	__s32 signo;
	__s32 target;		/* it_pid: the thread (SIGEV_THREAD_ID) or the process signalled */
	__u64 sigev_value;
	__s64 interval;		/* ns */
	__s64 overrun;		/* it_overrun: of the expiry not delivered yet */
	__s64 overrun_last;	/* it_overrun_last: timer_getoverrun() */
	__u32 active;
	__u32 requeue_pending;
	/* timers on hrtimer clocks */
	struct dump_hrtimer hr;
	/* timers on CPU-time clocks */
	__u64 cpu_expires;	/* absolute, in the clock's CPU time; 0 when disarmed */
	__s32 cpu_target;	/* the thread or process whose CPU time counts */
	__u32 cpu_queued;
	__s32 cpu_firing;
	__u32 has_cpu_sample;	/* cpu_sample is valid (the target was found) */
	__u64 cpu_sample[DUMP_CPUCLOCK_MAX];	/* the target's CPU time now */
};

#ifdef __VMLINUX_H__
/*
 * Ring buffer space is not zeroed, and clang cannot inline a memset this
 * large for BPF: clear a record word by word (every record is a multiple
 * of 8 bytes).
 */
static __always_inline void dump_zero(void *rec, unsigned int size)
{
	volatile __u64 *word = rec;	/* volatile: not turned back into memset */
	unsigned int i;

	for (i = 0; i < size / 8; i++)
		word[i] = 0;
}
#endif

_Static_assert(sizeof(struct dump_task_rec) % 8 == 0, "dump_task size");
_Static_assert(sizeof(struct dump_thread_rec) % 8 == 0, "dump_thread size");
_Static_assert(sizeof(struct dump_thread_attrs) % 8 == 0, "dump_thread_attrs size");
_Static_assert(sizeof(struct dump_child_rec) % 8 == 0, "dump_child size");
_Static_assert(sizeof(struct dump_vma_rec) % 8 == 0, "dump_vma size");
_Static_assert(sizeof(struct dump_file_rec) % 8 == 0, "dump_file size");
_Static_assert(sizeof(struct dump_epoll_item_rec) % 8 == 0, "dump_epoll_item size");
_Static_assert(sizeof(struct dump_epoll_ctx) == sizeof(struct dump_ctx), "dump_epoll_ctx size");
_Static_assert(sizeof(struct dump_inotify_watch_rec) % 8 == 0, "dump_inotify_watch size");
_Static_assert(sizeof(struct dump_sighand_rec) % 8 == 0, "dump_sighand size");
_Static_assert(sizeof(struct dump_sigqueue_rec) % 8 == 0, "dump_sigqueue size");
_Static_assert(sizeof(struct dump_sigmask_rec) % 8 == 0, "dump_sigmask size");
_Static_assert(sizeof(struct dump_timers_rec) % 8 == 0, "dump_timers size");
_Static_assert(sizeof(struct dump_posix_timer_rec) % 8 == 0, "dump_posix_timer size");

#endif /* CRIB_DUMP_H */
