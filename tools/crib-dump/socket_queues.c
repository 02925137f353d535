// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's queued data, from the skbs socket_walk.c brought back, built
 * by its protocol (tcp.c, udp.c, unix.c, as sockets.c dispatches).  Each checks the walks against
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
