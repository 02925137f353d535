// SPDX-License-Identifier: GPL-2.0
/*
 * The ids the tree holds: its threads, processes and process groups, as
 * the kinds that refer to one check it (a pidfd's target, the owner a
 * file sends SIGIO to), since a restore can only point them at a process
 * it makes again.  Apart from tree.c, which freezes, lets go and frees the
 * tree with what every kind read, so that crib-dump's reading half (which
 * the dump benchmark links too) has it without the rest.
 */
#include "crib-dump.h"
#include "kabi.h"

bool tree_holds(const struct dump_tree *tree, uint32_t type, pid_t id)
{
	const struct dump_job *job;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		if (type == PIDTYPE_PGID ? job->task.pgid == id : job->pid == id)
			return true;
		for (j = 0; type == PIDTYPE_PID && j < job->threads.n; j++)
			if (job->threads.items[j].tid == id)
				return true;
	}
	return false;
}
