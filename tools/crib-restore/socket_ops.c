// SPDX-License-Identifier: GPL-2.0
/*
 * What the protocols (tcp.c, udp.c, unix.c) do alike to one socket of
 * the tree: create it parked above the snapshot's descriptors, bind it,
 * check the local address connect() chose, shut it down, send on it, and
 * say what failed, naming the descriptor and the kind of socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "plan.h"
#include "socket_ops.h"
#include "socket_plan.h"

/* An IP datagram socket by its family and protocol. */
static const char *dgram_name(const struct crib_socket *s)
{
	bool v6 = s->family == AF_INET6;

	if (s->protocol == IPPROTO_UDPLITE)
		return v6 ? "inet6 udplite" : "inet udplite";
	if (s->protocol == IPPROTO_ICMP || s->protocol == IPPROTO_ICMPV6)
		return v6 ? "inet6 ping" : "inet ping";
	return v6 ? "inet6 udp" : "inet udp";
}

const char *socket_kind_name(const struct crib_socket *s)
{

	if (s->family == AF_UNIX)
		return s->type == SOCK_STREAM ? "unix stream" :
		       s->type == SOCK_DGRAM ? "unix dgram" :
		       s->type == SOCK_SEQPACKET ? "unix seqpacket" : "unix";
	if ((s->family == AF_INET || s->family == AF_INET6) && s->type == SOCK_DGRAM)
		return dgram_name(s);
	if (s->family == AF_INET)
		return s->type == SOCK_STREAM ? "inet tcp" : s->type == SOCK_RAW ? "inet raw" : "inet";
	if (s->family == AF_INET6)
		return s->type == SOCK_STREAM ? "inet6 tcp" :
		       s->type == SOCK_RAW ? "inet6 raw" : "inet6";
	if (s->family == AF_NETLINK)
		return "netlink";
	if (s->family == AF_PACKET)
		return "packet";
	return "socket";
}

int sock_fail(struct sock_job *j, const struct plan_socket *ps, const char *step, int errnum)
{
	return tool_fail(j->err, errnum, "fd %llu (%s): %s", (unsigned long long)ps->s.fd,
			 socket_kind_name(&ps->s), step);
}

int sock_refuse(struct sock_job *j, const struct plan_socket *ps, const char *why)
{
	return tool_fail(j->err, 0, "fd %llu (%s): %s", (unsigned long long)ps->s.fd,
			 socket_kind_name(&ps->s), why);
}

size_t sock_index(const struct sock_job *j, const struct plan_socket *ps)
{
	return (size_t)(ps - j->tree->sockets.items);
}

static socklen_t inet6_sockaddr(const struct plan_addr *a, struct sockaddr_in6 *in6)
{
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((uint16_t)a->port);
	if (a->family == AF_INET) {
		/* an IPv4 address on an IPv6 socket: v4-mapped */
		in6->sin6_addr.s6_addr[10] = 0xff;
		in6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(in6->sin6_addr.s6_addr + 12, a->addr, 4);
	} else {
		memcpy(&in6->sin6_addr, a->addr, a->len < 16 ? a->len : 16);
		in6->sin6_flowinfo = htonl(a->flowinfo);
		in6->sin6_scope_id = a->scope_id;
	}
	return sizeof(*in6);
}

socklen_t plan_sockaddr(const struct plan_addr *a, int family, struct sockaddr_storage *ss)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_UNIX) {
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, a->addr, a->len < sizeof(sun->sun_path) ?
		       a->len : sizeof(sun->sun_path));
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + a->len +
				   (a->len && a->addr[0] ? 1 : 0));
	}
	if (family == AF_INET6)
		return inet6_sockaddr(a, (struct sockaddr_in6 *)ss);
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)a->port);
	memcpy(&in->sin_addr, a->addr, 4);
	return sizeof(*in);
}

int sock_new(struct sock_job *j, const struct plan_socket *ps, int *fd)
{
	int s, parked;

	s = socket((int)ps->s.family, (int)ps->s.type, (int)ps->s.protocol);
	if (s < 0)
		return sock_fail(j, ps, "socket", errno);
	parked = fcntl(s, F_DUPFD, j->temp_base);
	close(s);
	if (parked < 0)
		return sock_fail(j, ps, "moving the socket", errno);
	*fd = parked;
	j->fds[sock_index(j, ps)] = parked;
	return 0;
}

/*
 * An IPv6 socket bound to a specific IPv6 address becomes IPv6-only, and
 * then cannot be made dual-stack again: one that was not IPv6-only got
 * its address from connect() (or accept()), not from bind().  It is bound
 * to the any address with its port, and connect() picks the address
 * again, the way it did the first time.
 */
static bool bound_by_connect(const struct plan_socket *ps)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	int v6only = 1;

	return ps->s.family == AF_INET6 && ps->local.family == AF_INET6 &&
	       ps->peer.family && memcmp(ps->local.addr, mapped, sizeof(mapped)) &&
	       plan_sockopt_int(ps, IPPROTO_IPV6, IPV6_V6ONLY, &v6only) && !v6only;
}

int sock_bind(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!ps->local.family)
		return 0;
	len = plan_sockaddr(&ps->local, (int)ps->s.family, &ss);
	if (bound_by_connect(ps))
		memset(&((struct sockaddr_in6 *)&ss)->sin6_addr, 0, sizeof(struct in6_addr));
	if (bind(fd, (struct sockaddr *)&ss, len))
		return sock_fail(j, ps, "bind", errno);
	return 0;
}

int sock_check_local(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	struct sockaddr_storage got, want;
	socklen_t len = sizeof(got), want_len;

	if (!ps->local.family)
		return 0;
	want_len = plan_sockaddr(&ps->local, (int)ps->s.family, &want);
	if (getsockname(fd, (struct sockaddr *)&got, &len))
		return sock_fail(j, ps, "getsockname", errno);
	if (ps->s.family == AF_INET6) {
		/* only the address and port say where it is */
		((struct sockaddr_in6 *)&got)->sin6_flowinfo = 0;
		((struct sockaddr_in6 *)&want)->sin6_flowinfo = 0;
	}
	if (len != want_len || memcmp(&got, &want, len))
		return sock_refuse(j, ps, "connect() chose another local address than it had");
	return 0;
}

int sock_shutdown(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	static const int how[] = { -1, SHUT_RD, SHUT_WR, SHUT_RDWR };

	if (!ps->s.shutdown)
		return 0;
	/* an unconnected datagram socket takes it, and says ENOTCONN */
	if (shutdown(fd, how[ps->s.shutdown & 3]) && errno != ENOTCONN)
		return sock_fail(j, ps, "shutdown", errno);
	return 0;
}

int sock_send_all(int fd, const void *buf, size_t len, int flags,
		  const struct sockaddr_storage *to, socklen_t to_len)
{
	const char *p = buf;
	ssize_t n;

	do {
		n = sendto(fd, p, len, flags | MSG_DONTWAIT | MSG_NOSIGNAL,
			   (const struct sockaddr *)to, to ? to_len : 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	} while (len);
	return 0;
}
