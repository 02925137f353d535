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

#define DUMP_COMM_LEN		16
#define DUMP_NR_RLIMITS		16	/* RLIM_NLIMITS */
#define DUMP_MAX_GROUPS		64
#define DUMP_AUXV_WORDS		50	/* mm->saved_auxv, AT_VECTOR_SIZE on x86_64 */

/* Return values of the dump programs. */
enum dump_result {
	DUMP_OK = 0,
	DUMP_NO_TASK = 1,	/* no task with that pid (it exited) */
	DUMP_NO_ROOM = 2,	/* ring buffer full: consume and run again */
	DUMP_NO_MM = 3,		/* the task has no address space (exiting, or a kthread) */
	DUMP_NOT_OURS = 4,	/* the thread does not belong to the process */
	DUMP_BUSY = 5,		/* the mm lock was taken: try again */
};

enum dump_record_kind {
	DUMP_REC_TASK = 1,
	DUMP_REC_THREAD = 2,
	DUMP_REC_VMA = 3,
	DUMP_REC_FILE = 4,
};

/*
 * What to dump.  @pid names the process (thread group leader) or, for
 * dump_thread, the thread; @tgid the process a thread must belong to.
 * @start resumes a walk cut short by DUMP_NO_ROOM: an address for VMAs,
 * a descriptor for files.
 */
struct dump_ctx {
	__s32 pid;
	__s32 tgid;
	__u64 start;
};

struct dump_rlimit {
	__u64 cur;
	__u64 max;
};

/* An object a path names: a file, a directory. */
struct dump_inode_id {
	__u64 ino;
	__u32 dev;		/* kernel encoding */
	__u32 present;		/* 0 when there is no such object */
};

struct dump_task_rec {
	__u32 kind;		/* DUMP_REC_TASK */
	__s32 pid;
	__s32 tgid;
	__s32 ppid;
	__s32 pgid;
	__s32 sid;
	__u32 nr_threads;
	__u32 ngroups;		/* may exceed DUMP_MAX_GROUPS: then only those are in groups[] */
	char comm[DUMP_COMM_LEN];
	/* credentials */
	__u32 uid, gid, euid, egid, suid, sgid, fsuid, fsgid;
	__u32 groups[DUMP_MAX_GROUPS];
	__u64 cap_eff, cap_prm, cap_inh, cap_bnd, cap_amb;
	/* scheduling and process attributes */
	__u32 sched_policy;
	__u32 rt_priority;
	__s32 nice;
	__u32 personality;
	__u32 umask;
	__u32 no_new_privs;
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
_Static_assert(sizeof(struct dump_vma_rec) % 8 == 0, "dump_vma size");
_Static_assert(sizeof(struct dump_file_rec) % 8 == 0, "dump_file size");

#endif /* CRIB_DUMP_H */
