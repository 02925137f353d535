// SPDX-License-Identifier: GPL-2.0
/*
 * Shadows: private anonymous memory whose contents are not left in a
 * mapped snapshot (direct.c: compressed runs, or a snapshot read from a
 * pipe) waits for the restorer in this process, in one mapping per VMA
 * laid out like the VMA (its shadow), rather than in the page store.  The new process inherits the shadows
 * (copy-on-write, so no copy) and the restorer moves each into place with
 * mremap(), pages and all: the contents are copied once, from the
 * snapshot into the shadow, where the page store costs a second copy, from
 * the store into place.
 *
 * All shadows lie in one reservation, placed like the restore area where
 * the snapshot has no mapping, so neither the restorer's unmapping nor
 * its mapping of the VMAs touches them before they are moved.  When
 * there is no room for them, or a VMA's shadow cannot be made, its pages
 * go to the page store as before.
 *
 * While the snapshot is read, shadow_fill.c fills the shadows.
 */
#include <sys/mman.h>

#include "mapping.h"
#include "plan.h"
#include "shadow.h"
#include "shadow_fill.h"

#define SHADOWS_MAX	(1ULL << 47)	/* a 4-level user address space */

/*
 * Reserve room for every shadow, once the VMAs are known: each VMA that
 * can have one gets its place, a page apart from the next.
 */
static void reserve(struct restore_plan *plan)
{
	uint64_t len = 0, page = plan->header.page_size;
	struct plan_vma *pv;
	size_t i;
	void *p;

	for (i = 0; i < plan->vmas.n; i++) {
		pv = &plan->vmas.items[i];
		if (!vma_private_anon(&pv->v))
			continue;
		/* More than a user address space holds: no room, surely. */
		if (len > SHADOWS_MAX - page ||
		    pv->v.end - pv->v.start > SHADOWS_MAX - page - len) {
			plan->no_shadows = true;
			return;
		}
		pv->shadow_off = len;
		len += pv->v.end - pv->v.start + page;
	}
	p = len ? map_in_hole(plan, len, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE) : NULL;
	if (!p) {
		plan->no_shadows = true;
		return;
	}
	plan->shadows = p;
	plan->shadows_len = len;
	for (i = 0; i < plan->vmas.n; i++)
		plan->vmas.items[i].shadow_room = vma_private_anon(&plan->vmas.items[i].v);
}

/* The VMA holding all of [addr, addr + len), or NULL. */
static struct plan_vma *vma_holding(struct restore_plan *plan, uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi = plan->vmas.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (plan->vmas.items[mid].v.end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == plan->vmas.n || plan->vmas.items[lo].v.start > addr ||
	    len > plan->vmas.items[lo].v.end - addr)
		return NULL;
	return &plan->vmas.items[lo];
}

static int make_shadow(struct restore_plan *plan, struct plan_vma *pv,
		       struct shadow_filler *filler)
{
	char *at = (char *)plan->shadows + pv->shadow_off;
	size_t len = pv->v.end - pv->v.start;
	void *p;

	p = mmap(at, len, PROT_READ | PROT_WRITE,
		 (int)(vma_map_flags(&pv->v) | MAP_FIXED), -1, 0);
	if (p != at) {
		/* Give its room back to the reservation; the page store takes its pages. */
		if (p != MAP_FAILED)
			munmap(p, len);
		mmap(at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		     -1, 0);
		pv->shadow_room = false;
		return -1;
	}
	pv->shadow = p;
	pv->shadow_filled = shadow_fill_register(filler, p, len);
	return 0;
}

bool shadow_take(struct restore_plan *plan, struct shadow_filler *filler, uint64_t addr,
		 const void *data, uint64_t len, bool data_in_input)
{
	struct fill_run run;
	struct plan_vma *pv;

	if (!plan->shadows && !plan->no_shadows)
		reserve(plan);
	if (plan->no_shadows)
		return false;
	pv = vma_holding(plan, addr, len);
	if (!pv || !pv->shadow_room)
		return false;
	if (!pv->shadow && make_shadow(plan, pv, filler))
		return false;
	run = (struct fill_run){
		.to = (char *)pv->shadow + (addr - pv->v.start),
		.data = data,
		.len = len,
		.shadow = pv->shadow,
		.shadow_len = pv->v.end - pv->v.start,
		.page = plan->header.page_size,
		.registered = pv->shadow_filled,
	};
	pv->shadow_filled = shadow_fill(filler, &run, data_in_input);
	plan->shadow_bytes += len;
	return true;
}

void shadow_let_go(const struct restore_plan *plan)
{
	if (plan->shadows)
		madvise(plan->shadows, plan->shadows_len, MADV_DONTNEED);
}

void shadow_free(struct restore_plan *plan)
{
	if (plan->shadows)
		munmap(plan->shadows, plan->shadows_len);
	plan->shadows = NULL;
	plan->shadows_len = 0;
}
