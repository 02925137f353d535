// SPDX-License-Identifier: GPL-2.0
/*
 * The mm record and the VMA records of a process, in address order, as
 * the restorer maps them again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ghost.h"
#include "mapping.h"
#include "mm.h"
#include "plan.h"
#include "shmem.h"

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

/* ---- checked before anything is made ---- */

int mm_check_vma(const struct restore_tree *tree, const struct plan_vma *pv,
		 struct tool_error *err)
{
	const struct crib_vma *v = &pv->v;
	const struct plan_shmem *sh;
	struct stat st;

	if (v->advice & ~(uint64_t)CRIB_ADV_ALL)
		return tool_fail(err, 0, "the mapping at %#llx has advice %#llx, which this "
				 "crib-restore does not know", (unsigned long long)v->start,
				 (unsigned long long)v->advice);
	switch (v->kind) {
	case CRIB_VMA_SHARED_ANON:
		if (!v->shmem_id)
			return 0;
		sh = shmem_find(tree, v->shmem_id);
		if (!sh || v->pgoff > sh->size / tree->header.page_size ||
		    v->end - v->start > sh->size - v->pgoff * tree->header.page_size)
			return tool_fail(err, 0, "the shared memory at %#llx maps object %llu, "
					 "which the snapshot does not hold so large",
					 (unsigned long long)v->start,
					 (unsigned long long)v->shmem_id);
		return 0;
	case CRIB_VMA_ANON:
	case CRIB_VMA_HEAP:
	case CRIB_VMA_STACK:
	case CRIB_VMA_VDSO:
	case CRIB_VMA_VVAR:
	case CRIB_VMA_VSYSCALL:
		return 0;
	case CRIB_VMA_FILE:
		if (v->ghost_id) {
			char what[96];

			snprintf(what, sizeof(what), "the mapping at %#llx", (unsigned long long)v->start);
			return ghost_check(tree, v->ghost_id, what, err);
		}
		break;
	default:
		return tool_fail(err, 0, "the %s mapping at %#llx cannot be restored",
				 crib_vma_kind_name(v->kind), (unsigned long long)v->start);
	}
	if (!v->path || v->path[0] != '/')
		return tool_fail(err, 0, "the file mapping at %#llx has no usable path",
				 (unsigned long long)v->start);
	if (stat(v->path, &st))
		return tool_fail(err, errno, "%s, mapped at %#llx", v->path,
				 (unsigned long long)v->start);
	if (!S_ISREG(st.st_mode))
		return tool_fail(err, 0, "%s, mapped at %#llx, is no longer a regular file",
				 v->path, (unsigned long long)v->start);
	return 0;
}

/* ---- for the restorer ---- */

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

/* The VMAs (at @off in the area), the vDSO's place and the mm layout, for the restorer. */
void mm_fill(struct rst_args *a, const struct restore_plan *plan, const struct restore_fds *fds,
	     uint64_t off)
{
	a->vmas_off = off;
	fill_vmas(a, plan, fds, (struct rst_vma *)((char *)a->area_start + off));
	fill_vdso(a, plan);
	fill_mm(a, plan, fds->exe);
}

void mm_free(struct restore_plan *plan)
{
	free((void *)plan->mm.auxv.data);
	free((char *)plan->mm.exe);
	for (size_t i = 0; i < plan->vmas.n; i++)
		free((char *)plan->vmas.items[i].v.path);
	array_free(&plan->vmas);
}
