/* SPDX-License-Identifier: GPL-2.0-only */
/* Process and thread records. */
#ifndef CRIB_PROCESS_H
#define CRIB_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crib/types.h>

struct crib_writer;

struct crib_rlimit {
	uint64_t resource;		/* RLIMIT_* */
	uint64_t cur;			/* RLIM_INFINITY is UINT64_MAX */
	uint64_t max;
};

struct crib_process {
	uint64_t pid;
	uint64_t tgid;
	uint64_t ppid;
	uint64_t sid;
	uint64_t pgid;
	const char *comm;
	uint64_t uid, gid, euid, egid, suid, sgid, fsuid, fsgid;
	const uint64_t *groups;
	size_t n_groups;
	uint64_t cap_eff, cap_prm, cap_inh, cap_bnd, cap_amb;
	uint64_t sched_policy;
	int64_t sched_priority;
	int64_t nice;
	uint64_t personality;
	uint64_t umask;
	const struct crib_rlimit *rlimits;
	size_t n_rlimits;
	const char *cwd;
	const char *root;
	const char *exe;
	bool no_new_privs;
	uint64_t dumpable;
	uint64_t start_time;		/* ns since boot */
	/* 1.1 */
	bool zombie;			/* exited, not waited for: no other records */
	uint64_t exit_status;		/* a zombie's wait(2) status */
	uint64_t stop_signal;		/* stopped by job control; 0 running */
	bool child_subreaper;
	bool cwd_unlinked;		/* 1.2: the working directory was removed */
	/* 1.6 */
	int64_t oom_score_adj;		/* /proc/PID/oom_score_adj */
	uint64_t cpus;			/* CPU affinity, bit n CPU n; 0: not recorded */
	uint64_t timer_slack_ns;	/* PR_SET_TIMERSLACK; 0: not recorded */
	/* 1.8 */
	bool sched_reset_on_fork;	/* SCHED_RESET_ON_FORK, in every thread */
	uint64_t membarrier;		/* MEMBARRIER_CMD_REGISTER_* bits; 0 none */
};

/* A thread's credentials, when they are not its process's (1.1). */
struct crib_creds {
	uint64_t uid, gid, euid, egid, suid, sgid, fsuid, fsgid;
	const uint64_t *groups;
	size_t n_groups;
	uint64_t cap_eff, cap_prm, cap_inh, cap_bnd, cap_amb;
};

/* x86_64 struct user_regs_struct, field for field. */
struct crib_regs_x86_64 {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs, eflags, rsp, ss;
	uint64_t fs_base, gs_base, ds, es, fs, gs;
};

struct crib_sigaltstack {
	uint64_t sp;
	uint64_t size;
	uint64_t flags;
};

/* A queued signal: number and the raw 128-byte siginfo_t. */
struct crib_siginfo {
	uint64_t signo;
	struct crib_blob info;
};

struct crib_thread {
	uint64_t pid;			/* thread group id */
	uint64_t tid;
	const char *comm;
	struct crib_regs_x86_64 regs_x86_64;	/* when the header arch is x86_64 */
	const char *regs_arch;		/* other architectures: tag ... */
	struct crib_blob regs;		/* ... and the ptrace regset bytes */
	struct crib_blob xstate;	/* FPU/extended state, XSAVE layout on x86 */
	uint64_t sigmask;		/* blocked; bit n-1 is signal n */
	struct crib_sigaltstack sigaltstack;
	const struct crib_siginfo *pending;
	size_t n_pending;
	uint64_t clear_child_tid;
	uint64_t robust_list;
	uint64_t robust_list_len;
	uint64_t rseq;			/* registered rseq area, 0 for none */
	uint64_t rseq_len;
	uint64_t rseq_sig;
	/* 1.1 */
	uint64_t pdeath_signal;		/* PR_SET_PDEATHSIG, 0 none */
	bool own_creds;			/* creds holds them; else the process's */
	struct crib_creds creds;
	/* 1.8: 0 for each, the default */
	uint64_t ioprio;		/* ioprio_set(2): class << 13 | level */
	uint64_t spec_store_bypass;	/* PR_SPEC_DISABLE, _FORCE_DISABLE or _DISABLE_NOEXEC */
	uint64_t spec_indirect_branch;	/* PR_SPEC_DISABLE or _FORCE_DISABLE */
	uint64_t securebits;		/* PR_SET_SECUREBITS, lock bits included */
};

/*
 * 1.8: a seccomp filter, as the thread that installed it gave it to
 * seccomp(2): classic BPF, struct sock_filter[] in the host's byte order.
 * One record per filter object, which threads and processes may share.
 */
struct crib_seccomp_filter {
	uint64_t filter_id;		/* from 1, unique in the snapshot */
	bool log;			/* SECCOMP_FILTER_FLAG_LOG */
	struct crib_blob insns;		/* 8 bytes each, 1 to 4096 of them */
};

enum crib_seccomp_mode {
	CRIB_SECCOMP_STRICT = 1,	/* SECCOMP_MODE_STRICT */
	CRIB_SECCOMP_FILTER = 2,	/* SECCOMP_MODE_FILTER */
};

/* 1.8: a thread's seccomp mode and the filters it runs under. */
struct crib_seccomp {
	uint64_t pid;
	uint64_t tid;
	uint64_t mode;			/* enum crib_seccomp_mode */
	const uint64_t *filters;	/* filter_ids, the first installed first */
	size_t n_filters;
};

extern const struct crib_struct_desc crib_process_desc;
extern const struct crib_struct_desc crib_thread_desc;
extern const struct crib_struct_desc crib_seccomp_filter_desc;
extern const struct crib_struct_desc crib_seccomp_desc;

int crib_write_process(struct crib_writer *w, const struct crib_process *p);
int crib_write_thread(struct crib_writer *w, const struct crib_thread *t);
int crib_write_seccomp_filter(struct crib_writer *w, const struct crib_seccomp_filter *f);
int crib_write_seccomp(struct crib_writer *w, const struct crib_seccomp *s);

#endif /* CRIB_PROCESS_H */
