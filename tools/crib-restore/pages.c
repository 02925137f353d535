// SPDX-License-Identifier: GPL-2.0
/*
 * Memory contents, and where each run of pages waits for the restorer:
 * the page placement policy.  A run of a shared memory object goes into
 * the object (shmem.c); one whose data stays in the mapped snapshot, or a
 * zero run, is left there to be copied straight into the new process
 * (direct.c); the rest go to a shadow of their VMA (shadow.c) or to the
 * page store.  A zero run (populated pages that read as zeros) is a hole
 * in the store: it takes no memory, and filling from it makes the pages
 * present again, and zero rather than the file's bytes in a private file
 * mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "direct.h"
#include "pages.h"
#include "plan.h"
#include "shadow.h"
#include "shmem.h"

/* The VMA of @plan holding [addr, addr + len), or NULL. */
static struct plan_vma *vma_at(const struct restore_plan *plan, uint64_t addr, uint64_t len)
{
	for (size_t i = plan->vmas.n; i-- > 0;) {
		struct plan_vma *pv = &plan->vmas.items[i];

		if (pv->v.start <= addr && len <= pv->v.end - addr)
			return pv;
	}
	return NULL;
}

/*
 * [@addr, +@len) among the runs the restorer fills: from @offset in the
 * page store, or RST_IN_PLACE (a shadow's, to make writable).
 */
static int add_run(struct restore_plan *plan, uint64_t addr, uint64_t len, uint64_t offset,
		   struct tool_error *err)
{
	struct plan_pages *pp = plan->pages.n ? &plan->pages.items[plan->pages.n - 1] : NULL;

	if (pp && pp->addr + pp->len == addr &&
	    (offset == RST_IN_PLACE ? pp->offset == RST_IN_PLACE :
	     pp->offset != RST_IN_PLACE && pp->offset + pp->len == offset)) {
		pp->len += len;		/* one run split across records */
		return 0;
	}
	pp = array_push(&plan->pages);
	if (!pp)
		return tool_fail(err, 0, "out of memory");
	*pp = (struct plan_pages){ addr, len, offset };
	return 0;
}

/*
 * The run at @addr of @pv (NULL: no VMA holds it), @data NULL for zeros,
 * to a shadow or to the page store.  @data_in_input: it lies in the
 * mapped snapshot.
 */
static int keep_pages(struct restore_tree *tree, struct restore_plan *plan,
		      const struct plan_vma *pv, uint64_t addr, const void *data, uint64_t len,
		      bool data_in_input, struct tool_error *err)
{
	size_t done = 0;
	ssize_t n;

	if (shadow_take(plan, tree->filler, addr, data, len, data_in_input))
		return data && pv && (pv->v.prot & PROT_WRITE) ?
		       add_run(plan, addr, len, RST_IN_PLACE, err) : 0;
	if (!data) {
		if (ftruncate(tree->page_store, (off_t)(tree->page_store_len + len)))
			return tool_fail(err, errno, "cannot keep the memory contents");
		done = len;
	}
	while (done < len) {
		n = pwrite(tree->page_store, (const char *)data + done, len - done,
			   (off_t)(tree->page_store_len + done));
		if (n < 0)
			return tool_fail(err, errno, "cannot keep the memory contents");
		done += (size_t)n;
	}
	if (add_run(plan, addr, len, tree->page_store_len, err))
		return -1;
	tree->page_store_len += len;
	return 0;
}

int pages_take(struct restore_tree *tree, struct restore_plan *plan,
	       const struct crib_pages *p, bool stored, struct tool_error *err)
{
	uint64_t len = p->npages * tree->header.page_size;
	struct plan_vma *pv;
	int ret;

	if (p->data.data && p->data.len != len)
		return tool_fail(err, 0, "pages record at %#llx: %zu bytes for %llu pages",
				 (unsigned long long)p->addr, p->data.len,
				 (unsigned long long)p->npages);
	pv = vma_at(plan, p->addr, len);
	if (pv && shmem_take_pages(tree, pv, p->addr, p->data.data, len, tree->header.page_size))
		return 0;
	/* Data that stays in the mapped snapshot, or none, is copied in later. */
	if (pv && tree->input_map && (stored || !p->data.data)) {
		ret = direct_take(plan, pv, p->addr, p->data.data, len, err);
		if (ret)
			return ret < 0 ? -1 : 0;
	}
	return keep_pages(tree, plan, pv, p->addr, p->data.data, len, stored, err);
}

static int by_addr(const void *a, const void *b)
{
	const struct plan_pages *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Once every VMA is known: the runs left in the snapshot for a VMA that
 * must keep a shadow (direct_keeps()) go to its shadow after all, their
 * runs into the restorer's, which stay in address order.
 */
int pages_settle_direct(struct restore_tree *tree, struct restore_plan *plan,
			struct tool_error *err)
{
	struct plan_direct d;
	struct plan_vma *pv;
	size_t i, kept = 0;

	for (i = 0; i < plan->direct.n; i++) {
		d = plan->direct.items[i];
		pv = vma_at(plan, d.addr, d.len);
		if (direct_keeps(plan, pv)) {
			plan->direct.items[kept++] = d;
			continue;
		}
		pv->direct = false;
		plan->direct_bytes -= d.len;
		if (keep_pages(tree, plan, pv, d.addr, d.data, d.len, true, err))
			return -1;
	}
	if (kept < plan->direct.n)
		qsort(plan->pages.items, plan->pages.n, sizeof(*plan->pages.items), by_addr);
	plan->direct.n = kept;
	return 0;
}

/* Mark the VMAs that get contents; every run must lie inside VMAs. */
int pages_index(struct restore_plan *plan, struct tool_error *err)
{
	struct plan_vma *v = plan->vmas.items, *end = plan->vmas.items + plan->vmas.n, *cur;
	const struct plan_pages *p;
	uint64_t covered;
	size_t i;

	for (i = 0; i < plan->pages.n; i++) {
		p = &plan->pages.items[i];
		while (v < end && v->v.end <= p->addr)
			v++;
		/* A run may go on into the next VMA: runs merge across records. */
		for (cur = v, covered = p->addr; covered < p->addr + p->len; cur++) {
			if (cur == end || cur->v.start > covered)
				return tool_fail(err, 0, "memory at %#llx lies outside every VMA",
						 (unsigned long long)covered);
			cur->has_data = true;
			covered = cur->v.end;
		}
	}
	return 0;
}

/* ---- for the restorer ---- */

/* The runs the restorer fills, at @off in the area. */
void pages_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off)
{
	struct rst_pages *p = (struct rst_pages *)((char *)a->area_start + off);
	size_t i;

	for (i = 0; i < plan->pages.n; i++)
		p[i] = (struct rst_pages){ plan->pages.items[i].addr, plan->pages.items[i].len,
					   plan->pages.items[i].offset };
	a->pages_off = off;
	a->n_pages = plan->pages.n;
}

void pages_free(struct restore_plan *plan)
{
	array_free(&plan->pages);
	array_free(&plan->direct);
	shadow_free(plan);
}
