// SPDX-License-Identifier: GPL-2.0
/*
 * The mm record and the VMA records of a process, in address order, as
 * the restorer maps them again.
 */
#include <stdlib.h>
#include <string.h>

#include "crib-restore.h"

int mm_take(struct restore_plan *plan, const struct crib_mm *mm, struct tool_error *err)
{
	void *auxv;

	if (plan->have_mm)
		return tool_fail(err, 0, "the snapshot holds more than one address space");
	auxv = malloc(mm->auxv.len ? mm->auxv.len : 1);
	if (!auxv)
		return tool_fail(err, 0, "out of memory");
	memcpy(auxv, mm->auxv.data, mm->auxv.len);
	plan->mm = *mm;
	plan->mm.auxv.data = auxv;
	plan->mm.exe = plan_dup_str(mm->exe);
	plan->have_mm = true;
	return 0;
}

int mm_take_vma(struct restore_plan *plan, const struct crib_vma *v,
		struct tool_error *err)
{
	struct plan_vma *pv = array_push(&plan->vmas);

	if (!pv)
		return tool_fail(err, 0, "out of memory");
	pv->v = *v;
	pv->v.path = plan_dup_str(v->path);
	if (plan->vmas.n > 1 && v->start < pv[-1].v.end)
		return tool_fail(err, 0, "VMA %#llx-%#llx overlaps or precedes the one before it",
				 (unsigned long long)v->start, (unsigned long long)v->end);
	return 0;
}


void mm_free(struct restore_plan *plan)
{
	free((void *)plan->mm.auxv.data);
	free((char *)plan->mm.exe);
	for (size_t i = 0; i < plan->vmas.n; i++)
		free((char *)plan->vmas.items[i].v.path);
	array_free(&plan->vmas);
}
