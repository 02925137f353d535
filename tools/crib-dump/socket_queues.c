// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's queued data, from the skbs socket_walk.c brought back, built
 * by its protocol: tcp.c, udp.c, unix.c.  Each checks the walks against
 * the socket's own accounting before it uses them, so that a queue read
 * short (the skb iterator stops early when a clone cannot be made), or
 * one that changed under the walk, never ends up in a snapshot.  The
 * counters are also compared with those dump_sockets read before: if the
 * socket moved on (data arrived), it is read again.
 */
#include "sockets.h"

void socket_queues_free(struct socket_entry *e)
{
	sock_queue_free(&e->recv);
	sock_queue_free(&e->send);
}

int socket_queues_build(struct dump_job *job, struct socket_entry *e, const struct skb_list *walks)
{
	int ret;

	socket_queues_free(e);
	if (e->k.state == CRIB_SK_LISTEN)
		return 0;
	switch (e->kind) {
	case SOCKET_TCP:
		ret = tcp_queues(job, e, walks);
		break;
	case SOCKET_UDP:
		ret = udp_queues(job, e, walks);
		break;
	default:
		ret = unix_queues(job, e, walks);
		break;
	}
	if (ret)
		socket_queues_free(e);
	return ret;
}
