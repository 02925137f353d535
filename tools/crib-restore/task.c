// SPDX-License-Identifier: GPL-2.0
/*
 * The process record: a plan for each process, with its identity,
 * credentials, limits and fs context, and its place in the tree, which
 * tree.c links.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"
#include "task.h"

int task_take(struct restore_tree *tree, const struct crib_process *p,
	      struct tool_error *err)
{
	struct restore_plan *plan, **slot;
	struct crib_rlimit *rl;
	uint64_t *groups;

	if (plan_find(tree, p->pid))
		return tool_fail(err, 0, "process %llu is in the snapshot twice",
				 (unsigned long long)p->pid);
	/* optional in the format, as a zombie has none, but needed to restore */
	if (!p->zombie && (!p->cwd || !p->root))
		return tool_fail(err, 0, "the process record of %llu has no %s key: a living "
				 "process cannot be restored without its %s directory",
				 (unsigned long long)p->pid, !p->cwd ? "cwd" : "root",
				 !p->cwd ? "working" : "root");
	plan = calloc(1, sizeof(*plan));
	slot = plan ? array_push(&tree->procs) : NULL;
	if (!slot) {
		free(plan);
		return tool_fail(err, 0, "out of memory");
	}
	*slot = plan;
	plan->index = tree->procs.n - 1;
	plan->header = tree->header;
	plan->page_store = tree->page_store;
	plan->born_sid = -1;
	plan->proc = *p;
	plan->proc.comm = plan_dup_str(p->comm);
	plan->proc.cwd = plan_dup_str(p->cwd);
	plan->proc.root = plan_dup_str(p->root);
	plan->proc.exe = plan_dup_str(p->exe);
	rl = calloc(p->n_rlimits ? p->n_rlimits : 1, sizeof(*rl));
	groups = calloc(p->n_groups ? p->n_groups : 1, sizeof(*groups));
	if (rl)
		memcpy(rl, p->rlimits, p->n_rlimits * sizeof(*rl));
	if (groups)
		memcpy(groups, p->groups, p->n_groups * sizeof(*groups));
	plan->proc.rlimits = rl;
	plan->proc.groups = groups;
	/* a zombie has no directories */
	if (!rl || !groups || (!p->zombie && (!plan->proc.cwd || !plan->proc.root)))
		return tool_fail(err, 0, "out of memory");
	return 0;
}

/* ---- checked before anything is made ---- */

int task_check_dirs(const struct restore_plan *plan, struct tool_error *err)
{
	char parent[PATH_MAX];
	struct stat st;

	if (plan->proc.cwd_unlinked) {
		/* made again, and removed, in the directory it was in */
		snprintf(parent, sizeof(parent), "%s", plan->proc.cwd);
		if (plan->proc.cwd[0] != '/' || stat(dirname(parent), &st) || !S_ISDIR(st.st_mode))
			return tool_fail(err, 0, "cannot make the removed working directory %s "
					 "again: its parent %s is missing", plan->proc.cwd, parent);
	} else if (stat(plan->proc.cwd, &st) || !S_ISDIR(st.st_mode)) {
		return tool_fail(err, 0, "the working directory %s is gone", plan->proc.cwd);
	}
	if (stat(plan->proc.root, &st) || !S_ISDIR(st.st_mode))
		return tool_fail(err, 0, "the root directory %s is gone", plan->proc.root);
	return 0;
}

/* ---- for the restorer ---- */

/*
 * The process-wide attributes the restorer sets: its limits, dumpable,
 * membarrier registrations, and SCHED_RESET_ON_FORK for its threads.
 */
void task_fill(struct rst_args *a, const struct restore_plan *plan)
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
	a->membarrier = (uint32_t)p->membarrier;
	a->reset_on_fork = p->sched_reset_on_fork;
	a->sched_policy = (uint32_t)p->sched_policy;
	a->sched_priority = (uint32_t)p->sched_priority;
}

void task_free(struct restore_plan *plan)
{
	free((char *)plan->proc.comm);
	free((char *)plan->proc.cwd);
	free((char *)plan->proc.root);
	free((char *)plan->proc.exe);
	free((void *)plan->proc.rlimits);
	free((void *)plan->proc.groups);
}
