/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows: private anonymous memory waiting for the restorer in a copy
 * laid out like its VMA (shadow.c).
 */
#ifndef CRIB_RESTORE_SHADOW_H
#define CRIB_RESTORE_SHADOW_H

#include "plan.h"

struct shadow_filler;

/*
 * Private anonymous memory waits for the restorer in a shadow of its VMA
 * (shadow.c), which the new process inherits and the restorer moves into
 * place.  True when the run at @addr (@data NULL: zeros) was taken into a
 * shadow, false when it belongs in the page store.  @data_in_input: the
 * data lies in the snapshot itself (a stored_pages record), not in the
 * reader's buffers.
 */
bool shadow_take(struct restore_plan *plan, struct shadow_filler *filler, uint64_t addr,
		 const void *data, uint64_t len, bool data_in_input);
/*
 * Once the tree's root is forked, which inherits every shadow: drop this
 * process's references to their pages, so that the restored processes
 * own them alone and their first writes copy nothing.  The reservation
 * stays, for shadow_free().
 */
void shadow_let_go(const struct restore_plan *plan);
void shadow_free(struct restore_plan *plan);

#endif /* CRIB_RESTORE_SHADOW_H */
