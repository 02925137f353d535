/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A new process of the tree while it still runs crib-restore's code
 * (child.c).
 */
#ifndef CRIB_RESTORE_CHILD_H
#define CRIB_RESTORE_CHILD_H

#include <stddef.h>

#include "error.h"

struct restore_ctx;

/*
 * The part of process @i while it runs crib-restore's code (child.c): its
 * children forked, its session and group made (tree.c), its descriptors,
 * its attributes, then the jump into the restorer.  Never returns; a
 * failure is written to the area's message and ends the process.  A
 * zombie of the snapshot ends here, as it ended then.
 */
void child_restore(const struct restore_ctx *ctx, size_t i) __attribute__((noreturn));
/* Report @err from process @i (in its area) and end it. */
void child_exit(const struct restore_ctx *ctx, size_t i, const struct tool_error *err)
	__attribute__((noreturn));

#endif /* CRIB_RESTORE_CHILD_H */
