/* SPDX-License-Identifier: GPL-2.0-only */
/* crib-inspect: its options, exit codes and subcommands, shared by its files. */
#ifndef CRIB_INSPECT_H
#define CRIB_INSPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "array.h"
#include "exit.h"

#include <crib/format.h>

/* Exit codes, as --help lists them: the rows of the shared table (exit.h). */
enum {
	EXIT_OK = TOOL_EXIT_OK,
	EXIT_NEGATIVE = TOOL_EXIT_FAILED,	/* --diff: differ; --hexdump: not dumped; ... */
	EXIT_USAGE = TOOL_EXIT_USAGE,
	EXIT_IO = TOOL_EXIT_IO,
	EXIT_UNSUPPORTED = TOOL_EXIT_UNSUPPORTED,
	EXIT_CORRUPT = TOOL_EXIT_CORRUPT,	/* truncated, corrupt, fails verification */
};

struct options {
	const char *sections;	/* comma-separated, NULL for all */
	bool ignore_volatile;
	bool have_pid;
	uint64_t pid;
	uint64_t max_size;	/* most bytes of record stream to inflate */
	bool json;		/* with a view: the view as JSON */
	const char *search;	/* --memory --search: bytes to find */
	const char *extract;	/* --memory --extract: ADDR[:LEN] */
	const char *output;	/* -o: where --extract writes, "-" standard output */
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

/*
 * A view (view.c): its state made by run_view(), zeroed, with the options
 * and @out, where it prints; every record handed to record() as the
 * stream goes by, and finish() to print what it kept; as text or, with
 * --json, as the items of one JSON array, each after view_json_item().
 * finish() returns the exit code of a stream read whole.
 */
struct view_out {
	bool json;
	size_t items;		/* JSON items printed so far */
	size_t rows;		/* rows shown so far, text or JSON (view_row()) */
	uint64_t input_bytes;	/* file bytes read, once the stream is */
	bool failed;		/* the stream broke off: finish() has part of it */
};

/* What every view's state begins with. */
struct view {
	const struct options *o;
	struct view_out *out;
};

struct view_ops {
	const char *name;	/* the view, as the JSON document names it */
	const char *items;	/* the name of its JSON array */
	const char *none;	/* the text when no row was shown ("descriptors"); NULL: none */
	const char *header;	/* the text's first line, above the rows; NULL: none */
	size_t size;		/* of its state, a struct beginning with a struct view */
	/* The rest of the state, from the stream's header; NULL: none; -1: out of memory. */
	int (*start)(void *state, const struct crib_header *h);
	void (*record)(void *state, const struct crib_record *rec);
	int (*finish)(void *state);	/* NULL: EXIT_OK */
	/* What the state holds, also when start() failed (not the state); NULL: nothing. */
	void (*release)(void *state);
};

int run_view(const char *path, const struct options *o, const struct view_ops *v);
void view_json_item(struct view_out *out);
/* A row was shown: the view is not empty. */
static inline void view_row(struct view_out *out)
{
	out->rows++;
}
/* "KEY":VALUE, the value a string or {"hex":...} (crib_json_print_path()). */
void json_key_string(const char *key, const char *value);
/* --pid given, and @rec names another process. */
bool record_filtered_out(const struct options *o, const struct crib_record *rec);

extern const struct view_ops ps_tree_view;	/* pstree.c */
extern const struct view_ops files_view;	/* files.c */
extern const struct view_ops sockets_view;	/* sockets.c */
extern const struct view_ops memory_view;	/* memory.c */
extern const struct view_ops memory_search_view;
extern const struct view_ops memory_extract_view;
/* ADDR[:LEN] (LEN @default_len if not given) into @addr and @len; -1 if malformed. */
int parse_range(const char *spec, uint64_t default_len, uint64_t *addr, uint64_t *len);
#define EXTRACT_MAX	(1ull << 30)	/* bytes one --extract takes */
#define SEARCH_MAX	256u		/* bytes of a --search string */
extern const struct view_ops stats_view;	/* stats.c */

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

/* proctree.c: the process tree of the summary and of --ps-tree */
struct proc_entry {
	uint64_t pid, ppid, pgid, sid;
	const char *comm;
	const char *exe;	/* cut to 127 bytes */
	unsigned threads;
	const char *state;	/* "running", "stopped" or "zombie" */
	uint64_t code;		/* stopped: the signal; zombie: the wait status */
};

/*
 * Called with each process, @depth below its root; @cycle: met again
 * through a cycle of parents, not followed.  NULL before the processes
 * of a cycle that no root reaches.
 */
typedef void (*proctree_visit)(const struct proc_entry *e, size_t depth, bool cycle, void *ctx);

struct proctree;
/* Every process, roots first; with @only, that process and below: 1 if absent, -1 out of memory. */
int proctree_walk(struct proctree *t, const uint64_t *only, proctree_visit visit, void *ctx);
bool proctree_dropped(const struct proctree *t);
size_t proctree_size(const struct proctree *t);
struct proctree *proctree_new(void);
void proctree_add(struct proctree *t, const struct crib_process *p);
void proctree_count_thread(struct proctree *t, uint64_t pid);
/* The summary's tree; with @only, that process and below. */
void proctree_print(struct proctree *t, const uint64_t *only);
void proctree_free(struct proctree *t);

/*
 * files.c: the first descriptor of each open file description (file.desc,
 * numbered from 1 in the order of first use); desc_map_note() returns it
 * when @desc was seen before, NULL when this is its first (or it is 0).
 */
struct desc_holder {
	uint64_t pid, fd;
};
struct desc_map {
	ARRAY(struct desc_holder) holders;	/* by desc - 1 */
};
const struct desc_holder *desc_map_note(struct desc_map *m, uint64_t desc, uint64_t pid,
					uint64_t fd);

/* files.c: O_* status flags by name, the access mode first */
void open_flags_str(uint64_t flags, char *buf, size_t len);
/* sockets.c: an address as ss(8) shows it, printable ASCII only; returns @buf */
const char *sockaddr_str(const struct crib_sockaddr *a, char *buf, size_t len);

/* signals.c: the summary's lines for signal records */
void print_sighand(const struct crib_sighand *h);
void print_sigpending(const struct crib_sigpending *p);
void print_siginfo_list(const struct crib_siginfo *list, size_t n);
void print_timers(const struct crib_timers *t);

#endif
