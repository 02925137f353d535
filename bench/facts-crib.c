// SPDX-License-Identifier: GPL-2.0
/*
 * The CRIB side of the benchmark: crib-dump's own functions (linked from
 * tools/crib-dump), run against a live process.  The process is not
 * frozen: freezing costs the same whichever way the facts are then read.
 */
#include <limits.h>
#include <string.h>

#include "facts.h"

int crib_facts_read(struct dump_job *job, struct crib_facts *facts)
{
	memset(facts, 0, sizeof(*facts));
	facts->vmas = (struct record_list){ .kind = DUMP_REC_VMA,
					    .size = sizeof(struct dump_vma_rec) };
	facts->files = (struct record_list){ .kind = DUMP_REC_FILE,
					     .size = sizeof(struct dump_file_rec) };
	if (task_read(job))
		return -1;
	facts->task = job->task;
	if (mm_collect_vmas(job, &facts->vmas) || files_collect(job, &facts->files))
		return -1;
	return 0;
}

void crib_facts_free(struct crib_facts *facts)
{
	record_list_free(&facts->vmas);
	record_list_free(&facts->files);
}

int crib_dump_read(struct dump_job *job, size_t *n_vmas, size_t *n_files)
{
	char path[PATH_MAX];
	const struct dump_task_rec *t = &job->task;

	if (task_read(job))
		return -1;
	if (resolve_checked_path(job, "cwd", &t->cwd, path, sizeof(path)) ||
	    resolve_checked_path(job, "root", &t->root, path, sizeof(path)))
		return -1;
	if (t->exe.present && resolve_checked_path(job, "exe", &t->exe, path, sizeof(path)))
		return -1;
	if (mm_read(job) || files_read(job))
		return -1;
	*n_vmas = mm_vma_count(job);
	*n_files = files_count(job);
	return 0;
}

void crib_dump_read_free(struct dump_job *job)
{
	mm_free(job);
	files_free(job);
}
