// SPDX-License-Identifier: GPL-2.0-only
/* Process and thread records. */
#include "internal.h"

#define R CRIB_FIELD_REQUIRED
#define ID (CRIB_FIELD_REQUIRED | CRIB_FIELD_ID)
#define V CRIB_FIELD_VOLATILE
#define X CRIB_FIELD_HEX

static const struct crib_field rlimit_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_rlimit, resource, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, R, struct crib_rlimit, cur, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_rlimit, max, 0, NULL),
};
static const struct crib_struct_desc rlimit_desc =
	CRIB_DESC("rlimit", struct crib_rlimit, rlimit_fields);

static const struct crib_field process_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_process, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, 0, struct crib_process, tgid, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_process, ppid, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_process, sid, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, 0, struct crib_process, pgid, 0, NULL),
	CRIB_F(6, CRIB_FT_PATH, 0, struct crib_process, comm, 16, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_process, uid, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, 0, struct crib_process, gid, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, 0, struct crib_process, euid, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, 0, struct crib_process, egid, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, 0, struct crib_process, suid, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, 0, struct crib_process, sgid, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, 0, struct crib_process, fsuid, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, 0, struct crib_process, fsgid, 0, NULL),
	CRIB_FA(15, CRIB_FT_UINT_ARRAY, 0, struct crib_process, groups, 65536, NULL),
	CRIB_F(16, CRIB_FT_UINT, X, struct crib_process, cap_eff, 0, NULL),
	CRIB_F(17, CRIB_FT_UINT, X, struct crib_process, cap_prm, 0, NULL),
	CRIB_F(18, CRIB_FT_UINT, X, struct crib_process, cap_inh, 0, NULL),
	CRIB_F(19, CRIB_FT_UINT, X, struct crib_process, cap_bnd, 0, NULL),
	CRIB_F(20, CRIB_FT_UINT, X, struct crib_process, cap_amb, 0, NULL),
	CRIB_F(21, CRIB_FT_UINT, 0, struct crib_process, sched_policy, 0, NULL),
	CRIB_F(22, CRIB_FT_INT, 0, struct crib_process, sched_priority, 0, NULL),
	CRIB_F(23, CRIB_FT_INT, 0, struct crib_process, nice, 0, NULL),
	CRIB_F(24, CRIB_FT_UINT, X, struct crib_process, personality, 0, NULL),
	CRIB_F(25, CRIB_FT_UINT, 0, struct crib_process, umask, 0, NULL),
	CRIB_FA(26, CRIB_FT_STRUCT_ARRAY, 0, struct crib_process, rlimits, 64, &rlimit_desc),
	CRIB_F(27, CRIB_FT_PATH, 0, struct crib_process, cwd, 0, NULL),
	CRIB_F(28, CRIB_FT_PATH, 0, struct crib_process, root, 0, NULL),
	CRIB_F(29, CRIB_FT_PATH, 0, struct crib_process, exe, 0, NULL),
	CRIB_F(30, CRIB_FT_BOOL, 0, struct crib_process, no_new_privs, 0, NULL),
	CRIB_F(31, CRIB_FT_UINT, 0, struct crib_process, dumpable, 0, NULL),
	CRIB_F(32, CRIB_FT_UINT, V, struct crib_process, start_time, 0, NULL),
	CRIB_F(33, CRIB_FT_BOOL, 0, struct crib_process, zombie, 0, NULL),
	CRIB_F(34, CRIB_FT_UINT, X, struct crib_process, exit_status, 0, NULL),
	CRIB_F(35, CRIB_FT_UINT, 0, struct crib_process, stop_signal, 0, NULL),
	CRIB_F(36, CRIB_FT_BOOL, 0, struct crib_process, child_subreaper, 0, NULL),
	CRIB_F(37, CRIB_FT_BOOL, 0, struct crib_process, cwd_unlinked, 0, NULL),
	CRIB_F(38, CRIB_FT_INT, 0, struct crib_process, oom_score_adj, 0, NULL),
	CRIB_F(39, CRIB_FT_UINT, X, struct crib_process, cpus, 0, NULL),
	CRIB_F(40, CRIB_FT_UINT, 0, struct crib_process, timer_slack_ns, 0, NULL),
	CRIB_F(41, CRIB_FT_BOOL, 0, struct crib_process, sched_reset_on_fork, 0, NULL),
	CRIB_F(42, CRIB_FT_UINT, X, struct crib_process, membarrier, 0, NULL),
};
const struct crib_struct_desc crib_process_desc =
	CRIB_DESC("process", struct crib_process, process_fields);

#define REG(k, m) CRIB_F(k, CRIB_FT_UINT, X, struct crib_regs_x86_64, m, 0, NULL)
static const struct crib_field regs_x86_64_fields[] = {
	REG(1, r15), REG(2, r14), REG(3, r13), REG(4, r12), REG(5, rbp), REG(6, rbx),
	REG(7, r11), REG(8, r10), REG(9, r9), REG(10, r8), REG(11, rax), REG(12, rcx),
	REG(13, rdx), REG(14, rsi), REG(15, rdi), REG(16, orig_rax), REG(17, rip),
	REG(18, cs), REG(19, eflags), REG(20, rsp), REG(21, ss), REG(22, fs_base),
	REG(23, gs_base), REG(24, ds), REG(25, es), REG(26, fs), REG(27, gs),
};
#undef REG
static const struct crib_struct_desc regs_x86_64_desc =
	CRIB_DESC("regs-x86-64", struct crib_regs_x86_64, regs_x86_64_fields);

static const struct crib_field sigaltstack_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, X, struct crib_sigaltstack, sp, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, 0, struct crib_sigaltstack, size, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, X, struct crib_sigaltstack, flags, 0, NULL),
};
static const struct crib_struct_desc sigaltstack_desc =
	CRIB_DESC("sigaltstack", struct crib_sigaltstack, sigaltstack_fields);

static const struct crib_field siginfo_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_siginfo, signo, 0, NULL),
	CRIB_F(2, CRIB_FT_BLOB, R, struct crib_siginfo, info, 128, NULL),
};
const struct crib_struct_desc crib_siginfo_desc =
	CRIB_DESC("siginfo", struct crib_siginfo, siginfo_fields);

static const struct crib_field creds_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, 0, struct crib_creds, uid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, 0, struct crib_creds, gid, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_creds, euid, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_creds, egid, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, 0, struct crib_creds, suid, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_creds, sgid, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_creds, fsuid, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, 0, struct crib_creds, fsgid, 0, NULL),
	CRIB_FA(9, CRIB_FT_UINT_ARRAY, 0, struct crib_creds, groups, 65536, NULL),
	CRIB_F(10, CRIB_FT_UINT, X, struct crib_creds, cap_eff, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, X, struct crib_creds, cap_prm, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, X, struct crib_creds, cap_inh, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, X, struct crib_creds, cap_bnd, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, X, struct crib_creds, cap_amb, 0, NULL),
};
static const struct crib_struct_desc creds_desc =
	CRIB_DESC("creds", struct crib_creds, creds_fields);

static const struct crib_field thread_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_thread, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_thread, tid, 0, NULL),
	CRIB_F(3, CRIB_FT_PATH, 0, struct crib_thread, comm, 16, NULL),
	CRIB_F(4, CRIB_FT_STRUCT, 0, struct crib_thread, regs_x86_64, 0, &regs_x86_64_desc),
	CRIB_F(5, CRIB_FT_TEXT, 0, struct crib_thread, regs_arch, 64, NULL),
	CRIB_F(6, CRIB_FT_BLOB, 0, struct crib_thread, regs, 4096, NULL),
	CRIB_F(7, CRIB_FT_BLOB, 0, struct crib_thread, xstate, 65536, NULL),
	CRIB_F(8, CRIB_FT_UINT, X, struct crib_thread, sigmask, 0, NULL),
	CRIB_F(9, CRIB_FT_STRUCT, 0, struct crib_thread, sigaltstack, 0, &sigaltstack_desc),
	CRIB_FA(10, CRIB_FT_STRUCT_ARRAY, 0, struct crib_thread, pending, 4096,
		&crib_siginfo_desc),
	CRIB_F(11, CRIB_FT_UINT, X, struct crib_thread, clear_child_tid, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, X, struct crib_thread, robust_list, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, 0, struct crib_thread, robust_list_len, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, X, struct crib_thread, rseq, 0, NULL),
	CRIB_F(15, CRIB_FT_UINT, 0, struct crib_thread, rseq_len, 0, NULL),
	CRIB_F(16, CRIB_FT_UINT, X, struct crib_thread, rseq_sig, 0, NULL),
	CRIB_F(17, CRIB_FT_UINT, 0, struct crib_thread, pdeath_signal, 0, NULL),
	CRIB_F(18, CRIB_FT_BOOL, 0, struct crib_thread, own_creds, 0, NULL),
	CRIB_F(19, CRIB_FT_STRUCT, 0, struct crib_thread, creds, 0, &creds_desc),
	CRIB_F(20, CRIB_FT_UINT, X, struct crib_thread, ioprio, 0, NULL),
	CRIB_F(21, CRIB_FT_UINT, 0, struct crib_thread, spec_store_bypass, 0, NULL),
	CRIB_F(22, CRIB_FT_UINT, 0, struct crib_thread, spec_indirect_branch, 0, NULL),
	CRIB_F(23, CRIB_FT_UINT, X, struct crib_thread, securebits, 0, NULL),
};
const struct crib_struct_desc crib_thread_desc =
	CRIB_DESC("thread", struct crib_thread, thread_fields);

/* At most BPF_MAXINSNS instructions of 8 bytes. */
static const struct crib_field seccomp_filter_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_seccomp_filter, filter_id, 0, NULL),
	CRIB_F(2, CRIB_FT_BOOL, 0, struct crib_seccomp_filter, log, 0, NULL),
	CRIB_F(3, CRIB_FT_BLOB, R, struct crib_seccomp_filter, insns, 4096 * 8, NULL),
};
const struct crib_struct_desc crib_seccomp_filter_desc =
	CRIB_DESC("seccomp_filter", struct crib_seccomp_filter, seccomp_filter_fields);

static const struct crib_field seccomp_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_seccomp, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_seccomp, tid, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_seccomp, mode, 0, NULL),
	CRIB_FA(4, CRIB_FT_UINT_ARRAY, 0, struct crib_seccomp, filters, 1024, NULL),
};
const struct crib_struct_desc crib_seccomp_desc =
	CRIB_DESC("seccomp", struct crib_seccomp, seccomp_fields);

int crib_write_process(struct crib_writer *w, const struct crib_process *p)
{
	return crib_writer_record(w, CRIB_REC_PROCESS, p);
}

int crib_write_thread(struct crib_writer *w, const struct crib_thread *t)
{
	return crib_writer_record(w, CRIB_REC_THREAD, t);
}

int crib_write_seccomp_filter(struct crib_writer *w, const struct crib_seccomp_filter *f)
{
	return crib_writer_record(w, CRIB_REC_SECCOMP_FILTER, f);
}

int crib_write_seccomp(struct crib_writer *w, const struct crib_seccomp *s)
{
	return crib_writer_record(w, CRIB_REC_SECCOMP, s);
}
