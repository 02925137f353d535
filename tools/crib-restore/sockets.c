// SPDX-License-Identifier: GPL-2.0
/*
 * Sockets: what is checked before anything is created, and the order in
 * which crib-restore creates them, once for the whole tree, before the
 * tree is forked (files.c parks them for the processes to take).
 *
 * Every socket is created first, with its options, bound or listening;
 * TCP listeners before any connection, whose local port they share.  Then
 * UNIX sockets connect to each other, by name where they have one, and
 * every queue is filled again: UNIX data sent by the peer or the named
 * sender it came from, UDP packets through the CRIB program before the
 * socket connects to its peer, a pending UDP datagram sent again corked
 * after.  TCP connections are
 * rebuilt in repair mode, all of them, and stay in it (silent: a restore
 * that fails from here on closes them without a FIN or a reset) until
 * every process of the tree is in place, when sockets_resume() takes them
 * out of repair mode, still under the network lock, and writes their
 * unsent data.  A socket's filter comes last, so that it judges none of
 * what refilled its queues.  Several descriptors of one socket share what
 * the first of them got.
 */
#include <stdlib.h>

#include "inet_dgram.h"
#include "netlink.h"
#include "packet.h"
#include "plan.h"
#include "socket_filter.h"
#include "socket_ops.h"
#include "sockets.h"
#include "tcp.h"
#include "udp.h"
#include "udp_queue.h"
#include "unix.h"

static bool is_udp(const struct crib_socket *s)
{
	return (s->family == AF_INET || s->family == AF_INET6) && s->type == SOCK_DGRAM &&
	       !inet_dgram_is(s);
}

static int check_socket(const struct restore_tree *tree, const struct plan_socket *ps,
			struct tool_error *err)
{
	const struct plan_socket *first = plan_find_socket_id(tree, ps->s.sock_id);
	bool has_file = false;
	size_t i;

	for (i = 0; i < ps->owner->files.n; i++)
		if (ps->owner->files.items[i].fd == ps->s.fd)
			has_file = ps->owner->files.items[i].type == CRIB_FILE_SOCKET;
	if (!has_file)
		return tool_fail(err, 0, "fd %llu: a socket record for a descriptor that is "
				 "not a socket", (unsigned long long)ps->s.fd);
	if (first != ps)	/* another descriptor of the same socket */
		return first->s.type == ps->s.type ? 0 :
			tool_fail(err, 0, "fd %llu: socket %llu recorded twice, differently",
				  (unsigned long long)ps->s.fd,
				  (unsigned long long)ps->s.sock_id);
	if (crib_socket_is_tcp(&ps->s))
		return tcp_check(tree, ps, err);
	if (is_udp(&ps->s))
		return udp_check(tree, ps, err);
	if (ps->s.family == AF_UNIX)
		return unix_check(tree, ps, err);
	if (netlink_is(&ps->s))
		return netlink_check(tree, ps, err);
	if (inet_dgram_is(&ps->s))
		return inet_dgram_check(tree, ps, err);
	if (packet_is(&ps->s))
		return packet_check(tree, ps, err);
	return tool_fail(err, 0, "fd %llu: %s sockets (family %llu, type %llu) cannot be "
			 "restored", (unsigned long long)ps->s.fd, socket_kind_name(&ps->s),
			 (unsigned long long)ps->s.family, (unsigned long long)ps->s.type);
}

int sockets_check(const struct restore_tree *tree, struct tool_error *err)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++)
		if (check_socket(tree, &tree->sockets.items[i], err))
			return -1;
	return 0;
}

/* The first descriptor of each socket, in one of the passes below. */
static bool first_of(const struct sock_job *j, size_t i)
{
	const struct plan_socket *ps = &j->tree->sockets.items[i];

	return plan_find_socket_id(j->tree, ps->s.sock_id) == ps;
}

/* Sockets other than TCP connections: created, bound, listening. */
static int create_pass(struct sock_job *j)
{
	const struct plan_socket *ps;
	size_t i;
	int ret;

	/* TCP listeners first: connections share their port */
	for (i = 0; i < j->tree->sockets.n; i++) {
		ps = &j->tree->sockets.items[i];
		if (first_of(j, i) && crib_socket_is_tcp(&ps->s) &&
		    (ps->s.state == CRIB_SK_LISTEN || ps->s.state == CRIB_SK_CLOSE) && tcp_create(j, ps))
			return -1;
	}
	for (i = 0; i < j->tree->sockets.n; i++) {
		ps = &j->tree->sockets.items[i];
		if (!first_of(j, i) || crib_socket_is_tcp(&ps->s))
			continue;
		if (is_udp(&ps->s))
			ret = udp_create(j, ps);
		else if (netlink_is(&ps->s))
			ret = netlink_create(j, ps);
		else if (inet_dgram_is(&ps->s))
			ret = inet_dgram_create(j, ps);
		else if (packet_is(&ps->s))
			ret = packet_create(j, ps);
		else
			ret = unix_create(j, ps);
		if (ret)
			return -1;
	}
	return 0;
}

static int fill_pass(struct sock_job *j)
{
	const struct plan_socket *ps;
	size_t i;

	for (i = 0; i < j->tree->sockets.n; i++) {
		ps = &j->tree->sockets.items[i];
		if (first_of(j, i) && ps->s.family == AF_UNIX && unix_connect(j, ps))
			return -1;
	}
	for (i = 0; i < j->tree->sockets.n; i++) {
		ps = &j->tree->sockets.items[i];
		if (!first_of(j, i))
			continue;
		if (ps->s.family == AF_UNIX && unix_fill(j, ps))
			return -1;
		if (is_udp(&ps->s) && udp_fill(j, ps))
			return -1;
	}
	/* last: a shut down end sends nothing more, and its peer takes nothing */
	for (i = 0; i < j->tree->sockets.n; i++) {
		ps = &j->tree->sockets.items[i];
		if (first_of(j, i) && ps->s.family == AF_UNIX &&
		    sock_shutdown(j, ps, j->fds[i]))
			return -1;
	}
	return 0;
}

static bool is_tcp_connection(const struct sock_job *j, size_t i)
{
	const struct crib_socket *s = &j->tree->sockets.items[i].s;

	return first_of(j, i) && crib_socket_is_tcp(s) && s->state != CRIB_SK_LISTEN && s->state != CRIB_SK_CLOSE;
}

/* Last of each socket: its filter, which judges only what arrives from now on. */
static int filter_pass(struct sock_job *j)
{
	size_t i;

	for (i = 0; i < j->tree->sockets.n; i++)
		if (first_of(j, i) &&
		    socket_filter_attach(j, &j->tree->sockets.items[i], j->fds[i]))
			return -1;
	return 0;
}

/* Every TCP connection rebuilt, still in repair mode: it sends nothing yet. */
static int tcp_pass(struct sock_job *j)
{
	size_t i;

	for (i = 0; i < j->tree->sockets.n; i++)
		if (is_tcp_connection(j, i) && tcp_repair(j, &j->tree->sockets.items[i]))
			return -1;
	return 0;
}

int sockets_create(const struct restore_tree *tree, struct udp_refill *refill,
		   const struct restore_fault *fault, int temp_base, int *fds,
		   struct tool_error *err)
{
	struct sock_job j = {
		.tree = tree, .refill = refill, .temp_base = temp_base, .fds = fds, .err = err,
	};
	size_t i;

	for (i = 0; i < tree->sockets.n; i++)
		fds[i] = -1;
	if (create_pass(&j) || fill_pass(&j) || tcp_pass(&j) || filter_pass(&j))
		return -1;
	if (fault && fault->site == FAULT_SOCKETS)
		return tool_fail(err, 0, "injected fault (CRIB_RESTORE_FAULT=%s) once every "
				 "socket was made", fault->name);
	return 0;
}

/* @step on every TCP connection of the tree, in turn. */
static int each_connection(const struct restore_tree *tree, const int *fds,
			   struct tool_error *err,
			   int (*step)(struct sock_job *j, const struct plan_socket *ps))
{
	struct sock_job j = { .tree = tree, .fds = (int *)fds, .err = err };
	size_t i;

	for (i = 0; i < tree->sockets.n; i++)
		if (is_tcp_connection(&j, i) && step(&j, &tree->sockets.items[i]))
			return -1;
	return 0;
}

int sockets_leave_repair(const struct restore_tree *tree, const int *fds,
			 struct tool_error *err)
{
	return each_connection(tree, fds, err, tcp_finish);
}

int sockets_resume(const struct restore_tree *tree, const int *fds, struct tool_error *err)
{
	return each_connection(tree, fds, err, tcp_resume);
}
