/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts the dump benchmark reads about a process, two ways, into the
 * same records (bpf/dump.h): what the dump_task, dump_vmas and dump_files
 * CRIB programs send, and the same facts parsed from procfs the way a
 * procfs-based dumper gathers them.
 *
 *   facts-crib.c    the CRIB programs through crib-dump's own code
 *   facts-procfs.c  /proc/PID/{stat,status,limits,...,smaps,fd,fdinfo}
 *   facts-compare.c the two, field by field
 */
#ifndef CRIB_BENCH_FACTS_H
#define CRIB_BENCH_FACTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "crib-dump.h"

/* What the CRIB programs sent: one task record, then VMAs and files. */
struct crib_facts {
	struct dump_task_rec task;
	struct record_list vmas;	/* struct dump_vma_rec */
	struct record_list files;	/* struct dump_file_rec */
};

/* The CRIB programs alone: dump_task, dump_vmas, dump_files, records drained. */
int crib_facts_read(struct dump_job *job, struct crib_facts *facts);
void crib_facts_free(struct crib_facts *facts);

/*
 * crib-dump's reading phase as crib-dump runs it: the same programs, then
 * the paths of cwd, root, exe, every file VMA and every descriptor
 * resolved through procfs and checked against the inodes the programs saw.
 * Returns 0 with the VMAs and files in @job, or -1 with @job->err set.
 */
int crib_dump_read(struct dump_job *job, size_t *n_vmas, size_t *n_files);
void crib_dump_read_free(struct dump_job *job);

/* Strings kept back to back; records refer to them by offset. */
struct string_pool {
	char *data;
	size_t len, cap;
};

/* The same facts from procfs, and the paths procfs gives along with them. */
struct procfs_facts {
	struct dump_task_rec task;
	uint64_t vm_flags_known;	/* the bits of each vm_flags it shows */
	struct dump_vma_rec *vmas;
	size_t *vma_path;		/* offsets into paths */
	size_t n_vmas, cap_vmas;
	struct dump_file_rec *files;
	size_t *file_path;
	size_t n_files, cap_files;
	struct string_pool paths;
	char cwd[PATH_MAX], root[PATH_MAX], exe[PATH_MAX];
};

enum procfs_vma_source {
	PROCFS_SMAPS,	/* /proc/PID/smaps: every VMA flag (VmFlags) */
	PROCFS_MAPS,	/* /proc/PID/maps: only r, w, x and shared */
};

/* A procfs reader with its buffer, kept from run to run. */
struct procfs_reader {
	pid_t pid;
	enum procfs_vma_source source;
	char *buf;
	size_t buf_size;
};

int procfs_reader_init(struct procfs_reader *r, pid_t pid, enum procfs_vma_source source,
		       struct tool_error *err);
void procfs_reader_free(struct procfs_reader *r);
int procfs_facts_read(struct procfs_reader *r, struct procfs_facts *facts,
		      struct tool_error *err);
void procfs_facts_free(struct procfs_facts *facts);

/*
 * Every fact procfs shows compared with what the programs sent; each
 * difference is printed on standard output as a "# " line.  Returns the
 * number of differences.
 */
int facts_compare(const struct crib_facts *crib, const struct procfs_facts *proc,
		  const char *what);

#endif /* CRIB_BENCH_FACTS_H */
