/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets in crib-restore, as in crib-dump: sockets.c checks every socket
 * and creates them in an order that lets them find each other;
 * socket_ops.c does what the protocols do alike to one socket,
 * socket_options.c sets its options, tcp.c, udp.c (with udp_queue.c, the
 * receive queue through the CRIB program restore_udp_queue) and unix.c
 * each rebuild their own.  network.c releases the network lock of the TCP
 * connections.  Every socket is created in the child, parked above the
 * snapshot's descriptors; files.c then puts it at its number.  Each file
 * has a header of its own; this one holds what the rest of crib-restore
 * calls of the sockets.
 */
#ifndef CRIB_RESTORE_SOCKETS_TOOL_H
#define CRIB_RESTORE_SOCKETS_TOOL_H

#include "fault.h"
#include "plan.h"

struct udp_refill;

/* The sockets' part of plan_check(): see sockets.c. */
int sockets_check(const struct restore_tree *tree, struct tool_error *err);

/*
 * Create every socket of the tree, parked at or above @temp_base; @fds[i]
 * gets the descriptor of tree->sockets.items[i] (see sockets.c).  TCP
 * connections are left in repair mode.  @fault (a testing aid) may make
 * it fail once they are all made.
 */
int sockets_create(const struct restore_tree *tree, struct udp_refill *refill,
		   const struct restore_fault *fault, int temp_base, int *fds,
		   struct tool_error *err);
/*
 * Once every process is in place: take the TCP connections out of repair
 * mode, on @fds (crib-restore's copies, as sockets_create() made them).
 */
int sockets_leave_repair(const struct restore_tree *tree, const int *fds,
			 struct tool_error *err);
/*
 * Then, once the network lock is released: write their unsent data and
 * their FINs again, so that these go out at once.  Sent under the lock
 * they were dropped, and went out only when a retransmission timer
 * fired, whose backoff kept growing as long as the lock held.
 */
int sockets_resume(const struct restore_tree *tree, const int *fds, struct tool_error *err);

#endif /* CRIB_RESTORE_SOCKETS_TOOL_H */
