// SPDX-License-Identifier: GPL-2.0
/*
 * The restore area: one shared anonymous mapping holding the restorer's
 * code, its arguments and one stack per thread, placed by map_in_hole()
 * (mapping.c) where the snapshot has no mapping.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crib-restore.h"
#include "kabi.h"
#include "restorer-blob.h"

/* Byte offsets of the parts of the area, and its size. */
struct area_layout {
	size_t args, vmas, pages, actions, timers, threads, starts, siginfo, close, stacks, size;
	size_t n_vmas, n_siginfo, n_close;
};

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* The VMAs the restorer maps: the kernel provides the vDSO pair itself. */
static bool vma_is_mapped(const struct crib_vma *v)
{
	return v->kind != CRIB_VMA_VDSO && v->kind != CRIB_VMA_VVAR &&
	       v->kind != CRIB_VMA_VSYSCALL;
}

static size_t count_siginfo(const struct restore_plan *plan)
{
	size_t i, n = plan->n_shared_pending;

	for (i = 0; i < plan->threads.n; i++)
		n += plan->threads.items[i].n_pending;
	return n;
}

/* A VMA that maps a shared memory object of the tree, through a descriptor. */
static bool vma_maps_object(const struct crib_vma *v)
{
	return v->kind == CRIB_VMA_SHARED_ANON && v->shmem_id;
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

static uint32_t prot_of(uint64_t crib_prot)
{
	return (uint32_t)(crib_prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
}

_Static_assert(RST_ADV_SEQUENTIAL == CRIB_ADV_SEQUENTIAL && RST_ADV_RANDOM == CRIB_ADV_RANDOM &&
	       RST_ADV_DONTFORK == CRIB_ADV_DONTFORK && RST_ADV_WIPEONFORK == CRIB_ADV_WIPEONFORK &&
	       RST_ADV_DONTDUMP == CRIB_ADV_DONTDUMP && RST_ADV_HUGEPAGE == CRIB_ADV_HUGEPAGE &&
	       RST_ADV_NOHUGEPAGE == CRIB_ADV_NOHUGEPAGE && RST_ADV_MERGEABLE == CRIB_ADV_MERGEABLE,
	       "the restorer's advice bits are the format's");

static void fill_vmas(struct rst_args *a, const struct restore_plan *plan,
		      const struct restore_fds *fds, struct rst_vma *out)
{
	const struct crib_vma *v;
	size_t i;

	for (i = 0; i < plan->vmas.n; i++) {
		v = &plan->vmas.items[i].v;
		if (!vma_is_mapped(v))
			continue;
		out->start = v->start;
		out->end = v->end;
		out->prot = prot_of(v->prot);
		/* Writable while the contents go in; the final protection after. */
		out->map_prot = plan->vmas.items[i].has_data ? out->prot | PROT_READ | PROT_WRITE :
			out->prot;
		/* A shadow comes as it is in this process, readable and writable. */
		out->shadow = (uint64_t)(uintptr_t)plan->vmas.items[i].shadow;
		if (out->shadow)
			out->map_prot = PROT_READ | PROT_WRITE;
		out->direct = plan->vmas.items[i].direct;
		out->advice = (uint32_t)v->advice;
		a->n_direct += out->direct;
		out->flags = vma_map_flags(v);
		out->fd = v->kind == CRIB_VMA_FILE ? fds->vma[i] : -1;
		out->offset = v->kind == CRIB_VMA_FILE ? v->pgoff * plan->header.page_size : 0;
		if (vma_maps_object(v)) {
			/* one object for the tree, filled already: mapped as a file */
			out->flags &= ~(uint32_t)MAP_ANONYMOUS;
			out->fd = fds->vma[i];
			out->offset = v->pgoff * plan->header.page_size;
			out->map_prot = out->prot;
		}
		out++;
		a->n_vmas++;
	}
}

static void fill_vdso(struct rst_args *a, const struct restore_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->vmas.n; i++)
		if (plan->vmas.items[i].v.kind == CRIB_VMA_VVAR)
			a->vvar_start = plan->vmas.items[i].v.start;
}

static void fill_mm(struct rst_args *a, const struct restore_plan *plan, int exe_fd)
{
	const struct crib_mm *mm = &plan->mm;
	size_t auxv_len = mm->auxv.len;

	if (auxv_len > sizeof(a->auxv))
		auxv_len = sizeof(a->auxv);
	a->mm = (struct prctl_mm_map) {
		.start_code = mm->start_code, .end_code = mm->end_code,
		.start_data = mm->start_data, .end_data = mm->end_data,
		.start_brk = mm->start_brk, .brk = mm->brk,
		.start_stack = mm->start_stack,
		.arg_start = mm->arg_start, .arg_end = mm->arg_end,
		.env_start = mm->env_start, .env_end = mm->env_end,
		.auxv = a->auxv, .auxv_size = (uint32_t)auxv_len, .exe_fd = (uint32_t)exe_fd,
	};
	memcpy(a->auxv, mm->auxv.data, auxv_len);
}

static void ns_to_timeval(uint64_t ns, struct rst_timeval *tv)
{
	tv->sec = (int64_t)(ns / 1000000000ULL);
	tv->usec = (int64_t)(ns % 1000000000ULL / 1000);
	/* A timer due in under a microsecond is still armed. */
	if (ns && !tv->sec && !tv->usec)
		tv->usec = 1;
}

static void fill_signals(struct rst_args *a, const struct restore_plan *plan,
			 struct rst_sigaction *sa)
{
	const struct crib_itimer *it[3] = {
		&plan->timers.real, &plan->timers.virt, &plan->timers.prof,
	};
	size_t i;

	for (i = 0; i < plan->n_actions; i++) {
		sa[i] = (struct rst_sigaction) {
			.handler = plan->actions[i].handler,
			.flags = plan->actions[i].flags,
			.restorer = plan->actions[i].restorer,
			.mask = plan->actions[i].mask,
			.signo = (uint32_t)plan->actions[i].signo,
		};
	}
	a->n_actions = plan->n_actions;
	for (i = 0; plan->have_timers && i < 3; i++) {
		if (!it[i]->value_ns)
			continue;
		ns_to_timeval(it[i]->interval_ns, &a->itimers[i].interval);
		ns_to_timeval(it[i]->value_ns, &a->itimers[i].value);
		a->itimers_set |= 1u << i;
	}
}

static void ns_to_timespec(uint64_t ns, struct rst_timespec *ts)
{
	ts->sec = (int64_t)(ns / 1000000000ULL);
	ts->nsec = (int64_t)(ns % 1000000000ULL);
}

static void fill_posix_timers(struct rst_args *a, const struct restore_plan *plan,
			      const struct area_layout *l)
{
	struct rst_posix_timer *out = (struct rst_posix_timer *)((char *)a->area_start +
								  l->timers);
	const struct crib_posix_timer *pt;
	size_t i;

	a->timers_off = l->timers;
	a->n_timers = plan->timers.n_posix;
	for (i = 0; i < plan->timers.n_posix; i++) {
		pt = &plan->timers.posix[i];
		out[i] = (struct rst_posix_timer) {
			.id = (int32_t)pt->id, .clockid = (int32_t)pt->clockid,
			.signo = (uint32_t)pt->signo, .notify = (uint32_t)pt->notify,
			.sigev_value = pt->sigev_value, .notify_tid = (int32_t)pt->notify_tid,
		};
		ns_to_timespec(pt->interval_ns, &out[i].interval);
		ns_to_timespec(pt->value_ns, &out[i].value);
	}
}

static void fill_process(struct rst_args *a, const struct restore_plan *plan)
{
	const struct crib_process *p = &plan->proc;
	size_t i;

	a->tgid = (int32_t)p->pid;
	for (i = 0; i < p->n_rlimits; i++) {
		if (p->rlimits[i].resource >= RST_NR_RLIMITS)
			continue;
		a->rlimits[p->rlimits[i].resource] =
			(struct rst_rlimit){ p->rlimits[i].cur, p->rlimits[i].max };
		a->rlimits_set |= 1u << p->rlimits[i].resource;
	}
	a->dumpable = p->dumpable == 1 ? 1 : 0;
}

/* A thread's credentials: its own, or, as most have, its process's. */
static void fill_creds(struct rst_creds *c, const struct restore_plan *plan,
		       const struct plan_thread *pt)
{
	const struct crib_process *p = &plan->proc;
	struct crib_creds cr = {
		.uid = p->uid, .gid = p->gid, .euid = p->euid, .egid = p->egid,
		.suid = p->suid, .sgid = p->sgid, .fsuid = p->fsuid, .fsgid = p->fsgid,
		.groups = p->groups, .n_groups = p->n_groups,
		.cap_eff = p->cap_eff, .cap_prm = p->cap_prm, .cap_inh = p->cap_inh,
	};
	size_t i;

	if (pt->own_creds)
		cr = pt->creds;
	*c = (struct rst_creds) {
		.uid = (uint32_t)cr.uid, .euid = (uint32_t)cr.euid, .suid = (uint32_t)cr.suid,
		.fsuid = (uint32_t)cr.fsuid, .gid = (uint32_t)cr.gid, .egid = (uint32_t)cr.egid,
		.sgid = (uint32_t)cr.sgid, .fsgid = (uint32_t)cr.fsgid,
		.cap_eff = cr.cap_eff, .cap_prm = cr.cap_prm, .cap_inh = cr.cap_inh,
	};
	c->n_groups = cr.n_groups < RST_MAX_GROUPS ? (uint32_t)cr.n_groups : RST_MAX_GROUPS;
	for (i = 0; i < c->n_groups; i++)
		c->groups[i] = (uint32_t)cr.groups[i];
	/* Anything but the restorer's own root credentials needs changing. */
	c->change = cr.uid || cr.euid || cr.suid || cr.fsuid || cr.gid || cr.egid ||
		    cr.sgid || cr.fsgid || cr.n_groups || cr.cap_eff != cr.cap_prm || cr.cap_inh;
}

static uint64_t fill_thread(struct rst_thread *t, const struct restore_plan *plan,
			    const struct plan_thread *pt, uint64_t stack_top, uint64_t pending_off)
{
	memset(t, 0, sizeof(*t));
	fill_creds(&t->creds, plan, pt);
	t->pdeath_signal = (int32_t)pt->pdeath_signal;
	t->tid = pt->tid;
	t->stack_top = stack_top;
	t->altstack_sp = pt->altstack.sp;
	t->altstack_size = pt->altstack.size;
	t->altstack_flags = pt->altstack.size ? (uint32_t)pt->altstack.flags : 0;
	t->n_pending = (uint32_t)pt->n_pending;
	t->pending_off = pending_off;
	t->clear_child_tid = pt->clear_child_tid;
	t->robust_list = pt->robust_list;
	t->robust_list_len = pt->robust_list_len;
	t->rseq_abi = pt->rseq;
	t->rseq_len = (uint32_t)pt->rseq_len;
	t->rseq_sig = (uint32_t)pt->rseq_sig;
	memcpy(t->comm, pt->comm, sizeof(t->comm));
	t->comm[RST_COMM_LEN - 1] = '\0';
	return pending_off + pt->n_pending * sizeof(struct rst_siginfo);
}

static void copy_siginfo(struct rst_siginfo *out, const struct plan_siginfo *in, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[i].signo = in[i].signo;
		memcpy(out[i].info, in[i].info, RST_SIGINFO_SIZE);
	}
}

static void fill_threads(struct rst_args *a, const struct restore_plan *plan,
			 const struct area_layout *l)
{
	char *base = (char *)a->area_start;
	struct rst_thread *t = (struct rst_thread *)(base + l->threads);
	uint64_t off = l->siginfo;
	size_t i;

	a->threads_off = l->threads;
	a->n_threads = plan->threads.n;
	for (i = 0; i < plan->threads.n; i++) {
		copy_siginfo((struct rst_siginfo *)(base + off), plan->threads.items[i].pending,
			     plan->threads.items[i].n_pending);
		off = fill_thread(&t[i], plan, &plan->threads.items[i],
				  a->area_start + l->stacks + (i + 1) * RST_STACK_SIZE, off);
	}
	a->shared_off = off;
	a->n_shared = plan->n_shared_pending;
	copy_siginfo((struct rst_siginfo *)(base + off), plan->shared_pending,
		     plan->n_shared_pending);
}

static void fill_pages(struct rst_args *a, const struct restore_plan *plan,
		       const struct area_layout *l)
{
	struct rst_pages *p = (struct rst_pages *)((char *)a->area_start + l->pages);
	size_t i;

	for (i = 0; i < plan->pages.n; i++)
		p[i] = (struct rst_pages){ plan->pages.items[i].addr, plan->pages.items[i].len,
					   plan->pages.items[i].offset };
	a->pages_off = l->pages;
	a->n_pages = plan->pages.n;
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
	a->vmas_off = l.vmas;
	fill_vmas(a, plan, fds, (struct rst_vma *)((char *)area->base + l.vmas));
	fill_vdso(a, plan);
	fill_pages(a, plan, &l);
	fill_mm(a, plan, fds->exe);
	a->actions_off = l.actions;
	fill_signals(a, plan, (struct rst_sigaction *)((char *)area->base + l.actions));
	fill_posix_timers(a, plan, &l);
	fill_process(a, plan);
	fill_threads(a, plan, &l);
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
		[RST_STEP_CREDS] = "setting credentials",
		[RST_STEP_DONE] = "finishing",
	};

	return step < sizeof(names) / sizeof(names[0]) && names[step] ? names[step] : "?";
}
