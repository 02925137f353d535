/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CRIB program that refills UDP receive queues (udp_queue.c).
 */
#ifndef CRIB_RESTORE_UDP_QUEUE_H
#define CRIB_RESTORE_UDP_QUEUE_H

#include "plan.h"

struct sock_job;

struct restore_sockets;
struct user_ring_buffer;

/*
 * The CRIB program that refills UDP receive queues, loaded by crib-restore
 * before the child exists and run by the child (udp_queue.c).  Not loaded
 * when no UDP socket has packets queued.
 */
struct udp_refill {
	struct restore_sockets *skel;
	struct user_ring_buffer *ring;
	int prog_fd;		/* -1 when not loaded */
};

int udp_refill_open(struct udp_refill *r, const struct restore_tree *tree,
		    struct tool_error *err);
void udp_refill_close(struct udp_refill *r);

/* Put the packets of @ps's receive queue back through restore_udp_queue. */
int udp_queue_restore(struct sock_job *j, const struct plan_socket *ps, int fd);

#endif /* CRIB_RESTORE_UDP_QUEUE_H */
