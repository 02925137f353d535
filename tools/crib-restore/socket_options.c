// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options (spec §6.1): each recorded option whose value differs
 * from what the new socket has is set.  Most take back the value
 * getsockopt() gave; the buffer sizes were recorded as the kernel keeps
 * them (twice what was asked) and are set with the *FORCE variants (the
 * child is still root), then SO_BUF_LOCK says which of them the process
 * had set; TCP_CONGESTION takes the name without its padding.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>

#include "kabi.h"
#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

static int set_one(int fd, const struct crib_sockopt *o)
{
	int level = (int)o->level, name = (int)o->name, val;

	if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF) &&
	    o->value.len == sizeof(int)) {
		memcpy(&val, o->value.data, sizeof(val));
		val /= 2;
		return setsockopt(fd, level, name == SO_SNDBUF ? SO_SNDBUFFORCE : SO_RCVBUFFORCE,
				  &val, sizeof(val));
	}
	if (level == IPPROTO_TCP && name == TCP_CONGESTION)
		return setsockopt(fd, level, name, o->value.data,
				  (socklen_t)strnlen(o->value.data, o->value.len));
	return setsockopt(fd, level, name, o->value.data, (socklen_t)o->value.len);
}

static bool same_value(int fd, const struct crib_sockopt *o)
{
	unsigned char cur[4096];
	socklen_t len = sizeof(cur);

	if (getsockopt(fd, (int)o->level, (int)o->name, cur, &len))
		return false;
	return len == o->value.len && !memcmp(cur, o->value.data, len);
}

/*
 * Options a socket of this kind has a value for that nothing may set: an
 * accepted TCP socket's IP_MULTICAST_TTL is the TTL of the SYN it came
 * from, and the kernel refuses to set it on any TCP socket (it is never
 * used there); a netlink socket's NETLINK_LIST_MEMBERSHIPS is read only,
 * its groups joined one by one (netlink.c).
 */
static bool unsettable(const struct plan_socket *ps, const struct crib_sockopt *o)
{
	if (o->level == SOL_NETLINK && o->name == NETLINK_LIST_MEMBERSHIPS)
		return true;	/* joined group by group (netlink.c) */
	return ps->s.type == SOCK_STREAM && o->level == IPPROTO_IP &&
	       o->name == IP_MULTICAST_TTL;
}

static int apply(struct sock_job *j, const struct plan_socket *ps, int fd,
		 const struct crib_sockopt *o)
{
	char step[64];

	if (unsettable(ps, o) || same_value(fd, o) || !set_one(fd, o))
		return 0;
	snprintf(step, sizeof(step), "setting option %llu/%llu",
		 (unsigned long long)o->level, (unsigned long long)o->name);
	return sock_fail(j, ps, step, errno);
}

int sockopts_apply(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct crib_sockopt *lock = NULL, *o;
	size_t i;

	for (i = 0; i < ps->s.n_options; i++) {
		o = &ps->s.options[i];
		/* after the buffer sizes, which set their lock bits themselves */
		if (o->level == SOL_SOCKET && o->name == SO_BUF_LOCK) {
			lock = o;
			continue;
		}
		if (apply(j, ps, fd, o))
			return -1;
	}
	return lock ? apply(j, ps, fd, lock) : 0;
}

int sockopt_reapply(struct sock_job *j, const struct plan_socket *ps, int fd, int level,
		    int name)
{
	size_t i;

	for (i = 0; i < ps->s.n_options; i++)
		if ((int)ps->s.options[i].level == level && (int)ps->s.options[i].name == name)
			return apply(j, ps, fd, &ps->s.options[i]);
	return 0;
}
