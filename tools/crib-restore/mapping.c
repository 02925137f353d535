// SPDX-License-Identifier: GPL-2.0
/*
 * Memory crib-restore maps for the new process before it exists: the
 * restore area (area.c) and the shadows (shadow.c).  Both go where the
 * snapshot has no mapping (the restorer unmaps everything else and maps
 * the snapshot's VMAs around them) and where crib-restore itself has none
 * (the child inherits them at the same address), with room to spare from
 * the neighbours so a stack's guard gap is never involved.  And the
 * flags a snapshot's VMA is mapped with, by the restorer or as a shadow,
 * and which VMAs are private anonymous memory.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "kabi.h"
#include "mapping.h"
#include "plan.h"

#define HOLE_ALIGN	(2ULL << 20)
#define HOLE_GAP	(16ULL << 20)		/* kept free around what is placed */
#define HOLE_LOW	(1ULL << 32)		/* stay clear of non-PIE programs */
#define HOLE_TRIES	64			/* places tried each way from a hole's middle */

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Map @len bytes exactly at @addr, where nothing is yet; NULL when that fails. */
static void *try_map(uint64_t addr, size_t len, int prot, int flags)
{
	void *p = mmap((void *)addr, len, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (p != (void *)addr) {	/* a kernel without MAP_FIXED_NOREPLACE */
		munmap(p, len);
		return NULL;
	}
	return p;
}

/*
 * Candidate places in the hole [lo, hi): its middle, then outwards from
 * it a step at a time.  The restore of a tree maps an area and shadows
 * for every process in crib-restore, and processes forked from one
 * another have the same holes: each takes the next free place.
 */
static void *place_in_hole(uint64_t lo, uint64_t hi, size_t len, int prot, int flags)
{
	uint64_t first, last, mid, step, cand;
	void *p;
	int k;

	if (lo < HOLE_LOW)
		lo = HOLE_LOW;
	if (hi > TASK_SIZE_MAX)
		hi = TASK_SIZE_MAX;
	if (hi <= lo || hi - lo < len + 2 * HOLE_GAP + HOLE_ALIGN)
		return NULL;
	first = align_up(lo + HOLE_GAP, HOLE_ALIGN);
	last = (hi - HOLE_GAP - len) & ~(HOLE_ALIGN - 1);
	if (last < first)
		return NULL;
	mid = (first + (last - first) / 2) & ~(HOLE_ALIGN - 1);
	step = align_up(len + HOLE_GAP, HOLE_ALIGN);
	for (k = 0; k < 2 * HOLE_TRIES; k++) {
		/* mid, mid + step, mid - step, mid + 2 step, ... */
		uint64_t dist = (uint64_t)(k + 1) / 2 * step;

		if (k % 2 ? dist > mid - first : dist > last - mid)
			continue;
		cand = k % 2 ? mid - dist : mid + dist;
		p = try_map(cand, len, prot, flags);
		if (p)
			return p;
	}
	return NULL;
}

void *map_in_hole(const struct restore_plan *plan, size_t len, int prot, int flags)
{
	uint64_t prev_end = 0;
	void *p;
	size_t i;

	/* Holes from the top down: the big one below the stack comes first. */
	if (plan->vmas.n) {
		p = place_in_hole(array_last(&plan->vmas)->v.end, TASK_SIZE_MAX, len, prot,
				  flags);
		if (p)
			return p;
	}
	for (i = plan->vmas.n; i-- > 0;) {
		prev_end = i ? plan->vmas.items[i - 1].v.end : 0;
		p = place_in_hole(prev_end, plan->vmas.items[i].v.start, len, prot, flags);
		if (p)
			return p;
	}
	return NULL;
}

uint32_t vma_map_flags(const struct crib_vma *v)
{
	uint32_t flags = (v->flags & CRIB_MAP_SHARED) ? MAP_SHARED : MAP_PRIVATE;

	if (v->kind != CRIB_VMA_FILE)
		flags |= MAP_ANONYMOUS;
	if (v->flags & CRIB_MAP_GROWSDOWN)
		flags |= MAP_GROWSDOWN;
	if (v->flags & CRIB_MAP_NORESERVE)
		flags |= MAP_NORESERVE;
	if (v->flags & CRIB_MAP_LOCKED)
		flags |= MAP_LOCKED;
	return flags;
}

bool vma_private_anon(const struct crib_vma *v)
{
	return (v->kind == CRIB_VMA_ANON || v->kind == CRIB_VMA_HEAP ||
		v->kind == CRIB_VMA_STACK) && !(v->flags & CRIB_MAP_SHARED) &&
	       !(v->flags & CRIB_MAP_LOCKED);
}

/* The VMAs the restorer maps: the kernel provides the vDSO pair itself. */
bool vma_is_mapped(const struct crib_vma *v)
{
	return v->kind != CRIB_VMA_VDSO && v->kind != CRIB_VMA_VVAR &&
	       v->kind != CRIB_VMA_VSYSCALL;
}

/* A VMA that maps a shared memory object of the tree, through a descriptor. */
bool vma_maps_object(const struct crib_vma *v)
{
	return v->kind == CRIB_VMA_SHARED_ANON && v->shmem_id;
}
