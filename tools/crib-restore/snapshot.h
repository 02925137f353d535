/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a snapshot into a restore tree (snapshot.c), each record
 * handed to the file of its kind.
 */
#ifndef CRIB_RESTORE_SNAPSHOT_H
#define CRIB_RESTORE_SNAPSHOT_H

#include "plan.h"

struct progress;

/*
 * Read the snapshot at @fd into @tree, counting what is read in @progress;
 * a snapshot for another machine (check_header()) is refused before its
 * records are read, one whose records inflate past @max_size bytes as
 * they reach it.  A snapshot the format library cannot read sets
 * @tree->snapshot_exit to its exit status (exit.h), the failure naming
 * the file offset where it was found.
 */
int plan_read(struct restore_tree *tree, int fd, uint64_t max_size, struct progress *progress,
	      struct tool_error *err);
void plan_free(struct restore_tree *tree);

#endif /* CRIB_RESTORE_SNAPSHOT_H */
