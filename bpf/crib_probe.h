/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by crib_probe.bpf.c and its user space: the context the program
 * is run with and the record it sends back.  Fixed-size types only, so
 * both sides agree on the layout.
 */
#ifndef CRIB_PROBE_H
#define CRIB_PROBE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "crib_target.h"

#define CRIB_COMM_LEN 16

/* Return values of the probe program. */
enum crib_probe_result {
	CRIB_PROBE_OK = 0,
	CRIB_PROBE_NO_TASK = 1,		/* no task with that pid */
	CRIB_PROBE_NO_ROOM = 2,		/* ring buffer full */
};

/* The process is both the run's target and what it reads. */
struct crib_probe_ctx {
	struct crib_target target;
	__s32 pid;
};

struct crib_task_basics {
	__s32 pid;
	__s32 tgid;
	__s32 ppid;
	__s32 pgid;
	__s32 sid;
	__u32 uid;
	__u32 gid;
	__u32 euid;
	__u32 egid;
	__u32 nr_threads;
	__u32 map_count;		/* VMAs, not counting the gate area */
	__u32 pad;
	__u64 start_time_ns;		/* CLOCK_MONOTONIC, like task->start_time */
	__u64 total_vm_pages;
	char comm[CRIB_COMM_LEN];
};

#endif /* CRIB_PROBE_H */
