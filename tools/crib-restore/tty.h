/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pseudo-terminals (tty.c).
 */
#ifndef CRIB_RESTORE_TTY_H
#define CRIB_RESTORE_TTY_H

#include "plan.h"

struct restore_ctx;

/*
 * Pseudo-terminals (tty.c): the tty records taken as the snapshot is
 * read; checked before anything is made (every pair has its master, the
 * session it controls is led by a process of the tree); each pair made by
 * crib-restore with the descriptions (tty_make(), at its first one);
 * the session's leader takes it as controlling terminal once it made the
 * session (tty_take_ctty()), a process of the foreground group puts its
 * group in front once it joined it (tty_set_foreground()).
 */
int tty_take_record(struct restore_tree *tree, const struct crib_tty *t,
		    struct tool_error *err);
/* The record of descriptor @fd of process @pid, or NULL. */
const struct plan_tty *tty_find(const struct restore_tree *tree, uint64_t pid, uint64_t fd);
int tty_check(const struct restore_tree *tree, struct tool_error *err);
/* The pair of descriptions[@first] and all its descriptions, parked from @base. */
int tty_make(const struct restore_tree *tree, size_t first, int base, struct tool_error *err);
/* Whether descriptions[@i] is the first of its pair, which makes it. */
bool tty_first_of_pair(const struct restore_tree *tree, size_t i);
/* Run in the process, right after setsid(), before it forks into its session. */
int tty_take_ctty(const struct restore_ctx *ctx, const struct restore_plan *plan,
		  struct tool_error *err);
/* Run in the process once it is in its group. */
int tty_set_foreground(const struct restore_ctx *ctx, const struct restore_plan *plan,
		       struct tool_error *err);
/*
 * /dev/tty descriptions: whether @d is one (made by no one of the above);
 * opened by the process holding it first, when it is born
 * (tty_open_born(), before it forks; the session's leader opens its own
 * in tty_take_ctty()), and by any other holder that did not inherit it
 * (tty_open_late(), as it settles its descriptors).
 */
bool tty_is_dev_tty(const struct plan_desc *d);
int tty_open_born(const struct restore_ctx *ctx, const struct restore_plan *plan,
		  struct tool_error *err);
int tty_open_late(const struct restore_ctx *ctx, const struct restore_plan *plan,
		  struct tool_error *err);
void tty_free(struct restore_tree *tree);

#endif /* CRIB_RESTORE_TTY_H */
