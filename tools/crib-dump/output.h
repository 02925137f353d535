/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The snapshot's destination (output.c): standard output, or a file put
 * in place only once the snapshot is complete and on disk.
 */
#ifndef CRIB_DUMP_OUTPUT_H
#define CRIB_DUMP_OUTPUT_H

#include <limits.h>
#include <stdbool.h>

#include "error.h"

struct dump_file {
	const char *path;	/* NULL: standard output */
	char tmp[PATH_MAX];	/* what is written until it is complete */
	int fd;
};

/* Standard output (never a terminal) when @path is NULL; an existing @path only with @force. */
int output_open(struct dump_file *out, const char *path, bool force, struct tool_error *err);
/* The snapshot is complete: on disk, and in place as @path. */
int output_commit(struct dump_file *out, struct tool_error *err);
/* A failed dump: the temporary file goes, whatever @path held stays. */
void output_abort(struct dump_file *out);

#endif /* CRIB_DUMP_OUTPUT_H */
