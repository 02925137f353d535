/* SPDX-License-Identifier: GPL-2.0-only */
/* crib-inspect: its options, exit codes and subcommands, shared by its files. */
#ifndef CRIB_INSPECT_H
#define CRIB_INSPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "array.h"

#include <crib/format.h>

/* Exit codes, as --help lists them. */
enum {
	EXIT_OK = 0,
	EXIT_NEGATIVE = 1,	/* --diff: snapshots differ; --hexdump: address not dumped */
	EXIT_USAGE = 2,
	EXIT_IO = 3,
	EXIT_UNSUPPORTED = 4,	/* not a snapshot, newer major, unknown critical record */
	EXIT_CORRUPT = 5,	/* truncated, corrupt, fails verification */
};

struct options {
	const char *sections;	/* comma-separated, NULL for all */
	bool ignore_volatile;
	bool have_pid;
	unsigned long long pid;
	uint64_t max_size;	/* most bytes of record stream to inflate */
};

/* What the subcommands share (inspect.c). */
bool section_name_selected(const struct options *o, const char *name);
bool section_selected(const struct options *o, const struct crib_record *rec);
int exit_code_for(enum crib_err code);
void report_error(const char *path, const struct crib_error *err);
/*
 * @path ("-": standard input, refused on a terminal) opened for reading;
 * NULL with *@exit_code set, and *@why if not NULL.
 */
struct crib_reader *open_snapshot(const char *path, const struct options *o, int *fd_out,
				  int *exit_code, struct crib_error *why);
void close_snapshot(struct crib_reader *r, int fd);

/* The subcommands, each returning the exit code. */
int run_summary(const char *path, const struct options *o);
int run_json(const char *path, const struct options *o);
int run_verify(const char *path, const struct options *o);
int run_hexdump(const char *path, const char *spec, const struct options *o);
int run_diff(const char *a, const char *b, const struct options *o);

/* Text from a snapshot, its controls and non-ASCII bytes as \\xNN (inspect.c). */
void print_text(const char *text);
/* The same, "-" for a missing or empty path. */
void print_path(const char *path);
/* @bytes in B, K, M, G, ... into @buf. */
const char *size_str(uint64_t bytes, char *buf, size_t len);

/* memmap.c: the summary's memory maps, kept to the end */
struct memmap;
struct memmap *memmap_new(uint64_t page_size);
void memmap_add_vma(struct memmap *m, const struct crib_vma *v);
void memmap_add_pages(struct memmap *m, const struct crib_pages *p);
void memmap_print(struct memmap *m);
void memmap_free(struct memmap *m);

/* proctree.c: the summary's process tree */
struct proctree;
struct proctree *proctree_new(void);
void proctree_add(struct proctree *t, const struct crib_process *p);
void proctree_count_thread(struct proctree *t, uint64_t pid);
void proctree_print(struct proctree *t);
void proctree_free(struct proctree *t);

/* signals.c: the summary's lines for signal records */
void print_sighand(const struct crib_sighand *h);
void print_sigpending(const struct crib_sigpending *p);
void print_siginfo_list(const struct crib_siginfo *list, size_t n);
void print_timers(const struct crib_timers *t);

#endif
