/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The head of a CRIB program's context that names the run's target, as
 * the kernel's struct bpf_crib_ctx (include/uapi/linux/bpf_crib.h) lays
 * it out; shared by the programs and the tools that run them.  A run with
 * CRIB_RUN_TARGET reaches the target's threads and descendants through
 * bpf_crib_task_from_vpid(), and the caller must be allowed to ptrace it.
 */
#ifndef CRIB_TARGET_H
#define CRIB_TARGET_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* BPF_F_CRIB_TARGET, the BPF_PROG_RUN flag saying the context has one */
#define CRIB_RUN_TARGET	(1U << 0)

struct crib_target {
	__s32 pidfd;	/* the process the run is about */
	__u32 flags;	/* zero */
};

#endif /* CRIB_TARGET_H */
