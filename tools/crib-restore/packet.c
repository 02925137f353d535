// SPDX-License-Identifier: GPL-2.0
/*
 * Packet sockets: made, their options set (PACKET_VERSION, PACKET_AUXDATA
 * and the like, spec §6.1), and bound to the interface, by name, and the
 * protocol they were bound to or made with, which starts them receiving
 * as socket(2) with that protocol did.
 * An interface of that name must exist here: its absence is said before
 * anything is made.  A snapshot holds nothing queued on them, and no ring,
 * membership or fanout (crib-dump refuses those).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "packet.h"
#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"

bool packet_is(const struct crib_socket *s)
{
	return s->family == AF_PACKET;
}

/* The interface @a names, its index in @index (0: any); false when none has that name. */
static bool interface_of(const struct plan_addr *a, unsigned int *index)
{
	char name[IF_NAMESIZE] = "";

	*index = 0;
	if (!a->len)
		return true;
	if (a->len >= sizeof(name))
		return false;
	memcpy(name, a->addr, a->len);
	*index = if_nametoindex(name);
	return *index != 0;
}

int packet_check(const struct restore_tree *tree, const struct plan_socket *ps,
		 struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;
	unsigned int index;

	(void)tree;
	if (ps->s.type != SOCK_RAW && ps->s.type != SOCK_DGRAM)
		return tool_fail(err, 0, "fd %llu (packet): type %llu is not a packet socket's",
				 fd, (unsigned long long)ps->s.type);
	if (ps->recv.n || ps->send.n)
		return tool_fail(err, 0, "fd %llu (packet): queued packets, which a restore "
				 "cannot queue again", fd);
	if (ps->local.family && !interface_of(&ps->local, &index))
		return tool_fail(err, 0, "fd %llu (packet): bound to interface %.*s, which this "
				 "system does not have", fd, (int)ps->local.len,
				 (const char *)ps->local.addr);
	return 0;
}

int packet_create(struct sock_job *j, const struct plan_socket *ps)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	unsigned int index;
	int fd;

	if (sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd))
		return -1;
	if (!ps->local.family)
		return 0;
	if (!interface_of(&ps->local, &index))
		return sock_refuse(j, ps, "the interface it was bound to is gone");
	ll.sll_ifindex = (int)index;
	ll.sll_protocol = htons((uint16_t)ps->local.port);
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)))
		return sock_fail(j, ps, "bind", errno);
	return 0;
}
