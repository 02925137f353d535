// SPDX-License-Identifier: GPL-2.0
/*
 * The restore area: one shared anonymous mapping holding the restorer's
 * code, its arguments and one stack per thread, placed by map_in_hole()
 * (mapping.c) where the snapshot has no mapping.  This file lays the
 * area out; each kind (mm.c, pages.c, signals.c, timers.c, task.c,
 * threads.c) writes its own part of the arguments into it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "area.h"
#include "kabi.h"
#include "mapping.h"
#include "mm.h"
#include "pages.h"
#include "plan.h"
#include "seccomp.h"
#include "restorer-blob.h"
#include "signals.h"
#include "task.h"
#include "threads.h"
#include "timers.h"

/* Byte offsets of the parts of the area, and its size. */
struct area_layout {
	size_t args, vmas, pages, actions, timers, threads, starts, siginfo, seccomp, close,
	       stacks, size;
	size_t n_vmas, n_siginfo, n_close;
};

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static size_t count_siginfo(const struct restore_plan *plan)
{
	size_t i, n = plan->n_shared_pending;

	for (i = 0; i < plan->threads.n; i++)
		n += plan->threads.items[i].n_pending;
	return n;
}

/* Descriptors the restorer closes: the page store, exe, mapped files and objects. */
static size_t count_close(const struct restore_plan *plan)
{
	size_t i, n = 2;

	for (i = 0; i < plan->vmas.n; i++)
		n += plan->vmas.items[i].v.kind == CRIB_VMA_FILE ||
		     vma_maps_object(&plan->vmas.items[i].v);
	return n;
}

static void plan_layout(const struct restore_plan *plan, struct area_layout *l)
{
	size_t i, off, page = (size_t)sysconf(_SC_PAGESIZE);

	memset(l, 0, sizeof(*l));
	for (i = 0; i < plan->vmas.n; i++)
		l->n_vmas += vma_is_mapped(&plan->vmas.items[i].v);
	l->n_siginfo = count_siginfo(plan);
	l->n_close = count_close(plan);
	off = align_up(restorer_blob_len, 64);
	l->args = off;
	off = align_up(off + sizeof(struct rst_args), 64);
	l->vmas = off;
	off = align_up(off + l->n_vmas * sizeof(struct rst_vma), 64);
	l->pages = off;
	off = align_up(off + plan->pages.n * sizeof(struct rst_pages), 64);
	l->actions = off;
	off = align_up(off + plan->n_actions * sizeof(struct rst_sigaction), 64);
	l->timers = off;
	off = align_up(off + plan->timers.n_posix * sizeof(struct rst_posix_timer), 64);
	l->threads = off;
	off += plan->threads.n * sizeof(struct rst_thread);
	/* The restorer's per-thread start blocks follow the thread array. */
	l->starts = off;
	off = align_up(off + plan->threads.n * 2 * sizeof(uint64_t), 64);
	l->siginfo = off;
	off = align_up(off + l->n_siginfo * sizeof(struct rst_siginfo), 64);
	l->seccomp = off;
	off = align_up(off + seccomp_area_size(plan), 64);
	l->close = off;
	off = align_up(off + l->n_close * sizeof(int32_t), page);
	l->stacks = off;
	off += plan->threads.n * RST_STACK_SIZE;
	l->size = align_up(off, page);
}

int area_create(struct restore_area *area, const struct restore_plan *plan,
		struct tool_error *err)
{
	struct area_layout l;

	memset(area, 0, sizeof(*area));
	plan_layout(plan, &l);
	area->base = map_in_hole(plan, l.size, PROT_READ | PROT_WRITE | PROT_EXEC,
				      MAP_SHARED | MAP_ANONYMOUS);
	if (!area->base)
		return tool_fail(err, 0, "no room for the restorer (%zu bytes) between the "
				 "snapshot's mappings", l.size);
	area->len = l.size;
	memcpy(area->base, restorer_blob, restorer_blob_len);
	area->args = (struct rst_args *)((char *)area->base + l.args);
	area->args->magic = RST_MAGIC;
	area->args->size = sizeof(struct rst_args);
	area->args->area_start = (uint64_t)area->base;
	area->args->area_len = area->len;
	return 0;
}

void area_destroy(struct restore_area *area)
{
	if (area->base)
		munmap(area->base, area->len);
	memset(area, 0, sizeof(*area));
}

static void fill_close(struct rst_args *a, const struct restore_fds *fds,
		       const struct area_layout *l)
{
	int32_t *c = (int32_t *)((char *)a->area_start + l->close);
	size_t i;

	a->close_off = l->close;
	c[a->n_close++] = fds->pages;
	if (fds->exe >= 0)
		c[a->n_close++] = fds->exe;
	for (i = 0; i < fds->n_opened && a->n_close < l->n_close; i++)
		c[a->n_close++] = fds->opened[i];
}

void area_fill(struct restore_area *area, const struct restore_plan *plan,
	       const struct restore_fds *fds)
{
	struct rst_args *a = area->args;
	struct area_layout l;

	plan_layout(plan, &l);
	a->task_size = TASK_SIZE_MAX;
	a->shadows_start = (uint64_t)(uintptr_t)plan->shadows;
	a->shadows_len = plan->shadows_len;
	a->pages_fd = fds->pages;
	mm_fill(a, plan, fds, l.vmas);
	pages_fill(a, plan, l.pages);
	signals_fill(a, plan, l.actions);
	timers_fill(a, plan, l.timers);
	task_fill(a, plan);
	signals_fill_shared(a, plan, threads_fill(a, plan, l.threads, l.siginfo, l.stacks));
	seccomp_fill(a, plan, l.seccomp);
	fill_close(a, fds, &l);
}

const char *area_step_name(uint32_t step)
{
	static const char *const names[] = {
		[RST_STEP_START] = "starting the restorer",
		[RST_STEP_RSEQ] = "unregistering the restore tool's rseq area",
		[RST_STEP_UNMAP] = "unmapping the restore tool",
		[RST_STEP_VDSO] = "mapping the vDSO",
		[RST_STEP_MAP] = "mapping a VMA",
		[RST_STEP_FILL] = "filling memory",
		[RST_STEP_PROTECT] = "setting a VMA's protection or advice",
		[RST_STEP_MM] = "setting the mm layout (prctl PR_SET_MM_MAP)",
		[RST_STEP_SIGACTION] = "installing a signal handler",
		[RST_STEP_ITIMER] = "arming an interval timer",
		[RST_STEP_RLIMIT] = "setting a resource limit",
		[RST_STEP_THREAD] = "creating a thread",
		[RST_STEP_THREAD_STATE] = "setting a thread's state",
		[RST_STEP_SIGQUEUE] = "queueing a pending signal",
		[RST_STEP_POSIX_TIMER] = "creating a POSIX timer",
		[RST_STEP_SECCOMP] = "installing a seccomp filter",
		[RST_STEP_CREDS] = "setting credentials",
		[RST_STEP_SCHED] = "setting SCHED_RESET_ON_FORK",
		[RST_STEP_IOPRIO] = "setting the I/O priority (ioprio_set)",
		[RST_STEP_SPEC_CTRL] = "setting a speculation control (PR_SET_SPECULATION_CTRL)",
		[RST_STEP_SECUREBITS] = "setting securebits (PR_SET_SECUREBITS)",
		[RST_STEP_MEMBARRIER] = "registering with membarrier(2)",
		[RST_STEP_DONE] = "finishing",
	};

	return step < sizeof(names) / sizeof(names[0]) && names[step] ? names[step] : "?";
}
