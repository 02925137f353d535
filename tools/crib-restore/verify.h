/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --verify: the restored process compared with its snapshot (verify.c).
 */
#ifndef CRIB_RESTORE_VERIFY_H
#define CRIB_RESTORE_VERIFY_H

#include <sys/types.h>

#include "plan.h"

struct restore_options;

/*
 * --verify (verify.c): the snapshot is kept to be read again, then
 * compared with a dump of the restored process.
 */
struct verify_input {
	int fd;			/* the snapshot from @start: a dup or a memfd copy */
	off_t start;
};

/* Make the input @fd readable twice, through @in->fd; 0 or -1. */
int verify_keep_input(int fd, struct verify_input *in, struct tool_error *err);
void verify_input_close(struct verify_input *in);
/*
 * Dump @pid again with crib-dump --leave-running and compare; differences
 * are printed on standard error.  Returns 0 when the process matches its
 * snapshot; otherwise -1 with @err set, and the process is killed.
 */
int verify_restored(const struct restore_tree *tree, const struct verify_input *in,
		    const struct restore_options *opt, struct tool_error *err);

#endif /* CRIB_RESTORE_VERIFY_H */
