/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clocks of a tree restored in another boot (clocks.c).
 */
#ifndef CRIB_RESTORE_CLOCKS_H
#define CRIB_RESTORE_CLOCKS_H

#include "plan.h"

struct restore_options;

/*
 * A tree from another boot is born in a time namespace whose clocks go on
 * from the dump's (clocks.c, spec §5.6); in the same boot, nothing.  Call
 * before the root is created, from the thread that creates it.
 */
int clocks_prepare(const struct restore_tree *tree, const struct restore_options *opt,
		   struct tool_error *err);

#endif /* CRIB_RESTORE_CLOCKS_H */
