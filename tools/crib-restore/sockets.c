// SPDX-License-Identifier: GPL-2.0
/*
 * Sockets: what is checked before anything is created, and the order in
 * which the child creates them.
 *
 * Every socket is created first, with its options, bound, listening or
 * (UDP) connected; TCP listeners before any connection, whose local port
 * they share.  Then UNIX sockets connect to each other, by name where
 * they have one, and every queue is filled again: UNIX data sent by the
 * peer or the named sender it came from, UDP packets through the CRIB
 * program, a pending UDP datagram sent again corked.  TCP connections are
 * rebuilt in repair mode, all of them, and stay in it (silent: a process
 * that fails from here on closes them without a FIN or a reset) until
 * the child is about to jump into the restorer, when sockets_resume()
 * releases their network lock and only then takes them out of repair
 * mode, so that no packet they send meets the lock or a local peer that
 * does not exist yet; their unsent data is written last.  Several
 * descriptors of one socket share what the first of them got.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "sockets.h"

const char *socket_kind_name(const struct crib_socket *s)
{
	if (s->family == AF_UNIX)
		return s->type == SOCK_STREAM ? "unix stream" :
		       s->type == SOCK_DGRAM ? "unix dgram" :
		       s->type == SOCK_SEQPACKET ? "unix seqpacket" : "unix";
	if (s->family == AF_INET)
		return s->type == SOCK_STREAM ? "inet tcp" :
		       s->type == SOCK_DGRAM ? "inet udp" : "inet";
	if (s->family == AF_INET6)
		return s->type == SOCK_STREAM ? "inet6 tcp" :
		       s->type == SOCK_DGRAM ? "inet6 udp" : "inet6";
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
	return (size_t)(ps - j->plan->sockets.items);
}

static socklen_t inet6_sockaddr(const struct plan_addr *a, struct sockaddr_in6 *in6)
{
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(a->port);
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
	in->sin_port = htons(a->port);
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
	       sockopt_int(ps, IPPROTO_IPV6, IPV6_V6ONLY, &v6only) && !v6only;
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

static bool is_tcp(const struct crib_socket *s)
{
	return (s->family == AF_INET || s->family == AF_INET6) && s->type == SOCK_STREAM;
}

static bool is_udp(const struct crib_socket *s)
{
	return (s->family == AF_INET || s->family == AF_INET6) && s->type == SOCK_DGRAM;
}

static int check_socket(const struct restore_plan *plan, const struct plan_socket *ps,
			struct tool_error *err)
{
	const struct plan_socket *first = plan_find_socket_id(plan, ps->s.sock_id);
	bool has_file = false;
	size_t i;

	for (i = 0; i < plan->files.n; i++)
		if (plan->files.items[i].fd == ps->s.fd)
			has_file = plan->files.items[i].type == CRIB_FILE_SOCKET;
	if (!has_file)
		return tool_fail(err, 0, "fd %llu: a socket record for a descriptor that is "
				 "not a socket", (unsigned long long)ps->s.fd);
	if (first != ps)	/* another descriptor of the same socket */
		return first->s.type == ps->s.type ? 0 :
			tool_fail(err, 0, "fd %llu: socket %llu recorded twice, differently",
				  (unsigned long long)ps->s.fd,
				  (unsigned long long)ps->s.sock_id);
	if (is_tcp(&ps->s))
		return tcp_check(plan, ps, err);
	if (is_udp(&ps->s))
		return udp_check(plan, ps, err);
	if (ps->s.family == AF_UNIX)
		return unix_check(plan, ps, err);
	return tool_fail(err, 0, "fd %llu: %s sockets (family %llu, type %llu) cannot be "
			 "restored", (unsigned long long)ps->s.fd, socket_kind_name(&ps->s),
			 (unsigned long long)ps->s.family, (unsigned long long)ps->s.type);
}

int sockets_check(const struct restore_plan *plan, struct tool_error *err)
{
	size_t i;

	for (i = 0; i < plan->sockets.n; i++)
		if (check_socket(plan, &plan->sockets.items[i], err))
			return -1;
	return 0;
}

/* The first descriptor of each socket, in one of the passes below. */
static bool first_of(const struct sock_job *j, size_t i)
{
	const struct plan_socket *ps = &j->plan->sockets.items[i];

	return plan_find_socket_id(j->plan, ps->s.sock_id) == ps;
}

/* Sockets other than TCP connections: created, bound, listening. */
static int create_pass(struct sock_job *j)
{
	const struct plan_socket *ps;
	size_t i;
	int ret;

	/* TCP listeners first: connections share their port */
	for (i = 0; i < j->plan->sockets.n; i++) {
		ps = &j->plan->sockets.items[i];
		if (first_of(j, i) && is_tcp(&ps->s) &&
		    (ps->s.state == CRIB_SK_LISTEN || ps->s.state == CRIB_SK_CLOSE) && tcp_create(j, ps))
			return -1;
	}
	for (i = 0; i < j->plan->sockets.n; i++) {
		ps = &j->plan->sockets.items[i];
		if (!first_of(j, i) || is_tcp(&ps->s))
			continue;
		ret = is_udp(&ps->s) ? udp_create(j, ps) : unix_create(j, ps);
		if (ret)
			return -1;
	}
	return 0;
}

static int fill_pass(struct sock_job *j)
{
	const struct plan_socket *ps;
	size_t i;

	for (i = 0; i < j->plan->sockets.n; i++) {
		ps = &j->plan->sockets.items[i];
		if (first_of(j, i) && ps->s.family == AF_UNIX && unix_connect(j, ps))
			return -1;
	}
	for (i = 0; i < j->plan->sockets.n; i++) {
		ps = &j->plan->sockets.items[i];
		if (!first_of(j, i))
			continue;
		if (ps->s.family == AF_UNIX && unix_fill(j, ps))
			return -1;
		if (is_udp(&ps->s) && udp_fill(j, ps))
			return -1;
	}
	/* last: a shut down end sends nothing more, and its peer takes nothing */
	for (i = 0; i < j->plan->sockets.n; i++) {
		ps = &j->plan->sockets.items[i];
		if (first_of(j, i) && ps->s.family == AF_UNIX &&
		    sock_shutdown(j, ps, j->fds[i]))
			return -1;
	}
	return 0;
}

static bool is_tcp_connection(const struct sock_job *j, size_t i)
{
	const struct crib_socket *s = &j->plan->sockets.items[i].s;

	return first_of(j, i) && is_tcp(s) && s->state != CRIB_SK_LISTEN && s->state != CRIB_SK_CLOSE;
}

/* Every TCP connection rebuilt, still in repair mode: it sends nothing yet. */
static int tcp_pass(struct sock_job *j)
{
	size_t i;

	for (i = 0; i < j->plan->sockets.n; i++)
		if (is_tcp_connection(j, i) && tcp_repair(j, &j->plan->sockets.items[i]))
			return -1;
	return 0;
}

int sockets_create(const struct restore_plan *plan, struct udp_refill *refill, int temp_base,
		   int *fds, struct tool_error *err)
{
	struct sock_job j = {
		.plan = plan, .refill = refill, .temp_base = temp_base, .fds = fds, .err = err,
	};
	size_t i;

	for (i = 0; i < plan->sockets.n; i++)
		fds[i] = -1;
	if (create_pass(&j) || fill_pass(&j) || tcp_pass(&j))
		return -1;
	return 0;
}

int sockets_resume(const struct restore_plan *plan, struct tool_error *err)
{
	struct sock_job j = { .plan = plan, .err = err };
	size_t i;
	int ret = -1;

	j.fds = calloc(plan->sockets.n + 1, sizeof(int));
	if (!j.fds)
		return tool_fail(err, 0, "out of memory");
	/* every descriptor is at its number now */
	for (i = 0; i < plan->sockets.n; i++)
		j.fds[i] = (int)plan->sockets.items[i].s.fd;
	if (network_release(plan, err))
		goto out;
	for (i = 0; i < plan->sockets.n; i++)
		if (is_tcp_connection(&j, i) && tcp_finish(&j, &plan->sockets.items[i]))
			goto out;
	for (i = 0; i < plan->sockets.n; i++)
		if (is_tcp_connection(&j, i) && tcp_resume(&j, &plan->sockets.items[i]))
			goto out;
	ret = 0;
out:
	free(j.fds);
	return ret;
}
