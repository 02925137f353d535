/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel values the tools need that no header of the distribution gives
 * them: the kernel's internal flags a CRIB program reads from its
 * structures (VM_*, MMF_*, FMODE_*, ...), and uapi values newer than the
 * distribution's headers.  Each is the kernel's, from the file named;
 * they are part of what the CRIB kernel (Linux 6.12) exposes.
 *
 * Socket states are the snapshot's vocabulary: CRIB_SK_* in
 * <crib/sockets.h>, numbered as the kernel numbers sk_state.
 */
#ifndef CRIB_TOOL_KABI_H
#define CRIB_TOOL_KABI_H

#include <linux/fs.h>
#include <linux/types.h>
#include <sys/ioctl.h>

/* include/linux/mm.h: vm_area_struct.vm_flags */
#define VM_READ			0x00000001UL
#define VM_WRITE		0x00000002UL
#define VM_EXEC			0x00000004UL
#define VM_MAYWRITE		0x00000020UL
#define VM_MAYSHARE		0x00000080UL
#define VM_GROWSDOWN		0x00000100UL
#define VM_PFNMAP		0x00000400UL
#define VM_LOCKED		0x00002000UL
#define VM_IO			0x00004000UL
#define VM_SEQ_READ		0x00008000UL	/* MADV_SEQUENTIAL */
#define VM_RAND_READ		0x00010000UL	/* MADV_RANDOM */
#define VM_DONTCOPY		0x00020000UL	/* MADV_DONTFORK */
#define VM_LOCKONFAULT		0x00080000UL	/* mlock2(MLOCK_ONFAULT) */
#define VM_NORESERVE		0x00200000UL
#define VM_HUGETLB		0x00400000UL
#define VM_WIPEONFORK		0x02000000UL	/* MADV_WIPEONFORK */
#define VM_DONTDUMP		0x04000000UL	/* MADV_DONTDUMP */
#define VM_HUGEPAGE		0x20000000UL	/* MADV_HUGEPAGE */
#define VM_NOHUGEPAGE		0x40000000UL	/* MADV_NOHUGEPAGE */
#define VM_MERGEABLE		0x80000000UL	/* MADV_MERGEABLE */

/* include/linux/pid_types.h: enum pid_type, in the order of F_OWNER_TID, _PID, _PGRP */
#define PIDTYPE_PID		0
#define PIDTYPE_TGID		1
#define PIDTYPE_PGID		2

/* include/linux/sched/coredump.h: mm_struct.flags */
#define MMF_DUMPABLE_MASK	0x3ULL
#define MMF_DUMP_FILTER_SHIFT	2		/* the coredump filter, 9 bits */
#define MMF_DUMP_FILTER_MASK	(0x1ffULL << MMF_DUMP_FILTER_SHIFT)
#define MMF_DISABLE_THP_MASK	(1ULL << 24)	/* PR_SET_THP_DISABLE */
/*
 * The mm flags that are the process's state: those a new mm takes over on
 * fork (MMF_INIT_MASK: dumpable, coredump filter, THP disabled, MDWE, KSM
 * merge-any, top-down layout) and MDWE's no-inherit bit.  The rest is the
 * kernel's bookkeeping (pages ever pinned, uprobes, OOM handling), which a
 * restored process need not share.
 */
#define MMF_STATE_MASK		0xf10007ffULL

/* arch/x86/include/asm/page_64_types.h, with 4-level paging: the top of user space */
#define TASK_SIZE_MAX		0x7ffffffff000ULL

/* include/linux/fs.h: file.f_mode */
#define FMODE_READ		0x1
#define FMODE_WRITE		0x2

/* include/net/tcp.h */
#define TCP_URG_VALID		0x0100	/* tcp_sock.urg_data */
#define TCPHDR_FIN		0x01	/* tcp_skb_cb.tcp_flags */
#define TCPHDR_SYN		0x02
#define TCP_RTO_MAX_SECS	120	/* TCP_RTO_MAX / HZ */

/* include/linux/sched.h: task_struct.flags (the 9th field of /proc/PID/stat) */
#define PF_EXITING		0x00000004

/* include/linux/sched.h: task_struct.atomic_flags, PR_SET_SPECULATION_CTRL's */
#define PFA_SPEC_SSB_DISABLE		(1u << 3)
#define PFA_SPEC_SSB_FORCE_DISABLE	(1u << 4)
#define PFA_SPEC_IB_DISABLE		(1u << 5)
#define PFA_SPEC_IB_FORCE_DISABLE	(1u << 6)
#define PFA_SPEC_SSB_NOEXEC		(1u << 7)

/* include/linux/sched/mm.h: mm_struct.membarrier_state */
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_READY		(1u << 0)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED			(1u << 1)
#define MEMBARRIER_STATE_GLOBAL_EXPEDITED_READY			(1u << 2)
#define MEMBARRIER_STATE_GLOBAL_EXPEDITED			(1u << 3)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE_READY	(1u << 4)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE		(1u << 5)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ_READY		(1u << 6)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ			(1u << 7)
/* include/linux/sched.h: task_struct.exit_state */
#define EXIT_ZOMBIE		0x00000020

/* include/linux/sched.h: an endless sk_rcvtimeo, sk_sndtimeo */
#define MAX_SCHEDULE_TIMEOUT	0x7fffffffffffffffULL	/* LONG_MAX */

/* include/linux/signal_types.h: k_sigaction.sa.sa_flags */
#define SA_IMMUTABLE		0x00800000UL	/* the task is being killed */

/* include/linux/posix-timers.h: k_itimer.it_requeue_pending */
#define REQUEUE_PENDING		1

/* include/linux/posix-timers_types.h: clockid_t of a CPU-time clock */
#define CPUCLOCK_PERTHREAD	4
#define CPUCLOCK_CLOCK_MASK	3
#define CLOCKFD			3

/* include/linux/errno.h: restart codes a stopped system call shows in rax */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516

/* Newer uapi than distribution headers may have. */
#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX	62
#endif
#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK		72
#endif
#ifndef SOCK_BUF_LOCK_MASK
#define SOCK_BUF_LOCK_MASK	3	/* SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK */
#endif
#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT	24
#endif
#ifndef TCP_REPAIR_WINDOW
#define TCP_REPAIR_WINDOW	29
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT		103
#endif
#ifndef UDP_GRO
#define UDP_GRO			104
#endif

/* include/uapi/linux/fs.h: PAGEMAP_SCAN (Linux 6.7) */
#ifndef PAGEMAP_SCAN
#define PAGEMAP_SCAN		_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_FILE		(1 << 2)
#define PAGE_IS_PRESENT		(1 << 3)
#define PAGE_IS_SWAPPED		(1 << 4)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};
#endif
#ifndef PAGE_IS_PFNZERO
#define PAGE_IS_PFNZERO		(1 << 5)
#define PAGE_IS_SOFT_DIRTY	(1 << 7)
#endif

#endif /* CRIB_TOOL_KABI_H */
