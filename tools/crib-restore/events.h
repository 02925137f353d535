/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event files: eventfd, signalfd, timerfd, epoll (events.c).
 */
#ifndef CRIB_RESTORE_EVENTS_H
#define CRIB_RESTORE_EVENTS_H

#include "plan.h"

/*
 * Event files (events.c): eventfd, signalfd, timerfd, epoll.  Their
 * records taken as the snapshot is read; each file and every epoll item
 * checked against the rest of the snapshot; each description made by
 * files_make() (events_make()), then every epoll's items added once all
 * descriptions exist (events_fill_epolls()).  Parked descriptions start
 * above every descriptor number an item was added under
 * (events_highest_tfd()).
 */
int events_take_timerfd(struct restore_tree *tree, const struct crib_timerfd *t,
			struct tool_error *err);
int events_take_epoll_item(struct restore_tree *tree, const struct crib_epoll_item *e,
			   struct tool_error *err);
int events_check(const struct restore_tree *tree, const struct restore_plan *plan,
		 const struct crib_file *f, struct tool_error *err);
int events_check_items(const struct restore_tree *tree, struct tool_error *err);
int events_highest_tfd(const struct restore_tree *tree);
int events_make(const struct restore_tree *tree, const struct plan_desc *d, int at,
		struct tool_error *err);
int events_fill_epolls(const struct restore_tree *tree, int base, struct tool_error *err);

#endif /* CRIB_RESTORE_EVENTS_H */
