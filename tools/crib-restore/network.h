/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network lock on the TCP connections (network.c).
 */
#ifndef CRIB_RESTORE_NETWORK_H
#define CRIB_RESTORE_NETWORK_H

#include "plan.h"

/*
 * The network lock crib-dump left on the TCP connections (network.c).
 * network_release() lets their packets through again (connections that
 * are not locked are skipped); crib-restore calls it last, once every
 * process is in place and the connections have left repair mode.
 * network_hold_again() is for a restore that fails after they left it:
 * the connections are put back in repair mode (@fds: the tree's sockets,
 * -1 for none), and locked again first when @relock, so that closing them
 * sends nothing and the snapshot restores again.  A connection that was
 * released and took in data or a FIN meanwhile has acknowledged what the
 * snapshot does not hold, which a later restore could not give back: it
 * is reset instead, and left out of the lock, and @err says so.
 */
int network_release(const struct restore_tree *tree, struct tool_error *err);
int network_hold_again(const struct restore_tree *tree, const int *fds, bool relock,
		       struct tool_error *err);

#endif /* CRIB_RESTORE_NETWORK_H */
