// SPDX-License-Identifier: GPL-2.0
/*
 * A workload holding sockets of every kind crib-dump supports, with data
 * queued on them and options set, and a self-check that reads all of it
 * back.
 *
 *   sockets [--no-child] [--only tcp|udp|unix] DIR
 *
 * --only sets up one kind of socket.  Opens: a TCP listener; TCP connections inside the process with unread
 * data both ways, one read part-way, one whose receiver is full so the
 * sender holds unsent data, one shut down for writing (FIN_WAIT2 and
 * CLOSE_WAIT); an IPv6 TCP connection through a dual-stack listener; a
 * TCP connection to a process it started and handed away, out of its
 * tree, a peer that outlives the workload (not with --no-child); UDP sockets (IPv4, dual-stack IPv6,
 * IPv6-only) with datagrams queued from several senders, in both UDP
 * receive queues, one connected after another sender's datagram was
 * queued; a corked UDP datagram and an IPv6 one pending with
 * MSG_MORE; UNIX stream, datagram and seqpacket pairs with queued data; an
 * abstract-named UNIX socket with datagrams from named and unnamed
 * senders; named UNIX datagram sockets connected to each other; a UNIX
 * listener bound to a path, and a connection it accepted;
 * a UNIX connection whose peer sent data and was closed.
 *
 * Once set up and settled it writes its ground truth to DIR/truth.json:
 * every socket by name with its descriptor, what getsockname(),
 * getpeername() and getsockopt() return, TCP_INFO, the queue ioctls and
 * the TCP_REPAIR sequence numbers and window, and the data each queue
 * should hold; then DIR/ready.  On SIGUSR1 it reads every queue back and
 * checks the data, the sources, the pending datagrams, the options and
 * that every connection still works both ways, and writes "ok" (or what
 * failed) to DIR/check.
 *
 * Stream data byte i of a flow with seed s is (s * 31 + i * 7 + (i >> 8))
 * & 0xff, i counted from the start of the flow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "ready.h"
#include "selfcheck.h"

#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK		72
#endif
#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX	62
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT		103
#endif
#ifndef UDP_GRO
#define UDP_GRO			104
#endif
#ifndef TCP_REPAIR_OFF_NO_WP
#define TCP_REPAIR_OFF_NO_WP	-1
#endif
#ifndef TCP_TIMESTAMP
#define TCP_TIMESTAMP		24
#endif

#define MAX_SOCKS	48
#define MAX_FLOWS	16
#define MAX_MSGS	32
#define FULL_LIMIT	(8 << 20)	/* at most this much into the full connection */

enum kind { TCP, UDP, UNIX };

struct sock {
	const char *name;
	int fd;
	enum kind kind;
	int family;
	int state;		/* expected sk_state, for UDP and UNIX */
	int backlog;
	int maxseg;		/* TCP_MAXSEG set, 0 if not */
	int hops;		/* IPV6_UNICAST_HOPS set, -1 if not */
	const char *peer;	/* UNIX: the socket at the other end */
};

/*
 * Bytes of a stream going from one socket to another; @from NULL: from no
 * socket of the process (the child's, or a closed peer's).
 */
struct flow {
	const char *from, *to;
	int seed;
	size_t start, len;	/* still queued: bytes start .. start + len */
};

/* A queued message; @src NULL for none. */
struct msg {
	const char *to;
	const char *src;	/* socket name whose address it comes from */
	unsigned char data[64];
	size_t len;
	int pending;		/* a send-side pending datagram: @src is where it goes */
};

static struct sock socks[MAX_SOCKS];
static int n_socks;
static struct flow flows[MAX_FLOWS];
static int n_flows;
static struct msg msgs[MAX_MSGS];
static int n_msgs;
static const char *dir;

/* The options crib-dump records, as spec/format.md lists them. */
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD	76	/* Linux 6.5; newer than some libc headers */
#endif

struct opt {
	int level, name;
	socklen_t len;
};

static const struct opt socket_opts[] = {
	{ SOL_SOCKET, SO_REUSEADDR, 4 }, { SOL_SOCKET, SO_REUSEPORT, 4 },
	{ SOL_SOCKET, SO_KEEPALIVE, 4 }, { SOL_SOCKET, SO_BROADCAST, 4 },
	{ SOL_SOCKET, SO_DONTROUTE, 4 }, { SOL_SOCKET, SO_OOBINLINE, 4 },
	{ SOL_SOCKET, SO_LINGER, 8 }, { SOL_SOCKET, SO_SNDBUF, 4 },
	{ SOL_SOCKET, SO_RCVBUF, 4 }, { SOL_SOCKET, SO_BUF_LOCK, 4 },
	{ SOL_SOCKET, SO_RCVLOWAT, 4 }, { SOL_SOCKET, SO_RCVTIMEO, 16 },
	{ SOL_SOCKET, SO_SNDTIMEO, 16 }, { SOL_SOCKET, SO_PRIORITY, 4 },
	{ SOL_SOCKET, SO_MARK, 4 }, { SOL_SOCKET, SO_PASSCRED, 4 },
	{ SOL_SOCKET, SO_TIMESTAMP, 4 }, { SOL_SOCKET, SO_TIMESTAMPNS, 4 },
	{ SOL_SOCKET, SO_RXQ_OVFL, 4 }, { SOL_SOCKET, SO_PEEK_OFF, 4 },
	{ SOL_SOCKET, SO_BINDTOIFINDEX, 4 }, { SOL_SOCKET, SO_DEBUG, 4 },
	{ SOL_SOCKET, SO_NO_CHECK, 4 }, { SOL_SOCKET, SO_PASSSEC, 4 },
	{ SOL_SOCKET, SO_PASSPIDFD, 4 }, { SOL_SOCKET, SO_WIFI_STATUS, 4 },
	{ SOL_SOCKET, SO_NOFCS, 4 }, { SOL_SOCKET, SO_SELECT_ERR_QUEUE, 4 },
	{ SOL_SOCKET, SO_RCVMARK, 4 }, { SOL_SOCKET, SO_TXREHASH, 4 },
	{ SOL_SOCKET, SO_MAX_PACING_RATE, 8 },
};

static const struct opt ip_opts[] = {
	{ IPPROTO_IP, IP_TOS, 4 }, { IPPROTO_IP, IP_TTL, 4 }, { IPPROTO_IP, IP_MINTTL, 4 },
	{ IPPROTO_IP, IP_MTU_DISCOVER, 4 }, { IPPROTO_IP, IP_MULTICAST_TTL, 4 },
	{ IPPROTO_IP, IP_MULTICAST_LOOP, 4 }, { IPPROTO_IP, IP_PKTINFO, 4 },
	{ IPPROTO_IP, IP_RECVTTL, 4 }, { IPPROTO_IP, IP_RECVTOS, 4 },
	{ IPPROTO_IP, IP_RECVERR, 4 }, { IPPROTO_IP, IP_RECVORIGDSTADDR, 4 },
	{ IPPROTO_IP, IP_FREEBIND, 4 }, { IPPROTO_IP, IP_TRANSPARENT, 4 },
	{ IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 4 },
};

static const struct opt ipv6_opts[] = {
	{ IPPROTO_IPV6, IPV6_V6ONLY, 4 }, { IPPROTO_IPV6, IPV6_TCLASS, 4 },
};

static const struct opt tcp_opts[] = {
	{ IPPROTO_TCP, TCP_NODELAY, 4 }, { IPPROTO_TCP, TCP_CORK, 4 },
	{ IPPROTO_TCP, TCP_KEEPIDLE, 4 }, { IPPROTO_TCP, TCP_KEEPINTVL, 4 },
	{ IPPROTO_TCP, TCP_KEEPCNT, 4 }, { IPPROTO_TCP, TCP_SYNCNT, 4 },
	{ IPPROTO_TCP, TCP_LINGER2, 4 }, { IPPROTO_TCP, TCP_DEFER_ACCEPT, 4 },
	{ IPPROTO_TCP, TCP_USER_TIMEOUT, 4 }, { IPPROTO_TCP, TCP_NOTSENT_LOWAT, 4 },
	{ IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, 4 }, { IPPROTO_TCP, TCP_CONGESTION, 16 },
	{ IPPROTO_TCP, TCP_WINDOW_CLAMP, 4 },
};

static const struct opt udp_opts[] = {
	{ IPPROTO_UDP, UDP_CORK, 4 }, { IPPROTO_UDP, UDP_SEGMENT, 4 }, { IPPROTO_UDP, UDP_GRO, 4 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sockets: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(1);
}

static unsigned char pattern(int seed, size_t i)
{
	return (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

static struct sock *add(const char *name, int fd, enum kind kind, int family)
{
	struct sock *s = &socks[n_socks++];

	if (fd < 0)
		die("socket for %s", name);
	*s = (struct sock){ .name = name, .fd = fd, .kind = kind, .family = family,
			    .state = 7, .hops = -1 };
	return s;
}

static struct sock *lookup(const char *name)
{
	for (int i = 0; i < n_socks; i++)
		if (!strcmp(socks[i].name, name))
			return &socks[i];
	return NULL;
}

static struct sock *find(const char *name)
{
	struct sock *s = lookup(name);

	if (s)
		return s;
	fprintf(stderr, "sockets: no socket %s\n", name);
	exit(1);
}

static void set_int(const char *name, int level, int opt, int val)
{
	if (setsockopt(find(name)->fd, level, opt, &val, sizeof(val)))
		die("setsockopt %d/%d on %s", level, opt, name);
}

static void set_raw(const char *name, int level, int opt, const void *val, socklen_t len)
{
	if (setsockopt(find(name)->fd, level, opt, val, len))
		die("setsockopt %d/%d on %s", level, opt, name);
}

static socklen_t loopback(int family, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons(port);
		return sizeof(*in);
	}
	((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	return sizeof(struct sockaddr_in6);
}

static socklen_t name_of(int fd, struct sockaddr_storage *ss)
{
	socklen_t len = sizeof(*ss);

	if (getsockname(fd, (struct sockaddr *)ss, &len))
		die("getsockname");
	return len;
}

static void bind_loopback(struct sock *s)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(s->family, 0, &ss);

	if (bind(s->fd, (struct sockaddr *)&ss, len))
		die("bind %s", s->name);
}

static void connect_to(struct sock *s, const struct sock *to)
{
	struct sockaddr_storage ss;
	socklen_t len = name_of(to->fd, &ss);

	if (s->family == AF_INET6 && ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (connect(s->fd, (struct sockaddr *)&ss, len))
		die("connect %s", s->name);
}

static void send_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, 0);
		if (n <= 0)
			die("send");
		buf += n;
		len -= (size_t)n;
	}
}

static void send_pattern(int fd, int seed, size_t start, size_t len)
{
	unsigned char buf[4096];
	size_t i, n;

	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern(seed, start + i);
		send_all(fd, buf, n);
		start += n;
		len -= n;
	}
}

static void flow(const char *from, const char *to, int seed, size_t start, size_t len)
{
	flows[n_flows++] = (struct flow){ from, to, seed, start, len };
}

/* A stream @len bytes from @from to @to, of which @to reads @read. */
static void stream(const char *from, const char *to, int seed, size_t len, size_t read_now)
{
	unsigned char buf[4096];

	send_pattern(find(from)->fd, seed, 0, len);
	if (read_now && recv(find(to)->fd, buf, read_now, MSG_WAITALL) != (ssize_t)read_now)
		die("recv on %s", to);
	flow(from, to, seed, read_now, len - read_now);
}

static void msg(const char *from, const char *to, const char *text, int flags)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	struct msg *m = &msgs[n_msgs++];
	struct sock *f = find(from), *t = find(to);

	m->to = to;
	m->src = from;
	m->len = strlen(text);
	memcpy(m->data, text, m->len);
	if (t->kind == UDP) {
		len = name_of(t->fd, &ss);
		if (ss.ss_family == AF_INET6 && f->family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		else if (ss.ss_family == AF_INET6)	/* a v4 sender to a dual-stack socket */
			len = loopback(AF_INET, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), &ss);
	} else if (!t->peer || strcmp(t->peer, from)) {
		len = name_of(t->fd, &ss);
	}
	if (sendto(f->fd, text, m->len, flags, len ? (struct sockaddr *)&ss : NULL, len) !=
	    (ssize_t)m->len)
		die("sendto from %s to %s", from, to);
}

static void recv_one(const char *name)
{
	char buf[128];

	if (recv(find(name)->fd, buf, sizeof(buf), 0) < 0)
		die("recv on %s", name);
	/* the oldest message to it is gone */
	for (int i = 0; i < n_msgs; i++) {
		if (!msgs[i].pending && !strcmp(msgs[i].to, name)) {
			memmove(&msgs[i], &msgs[i + 1], (n_msgs - i - 1) * sizeof(msgs[0]));
			n_msgs--;
			return;
		}
	}
}

static int tcp_socket(const char *name, int family)
{
	return add(name, socket(family, SOCK_STREAM, 0), TCP, family)->fd;
}

static void tcp_listener(const char *name, int family, int backlog)
{
	struct sock *s;

	tcp_socket(name, family);
	s = find(name);
	s->backlog = backlog;
}

static void listen_now(const char *name)
{
	struct sock *s = find(name);
	struct sockaddr_storage ss;
	socklen_t len = loopback(s->family, 0, &ss);

	if (s->family == AF_INET6)	/* dual-stack: the any address */
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_any;
	if (bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, s->backlog))
		die("listen on %s", name);
}

static void tcp_accept(const char *listener, const char *name)
{
	struct sock *l = find(listener);

	add(name, accept(l->fd, NULL, NULL), TCP, l->family);
}

/*
 * The peer of the connection to a child process: it sends 3000 bytes and
 * reads nothing.  A peer that outlives the workload, as a peer across the
 * network would: it waits until its connection ends (a FIN or a reset)
 * and exits then, not when the workload dies.  Its pid, then its port, go
 * to @wfd.
 */
static void __attribute__((noreturn)) peer_main(int wfd)
{
	struct sockaddr_storage ss;
	struct pollfd pfd;
	socklen_t len;
	uint16_t port;
	pid_t self = getpid();
	int l, c;

	l = socket(AF_INET, SOCK_STREAM, 0);
	len = loopback(AF_INET, 0, &ss);
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) || listen(l, 1))
		die("child listener");
	name_of(l, &ss);
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (write(wfd, &self, sizeof(self)) != sizeof(self) ||
	    write(wfd, &port, sizeof(port)) != sizeof(port))
		die("child pipe");
	c = accept(l, NULL, NULL);
	if (c < 0)
		die("child accept");
	close(l);
	send_pattern(c, 7, 0, 3000);
	/* POLLRDHUP only: the data it never reads does not wake it */
	pfd = (struct pollfd){ .fd = c, .events = POLLRDHUP };
	while (poll(&pfd, 1, -1) < 0 || !pfd.revents)
		;
	_exit(0);
}

/*
 * The connection to a child process, whose PID goes to DIR/child.pid.  It
 * is forked by a child that exits at once, so it is no descendant of the
 * workload: a dump of the workload's tree leaves it outside.
 */
static void child_connection(void)
{
	struct sockaddr_storage ss;
	char path[1024], text[32];
	socklen_t len;
	uint16_t port;
	pid_t child, peer;
	int p[2], status;

	if (pipe(p))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(p[0]);
		if (fork() == 0)
			peer_main(p[1]);
		_exit(0);
	}
	close(p[1]);
	if (waitpid(child, &status, 0) != child || status)
		die("the child that forks the peer");
	if (read(p[0], &peer, sizeof(peer)) != sizeof(peer) ||
	    read(p[0], &port, sizeof(port)) != sizeof(port))
		die("reading the child's pid and port");
	snprintf(path, sizeof(path), "%s/child.pid", dir);
	snprintf(text, sizeof(text), "%d\n", (int)peer);
	if (write_ready(path, text))
		die("writing %s", path);
	close(p[0]);
	tcp_socket("child-conn", AF_INET);
	set_int("child-conn", SOL_SOCKET, SO_KEEPALIVE, 1);
	set_int("child-conn", SOL_SOCKET, SO_RCVLOWAT, 5);
	len = loopback(AF_INET, port, &ss);
	if (connect(find("child-conn")->fd, (struct sockaddr *)&ss, len))
		die("connect to the child");
	send_pattern(find("child-conn")->fd, 8, 0, 1000);	/* the child never reads it */
	flow(NULL, "child-conn", 7, 0, 3000);
}

static void setup_tcp(void)
{
	struct linger ling = { 1, 9 };
	struct timeval rcvtimeo = { 2, 500000 }, sndtimeo = { 3, 0 };
	uint64_t pacing = 1000000;
	unsigned char buf[4096];
	size_t total = 0;
	int fd, flags;
	ssize_t n;

	tcp_listener("tcp-listener", AF_INET, 7);
	set_int("tcp-listener", SOL_SOCKET, SO_REUSEADDR, 1);
	set_int("tcp-listener", SOL_SOCKET, SO_REUSEPORT, 1);
	listen_now("tcp-listener");

	/* unread data both ways, one side read part-way; many options */
	tcp_socket("tcp-client", AF_INET);
	set_int("tcp-client", IPPROTO_TCP, TCP_NODELAY, 1);
	set_int("tcp-client", SOL_SOCKET, SO_KEEPALIVE, 1);
	set_int("tcp-client", IPPROTO_TCP, TCP_KEEPIDLE, 77);
	set_int("tcp-client", IPPROTO_TCP, TCP_KEEPINTVL, 13);
	set_int("tcp-client", IPPROTO_TCP, TCP_KEEPCNT, 4);
	set_int("tcp-client", IPPROTO_TCP, TCP_SYNCNT, 3);
	set_int("tcp-client", IPPROTO_TCP, TCP_LINGER2, 30);
	set_int("tcp-client", IPPROTO_TCP, TCP_USER_TIMEOUT, 12345);
	set_int("tcp-client", IPPROTO_TCP, TCP_NOTSENT_LOWAT, 65536);
	set_int("tcp-client", SOL_SOCKET, SO_PRIORITY, 3);
	set_int("tcp-client", SOL_SOCKET, SO_MARK, 42);
	set_int("tcp-client", SOL_SOCKET, SO_OOBINLINE, 1);
	set_int("tcp-client", SOL_SOCKET, SO_SNDBUF, 50000);
	set_int("tcp-client", IPPROTO_IP, IP_TOS, 0x10);
	set_int("tcp-client", IPPROTO_IP, IP_TTL, 42);
	set_int("tcp-client", SOL_SOCKET, SO_DEBUG, 1);
	set_int("tcp-client", SOL_SOCKET, SO_TXREHASH, 0);
	set_raw("tcp-client", SOL_SOCKET, SO_MAX_PACING_RATE, &pacing, sizeof(pacing));
	set_int("tcp-client", IPPROTO_TCP, TCP_WINDOW_CLAMP, 20000);
	set_raw("tcp-client", SOL_SOCKET, SO_LINGER, &ling, sizeof(ling));
	set_raw("tcp-client", SOL_SOCKET, SO_RCVTIMEO, &rcvtimeo, sizeof(rcvtimeo));
	set_raw("tcp-client", SOL_SOCKET, SO_SNDTIMEO, &sndtimeo, sizeof(sndtimeo));
	connect_to(find("tcp-client"), find("tcp-listener"));
	tcp_accept("tcp-listener", "tcp-server");
	set_int("tcp-server", IPPROTO_TCP, TCP_CORK, 1);
	stream("tcp-client", "tcp-server", 1, 1000, 100);
	stream("tcp-server", "tcp-client", 2, 2000, 0);

	/* a receiver that never reads, until the sender can send no more */
	tcp_socket("full-sender", AF_INET);
	set_int("full-sender", SOL_SOCKET, SO_SNDBUF, 256 << 10);
	connect_to(find("full-sender"), find("tcp-listener"));
	tcp_accept("tcp-listener", "full-receiver");
	set_int("full-receiver", SOL_SOCKET, SO_RCVBUFFORCE, 1 << 20);
	fd = find("full-sender")->fd;
	flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	/* until a round moves nothing: the receiver is full, the sender holds the rest */
	for (size_t before = SIZE_MAX; total != before;) {
		before = total;
		for (;;) {
			for (size_t i = 0; i < sizeof(buf); i++)
				buf[i] = pattern(3, total + i);
			n = send(fd, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			total += (size_t)n;
			if (total > FULL_LIMIT)
				die("the full connection takes more than %d bytes", FULL_LIMIT);
		}
		if (errno != EAGAIN)
			die("send on full-sender");
		usleep(300 * 1000);
	}
	fcntl(fd, F_SETFL, flags);
	flow("full-sender", "full-receiver", 3, 0, total);

	/* shut down for writing: FIN_WAIT2 and CLOSE_WAIT, data before the FIN */
	tcp_socket("fin-sender", AF_INET);
	connect_to(find("fin-sender"), find("tcp-listener"));
	tcp_accept("tcp-listener", "fin-receiver");
	stream("fin-sender", "fin-receiver", 4, 500, 0);
	if (shutdown(find("fin-sender")->fd, SHUT_WR))
		die("shutdown");

	/* IPv6 through a dual-stack listener that accepts only with data */
	tcp_listener("tcp6-listener", AF_INET6, 3);
	set_int("tcp6-listener", IPPROTO_IPV6, IPV6_V6ONLY, 0);
	set_int("tcp6-listener", IPPROTO_TCP, TCP_DEFER_ACCEPT, 5);
	listen_now("tcp6-listener");
	tcp_socket("tcp6-client", AF_INET6);
	set_int("tcp6-client", IPPROTO_TCP, TCP_MAXSEG, 1200);
	find("tcp6-client")->maxseg = 1200;
	set_int("tcp6-client", IPPROTO_IPV6, IPV6_TCLASS, 0x28);
	connect_to(find("tcp6-client"), find("tcp6-listener"));
	send_pattern(find("tcp6-client")->fd, 5, 0, 300);
	tcp_accept("tcp6-listener", "tcp6-server");
	flow("tcp6-client", "tcp6-server", 5, 0, 300);
	stream("tcp6-server", "tcp6-client", 6, 400, 0);
}

static int udp_socket(const char *name, int family)
{
	struct sock *s = add(name, socket(family, SOCK_DGRAM, 0), UDP, family);

	return s->fd;
}

static void setup_udp(void)
{
	struct sock *s;

	udp_socket("udp4", AF_INET);
	set_int("udp4", SOL_SOCKET, SO_BROADCAST, 1);
	set_int("udp4", SOL_SOCKET, SO_RCVBUF, 100000);
	set_int("udp4", SOL_SOCKET, SO_TIMESTAMP, 1);
	set_int("udp4", IPPROTO_IP, IP_PKTINFO, 1);
	set_int("udp4", IPPROTO_IP, IP_RECVTTL, 1);
	set_int("udp4", SOL_SOCKET, SO_NO_CHECK, 1);
	set_int("udp4", SOL_SOCKET, SO_NOFCS, 1);
	set_int("udp4", SOL_SOCKET, SO_WIFI_STATUS, 1);
	set_int("udp4", SOL_SOCKET, SO_SELECT_ERR_QUEUE, 1);
	set_int("udp4", SOL_SOCKET, SO_RCVMARK, 1);
	bind_loopback(find("udp4"));
	for (const char *n = "abc"; *n; n++) {
		static char names[3][16];
		int i = *n - 'a';

		snprintf(names[i], sizeof(names[i]), "udp4-sender-%c", *n);
		udp_socket(names[i], AF_INET);
		bind_loopback(find(names[i]));
	}
	/* d0 read: d1 and d2 move to the reader queue, d3 and d4 arrive after */
	msg("udp4-sender-a", "udp4", "d0 from a", 0);
	msg("udp4-sender-b", "udp4", "d1 from b", 0);
	msg("udp4-sender-c", "udp4", "d2 from c", 0);
	recv_one("udp4");
	msg("udp4-sender-a", "udp4", "d3 from a, later", 0);
	msg("udp4-sender-c", "udp4", "d4 from c, later", 0);

	/* dual-stack: IPv6 and IPv4 senders */
	udp_socket("udp6", AF_INET6);
	set_int("udp6", IPPROTO_IPV6, IPV6_V6ONLY, 0);
	set_int("udp6", IPPROTO_IPV6, IPV6_UNICAST_HOPS, 33);
	find("udp6")->hops = 33;
	set_int("udp6", IPPROTO_IPV6, IPV6_TCLASS, 0x10);
	set_int("udp6", SOL_SOCKET, SO_REUSEADDR, 1);
	s = find("udp6");
	{
		struct sockaddr_in6 any = { .sin6_family = AF_INET6, .sin6_addr = in6addr_any };

		if (bind(s->fd, (struct sockaddr *)&any, sizeof(any)))
			die("bind udp6");
	}
	udp_socket("udp6-sender-v6", AF_INET6);
	bind_loopback(find("udp6-sender-v6"));
	udp_socket("udp6-sender-v4", AF_INET);
	bind_loopback(find("udp6-sender-v4"));
	msg("udp6-sender-v6", "udp6", "e0 over IPv6", 0);
	msg("udp6-sender-v4", "udp6", "e1 over IPv4", 0);
	msg("udp6-sender-v6", "udp6", "e2 over IPv6", 0);
	recv_one("udp6");
	msg("udp6-sender-v4", "udp6", "e3 over IPv4, later", 0);

	udp_socket("udp6-only", AF_INET6);
	set_int("udp6-only", IPPROTO_IPV6, IPV6_V6ONLY, 1);
	bind_loopback(find("udp6-only"));

	/* a datagram corked on a connected socket, to udp4 */
	udp_socket("udp-corked", AF_INET);
	set_int("udp-corked", IPPROTO_IP, IP_TOS, 0x08);
	bind_loopback(find("udp-corked"));
	connect_to(find("udp-corked"), find("udp4"));
	find("udp-corked")->state = 1;
	set_int("udp-corked", IPPROTO_UDP, UDP_CORK, 1);
	send_all(find("udp-corked")->fd, (const unsigned char *)"part1,", 6);
	send_all(find("udp-corked")->fd, (const unsigned char *)"part2", 5);
	msgs[n_msgs++] = (struct msg){ .to = "udp-corked", .src = "udp4", .data = "part1,part2",
				       .len = 11, .pending = 1 };

	/*
	 * connected once a datagram from another sender was queued: it keeps
	 * that one, which its peer did not send
	 */
	udp_socket("udp4-connected", AF_INET);
	bind_loopback(find("udp4-connected"));
	msg("udp4-sender-a", "udp4-connected", "f0 from a, before it connected", 0);
	connect_to(find("udp4-connected"), find("udp4-sender-b"));
	find("udp4-connected")->state = 1;
	msg("udp4-sender-b", "udp4-connected", "f1 from b, its peer", 0);

	/* an IPv6 datagram pending with MSG_MORE, unconnected, to udp6 */
	udp_socket("udp6-more", AF_INET6);
	bind_loopback(find("udp6-more"));
	msg("udp6-more", "udp6", "abc", MSG_MORE);
	n_msgs--;
	msgs[n_msgs++] = (struct msg){ .to = "udp6-more", .src = "udp6", .data = "abc",
				       .len = 3, .pending = 1 };
}

static void unix_pair(const char *a, const char *b, int type)
{
	int sv[2];

	if (socketpair(AF_UNIX, type, 0, sv))
		die("socketpair");
	add(a, sv[0], UNIX, AF_UNIX)->peer = b;
	add(b, sv[1], UNIX, AF_UNIX)->peer = a;
	find(a)->state = find(b)->state = 1;
}

static void unix_bind(const char *name, const char *path, int abstract)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;

	if (abstract) {
		snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1, "%s-%d", path, (int)getpid());
		len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sun.sun_path + 1);
	} else {
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s", dir, path);
		len = sizeof(sun);
	}
	if (bind(find(name)->fd, (struct sockaddr *)&sun, len))
		die("bind %s", name);
}

static void setup_unix(void)
{
	unix_pair("unix-stream-a", "unix-stream-b", SOCK_STREAM);
	set_int("unix-stream-a", SOL_SOCKET, SO_PASSCRED, 1);
	set_int("unix-stream-a", SOL_SOCKET, SO_PASSSEC, 1);
	set_int("unix-stream-a", SOL_SOCKET, SO_PASSPIDFD, 1);
	send_pattern(find("unix-stream-a")->fd, 9, 0, 3000);
	send_pattern(find("unix-stream-a")->fd, 9, 3000, 2000);
	{
		unsigned char buf[1000];

		if (recv(find("unix-stream-b")->fd, buf, sizeof(buf), MSG_WAITALL) != sizeof(buf))
			die("recv on unix-stream-b");
	}
	flow("unix-stream-a", "unix-stream-b", 9, 1000, 4000);
	stream("unix-stream-b", "unix-stream-a", 10, 700, 0);

	unix_pair("unix-dgram-a", "unix-dgram-b", SOCK_DGRAM);
	msg("unix-dgram-a", "unix-dgram-b", "first datagram", 0);
	msg("unix-dgram-a", "unix-dgram-b", "second", 0);
	msg("unix-dgram-a", "unix-dgram-b", "third, and last", 0);
	msg("unix-dgram-b", "unix-dgram-a", "the other way", 0);

	unix_pair("unix-seq-a", "unix-seq-b", SOCK_SEQPACKET);
	msg("unix-seq-a", "unix-seq-b", "record one", 0);
	msg("unix-seq-a", "unix-seq-b", "record two", 0);
	msg("unix-seq-b", "unix-seq-a", "a reply", 0);

	/* an abstract name, and datagrams from named and unnamed senders */
	add("unix-abstract", socket(AF_UNIX, SOCK_DGRAM, 0), UNIX, AF_UNIX);
	set_int("unix-abstract", SOL_SOCKET, SO_RCVBUF, 200000);
	unix_bind("unix-abstract", "crib-sockets", 1);
	add("unix-sender-abstract", socket(AF_UNIX, SOCK_DGRAM, 0), UNIX, AF_UNIX);
	unix_bind("unix-sender-abstract", "crib-sender", 1);
	add("unix-sender-path", socket(AF_UNIX, SOCK_DGRAM, 0), UNIX, AF_UNIX);
	unix_bind("unix-sender-path", "sender.sock", 0);
	add("unix-sender-unnamed", socket(AF_UNIX, SOCK_DGRAM, 0), UNIX, AF_UNIX);
	msg("unix-sender-abstract", "unix-abstract", "from an abstract name", 0);
	msg("unix-sender-path", "unix-abstract", "from a path", 0);
	msg("unix-sender-unnamed", "unix-abstract", "from nobody", 0);

	/* named datagram sockets connected to each other by name */
	add("unix-dgram-named-a", socket(AF_UNIX, SOCK_DGRAM, 0), UNIX, AF_UNIX);
	unix_bind("unix-dgram-named-a", "crib-dgram-a", 1);
	add("unix-dgram-named-b", socket(AF_UNIX, SOCK_DGRAM, 0), UNIX, AF_UNIX);
	unix_bind("unix-dgram-named-b", "dgram-b.sock", 0);
	connect_to(find("unix-dgram-named-a"), find("unix-dgram-named-b"));
	connect_to(find("unix-dgram-named-b"), find("unix-dgram-named-a"));
	find("unix-dgram-named-a")->peer = "unix-dgram-named-b";
	find("unix-dgram-named-b")->peer = "unix-dgram-named-a";
	find("unix-dgram-named-a")->state = find("unix-dgram-named-b")->state = 1;
	msg("unix-dgram-named-a", "unix-dgram-named-b", "a to b, by name", 0);
	msg("unix-dgram-named-b", "unix-dgram-named-a", "b to a, by name", 0);
	msg("unix-dgram-named-a", "unix-dgram-named-b", "a to b again", 0);

	add("unix-listener", socket(AF_UNIX, SOCK_STREAM, 0), UNIX, AF_UNIX);
	unix_bind("unix-listener", "listen.sock", 0);
	if (listen(find("unix-listener")->fd, 4))
		die("listen on unix-listener");
	find("unix-listener")->state = 10;
	find("unix-listener")->backlog = 4;

	/* a connection it accepted, with data queued both ways */
	add("unix-conn-client", socket(AF_UNIX, SOCK_STREAM, 0), UNIX, AF_UNIX);
	connect_to(find("unix-conn-client"), find("unix-listener"));
	add("unix-conn-server", accept(find("unix-listener")->fd, NULL, NULL), UNIX, AF_UNIX);
	find("unix-conn-client")->peer = "unix-conn-server";
	find("unix-conn-server")->peer = "unix-conn-client";
	find("unix-conn-client")->state = find("unix-conn-server")->state = 1;
	stream("unix-conn-client", "unix-conn-server", 11, 800, 0);
	stream("unix-conn-server", "unix-conn-client", 12, 300, 100);

	/* a connection whose peer sent data and was closed */
	{
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		add("unix-orphan", sv[0], UNIX, AF_UNIX)->state = 1;
		send_pattern(sv[1], 13, 0, 600);
		close(sv[1]);
		flow(NULL, "unix-orphan", 13, 0, 600);
	}
}

/* ---- ground truth, as JSON ---- */

static void json_hex(FILE *f, const void *data, size_t len)
{
	const unsigned char *p = data;

	fputc('"', f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

/* An address as the snapshot records it, or null. */
static void json_addr(FILE *f, const struct sockaddr_storage *ss, socklen_t len)
{
	static const unsigned char any6[16];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		if (!in->sin_port && !in->sin_addr.s_addr)
			goto none;
		fprintf(f, "{\"family\":2,\"addr\":");
		json_hex(f, &in->sin_addr, 4);
		fprintf(f, ",\"port\":%u}", ntohs(in->sin_port));
		return;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		if (!in6->sin6_port && !memcmp(&in6->sin6_addr, any6, 16))
			goto none;
		fprintf(f, "{\"family\":10,\"addr\":");
		json_hex(f, &in6->sin6_addr, 16);
		fprintf(f, ",\"port\":%u,\"scope_id\":%u}", ntohs(in6->sin6_port),
			in6->sin6_scope_id);
		return;
	}
	if (ss->ss_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path)) {
		const struct sockaddr_un *sun = (const void *)ss;
		size_t n = len - offsetof(struct sockaddr_un, sun_path);

		if (sun->sun_path[0])
			n = strnlen(sun->sun_path, n);
		fprintf(f, "{\"family\":1,\"addr\":");
		json_hex(f, sun->sun_path, n);
		fprintf(f, "}");
		return;
	}
none:
	fprintf(f, "null");
}

static void json_opts(FILE *f, int fd, const struct opt *opts, size_t n, int *first)
{
	unsigned char val[64];
	socklen_t len;

	for (size_t i = 0; i < n; i++) {
		len = opts[i].len;
		memset(val, 0, sizeof(val));
		if (getsockopt(fd, opts[i].level, opts[i].name, val, &len))
			die("getsockopt %d/%d", opts[i].level, opts[i].name);
		fprintf(f, "%s\"%d/%d\":", *first ? "" : ",", opts[i].level, opts[i].name);
		json_hex(f, val, len);
		*first = 0;
	}
}

static void json_tcp(FILE *f, const struct sock *s)
{
	struct tcp_repair_window win;
	struct tcp_info info;
	unsigned int seq_send, seq_recv, ts;
	int inq, outq, nsd, on = 1, off = TCP_REPAIR_OFF_NO_WP, q, reuse;
	socklen_t len = sizeof(info);

	if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &info, &len))
		die("TCP_INFO");
	fprintf(f, ",\"tcp\":{\"state\":%u,\"options\":%u,\"snd_wscale\":%u,\"rcv_wscale\":%u",
		info.tcpi_state, info.tcpi_options, info.tcpi_snd_wscale, info.tcpi_rcv_wscale);
	if (info.tcpi_state == 10) {	/* a listener has no queues to repair */
		fprintf(f, "}");
		return;
	}
	len = sizeof(ts);
	if (ioctl(s->fd, SIOCINQ, &inq) || ioctl(s->fd, SIOCOUTQ, &outq) ||
	    ioctl(s->fd, SIOCOUTQNSD, &nsd) ||
	    getsockopt(s->fd, IPPROTO_TCP, TCP_TIMESTAMP, &ts, &len))
		die("TCP queue ioctls on %s", s->name);
	/* repair mode clears SO_REUSEADDR on the way out: put it back */
	len = sizeof(reuse);
	if (getsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &reuse, &len) ||
	    setsockopt(s->fd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
		die("TCP_REPAIR on %s", s->name);
	len = sizeof(win);
	q = TCP_SEND_QUEUE;
	if (getsockopt(s->fd, IPPROTO_TCP, TCP_REPAIR_WINDOW, &win, &len) ||
	    setsockopt(s->fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)))
		die("TCP_REPAIR_WINDOW on %s", s->name);
	len = sizeof(seq_send);
	if (getsockopt(s->fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq_send, &len))
		die("TCP_QUEUE_SEQ on %s", s->name);
	q = TCP_RECV_QUEUE;
	len = sizeof(seq_recv);
	if (setsockopt(s->fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ||
	    getsockopt(s->fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq_recv, &len))
		die("TCP_QUEUE_SEQ on %s", s->name);
	if (setsockopt(s->fd, IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse)))
		die("leaving TCP_REPAIR on %s", s->name);
	fprintf(f, ",\"inq\":%d,\"outq\":%d,\"outq_nsd\":%d,\"ts\":%u,\"write_seq\":%u,"
		"\"rcv_nxt\":%u,\"snd_wl1\":%u,\"snd_wnd\":%u,\"max_window\":%u,\"rcv_wnd\":%u,"
		"\"rcv_wup\":%u}", inq, outq, nsd, ts, seq_send, seq_recv, win.snd_wl1,
		win.snd_wnd, win.max_window, win.rcv_wnd, win.rcv_wup);
}

static void json_sock(FILE *f, const struct sock *s)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int first = 1, type, protocol;

	len = sizeof(type);
	getsockopt(s->fd, SOL_SOCKET, SO_TYPE, &type, &len);
	len = sizeof(protocol);
	getsockopt(s->fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len);
	fprintf(f, "\"%s\":{\"fd\":%d,\"family\":%d,\"type\":%d,\"protocol\":%d,\"state\":%d,"
		"\"backlog\":%d,\"peer_name\":", s->name, s->fd, s->family, type, protocol,
		s->state, s->backlog);
	if (s->peer)
		fprintf(f, "\"%s\"", s->peer);
	else
		fprintf(f, "null");
	fprintf(f, ",\"local\":");
	len = name_of(s->fd, &ss);
	json_addr(f, &ss, len);
	fprintf(f, ",\"peer\":");
	len = sizeof(ss);
	if (getpeername(s->fd, (struct sockaddr *)&ss, &len))
		fprintf(f, "null");
	else
		json_addr(f, &ss, len);
	fprintf(f, ",\"options\":{");
	json_opts(f, s->fd, socket_opts, N(socket_opts), &first);
	if (s->family == AF_INET)
		json_opts(f, s->fd, ip_opts, N(ip_opts), &first);
	if (s->family == AF_INET6)
		json_opts(f, s->fd, ipv6_opts, N(ipv6_opts), &first);
	if (s->kind == TCP)
		json_opts(f, s->fd, tcp_opts, N(tcp_opts), &first);
	if (s->kind == UDP)
		json_opts(f, s->fd, udp_opts, N(udp_opts), &first);
	/* those recorded only when set, with the value set */
	if (s->maxseg)
		fprintf(f, ",\"%d/%d\":\"%02x%02x0000\"", IPPROTO_TCP, TCP_MAXSEG,
			s->maxseg & 0xff, s->maxseg >> 8);
	if (s->hops >= 0)
		fprintf(f, ",\"%d/%d\":\"%02x000000\"", IPPROTO_IPV6, IPV6_UNICAST_HOPS, s->hops);
	fprintf(f, "}");
	if (s->kind == TCP)
		json_tcp(f, s);
	if (s->kind == UNIX) {
		int inq = -1;	/* stream sockets: the bytes unread */

		ioctl(s->fd, SIOCINQ, &inq);
		fprintf(f, ",\"inq\":%d", inq);
	}
	fprintf(f, "}");
}

static void json_msg_addr(FILE *f, const struct msg *m)
{
	const struct sock *src = find(m->src);
	struct sockaddr_storage ss;
	socklen_t len = name_of(src->fd, &ss);

	/* an IPv6 socket bound to any is reached at ::1 */
	if (ss.ss_family == AF_INET6 &&
	    !memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, &in6addr_any, 16))
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	json_addr(f, &ss, len);
}

static void write_truth(void)
{
	char path[4096], tmp[4200];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/truth.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die("creating %s", tmp);
	fprintf(f, "{\"pid\":%d,\"sockets\":{", (int)getpid());
	for (i = 0; i < n_socks; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		json_sock(f, &socks[i]);
	}
	fprintf(f, "},\n\"flows\":[");
	for (i = 0; i < n_flows; i++)
		fprintf(f, "%s{\"from\":%s%s%s,\"to\":\"%s\",\"seed\":%d,\"start\":%zu,\"len\":%zu}",
			i ? "," : "", flows[i].from ? "\"" : "",
			flows[i].from ? flows[i].from : "null", flows[i].from ? "\"" : "",
			flows[i].to, flows[i].seed, flows[i].start, flows[i].len);
	fprintf(f, "],\n\"messages\":[");
	for (i = 0; i < n_msgs; i++) {
		fprintf(f, "%s{\"to\":\"%s\",\"pending\":%s,\"data\":", i ? ",\n" : "", msgs[i].to,
			msgs[i].pending ? "true" : "false");
		json_hex(f, msgs[i].data, msgs[i].len);
		fprintf(f, ",\"addr\":");
		json_msg_addr(f, &msgs[i]);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	if (fclose(f) || rename(tmp, path))
		die("writing %s", path);
}

/* ---- the self-check ---- */

static struct check_report report;

/* Up to @len bytes within 5 s; returns how many. */
static size_t read_some(int fd, void *buf, size_t len, struct sockaddr_storage *from,
			socklen_t *fromlen, int whole_message)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&p, 1, 5000) != 1)
			break;
		n = recvfrom(fd, (char *)buf + got, len - got, MSG_DONTWAIT,
			     (struct sockaddr *)from, fromlen);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (whole_message)
			break;
	}
	return got;
}

static void check_flow(const struct flow *fl)
{
	const struct sock *to = find(fl->to);
	unsigned char *buf = malloc(fl->len + 1);
	size_t got, i;

	if (!buf)
		die("malloc");
	got = read_some(to->fd, buf, fl->len, NULL, NULL, 0);
	if (got != fl->len)
		check_fail(&report, "%s: %zu of %zu bytes", fl->to, got, fl->len);
	for (i = 0; i < got; i++)
		if (buf[i] != pattern(fl->seed, fl->start + i)) {
			check_fail(&report, "%s: byte %zu differs", fl->to, fl->start + i);
			break;
		}
	free(buf);
}

static int same_addr(const struct sockaddr_storage *a, const struct msg *m)
{
	const struct sock *src = find(m->src);
	struct sockaddr_storage want;
	socklen_t len = name_of(src->fd, &want);

	if (want.ss_family != a->ss_family) {
		/* an IPv4 source on a dual-stack socket arrives v4-mapped */
		const struct sockaddr_in *in = (const void *)&want;
		const struct sockaddr_in6 *in6 = (const void *)a;

		return want.ss_family == AF_INET && a->ss_family == AF_INET6 &&
		       in->sin_port == in6->sin6_port &&
		       !memcmp(in6->sin6_addr.s6_addr + 12, &in->sin_addr, 4);
	}
	if (want.ss_family == AF_UNIX)
		return !memcmp(a, &want, len);
	if (want.ss_family == AF_INET)
		return !memcmp(&((struct sockaddr_in *)a)->sin_addr,
			       &((struct sockaddr_in *)&want)->sin_addr, 4) &&
		       ((struct sockaddr_in *)a)->sin_port == ((struct sockaddr_in *)&want)->sin_port;
	return ((struct sockaddr_in6 *)a)->sin6_port == ((struct sockaddr_in6 *)&want)->sin6_port;
}

static void check_message(const struct msg *m, const char *to)
{
	struct sockaddr_storage from;
	socklen_t fromlen = sizeof(from);
	unsigned char buf[256];
	size_t got;

	memset(&from, 0, sizeof(from));
	got = read_some(find(to)->fd, buf, sizeof(buf), &from, &fromlen, 1);
	if (got != m->len || memcmp(buf, m->data, m->len)) {
		check_fail(&report, "%s: expected \"%.*s\", got %zu bytes", to, (int)m->len, m->data, got);
		return;
	}
	if (find(to)->kind == UDP || (find(to)->kind == UNIX && strcmp(find(to)->peer ? find(to)->peer : "", m->src))) {
		if (m->src && strcmp(m->src, "unix-sender-unnamed") && !same_addr(&from, m))
			check_fail(&report, "%s: \"%.*s\" not from %s", to, (int)m->len, m->data, m->src);
	}
}

static void check_nothing_left(const struct sock *s)
{
	ssize_t n;
	char c;

	n = recv(s->fd, &c, 1, MSG_DONTWAIT);
	if (!strcmp(s->name, "fin-receiver") || !strcmp(s->name, "unix-orphan")) {
		if (n != 0)
			check_fail(&report, "%s: no end of file after the data", s->name);
	} else if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
		check_fail(&report, "%s: more queued than expected", s->name);
	}
}

static void check_messages(void)
{
	for (int i = 0; i < n_msgs; i++) {
		const struct msg *m = &msgs[i];

		if (m->pending) {
			/* send it on: it arrives whole at its destination */
			if (!strcmp(m->to, "udp-corked"))
				set_int("udp-corked", IPPROTO_UDP, UDP_CORK, 0);
			else if (send(find(m->to)->fd, "", 0, 0))	/* ends the MSG_MORE datagram */
				check_fail(&report, "%s: cannot send its pending datagram", m->to);
			continue;
		}
		check_message(m, m->to);
	}
	/* the pending datagrams, now sent, from their senders */
	for (int i = 0; i < n_msgs; i++) {
		struct msg m = msgs[i];

		if (!m.pending)
			continue;
		m.src = m.to;
		check_message(&m, msgs[i].src);
	}
}

/* Every connected pair and listener still works. */
static void check_alive(void)
{
	static const char *pairs[][2] = {
		{ "tcp-client", "tcp-server" }, { "full-sender", "full-receiver" },
		{ "tcp6-client", "tcp6-server" }, { "unix-stream-a", "unix-stream-b" },
		{ "unix-dgram-a", "unix-dgram-b" }, { "unix-seq-a", "unix-seq-b" },
		{ "unix-conn-client", "unix-conn-server" },
		{ "unix-dgram-named-a", "unix-dgram-named-b" },
	};
	struct sock tmp;
	int fd;
	char c;

	for (size_t i = 0; i < N(pairs); i++) {
		if (!lookup(pairs[i][0]))	/* not set up (--only) */
			continue;
		for (int dir_ = 0; dir_ < 2; dir_++) {
			int from = find(pairs[i][dir_])->fd, to = find(pairs[i][!dir_])->fd;

			if (send(from, "!", 1, 0) != 1 ||
			    read_some(to, &c, 1, NULL, NULL, 1) != 1 || c != '!')
				check_fail(&report, "%s -> %s no longer works", pairs[i][dir_], pairs[i][!dir_]);
		}
	}
	if (!lookup("tcp-listener"))
		return;
	if (send(find("fin-receiver")->fd, "!", 1, 0) != 1 ||
	    read_some(find("fin-sender")->fd, &c, 1, NULL, NULL, 1) != 1)
		check_fail(&report, "fin-receiver -> fin-sender no longer works");
	/* the listeners accept */
	tmp = (struct sock){ .name = "probe", .fd = socket(AF_INET, SOCK_STREAM, 0),
			     .family = AF_INET };
	connect_to(&tmp, find("tcp-listener"));
	fd = accept(find("tcp-listener")->fd, NULL, NULL);
	if (fd < 0)
		check_fail(&report, "tcp-listener does not accept");
	close(fd);
	close(tmp.fd);
}

static void self_check(void)
{
	unsigned char val[64];
	socklen_t len;

	for (int i = 0; i < n_flows; i++)
		check_flow(&flows[i]);
	check_messages();
	for (int i = 0; i < n_socks; i++)
		if (strcmp(socks[i].name, "unix-listener") && strcmp(socks[i].name, "tcp-listener") &&
		    strcmp(socks[i].name, "tcp6-listener"))
			check_nothing_left(&socks[i]);
	/* options the workload set are still set */
	if (!lookup("tcp-client"))
		goto alive;
	len = sizeof(int);
	if (getsockopt(find("tcp-client")->fd, IPPROTO_TCP, TCP_KEEPIDLE, val, &len) ||
	    *(int *)val != 77)
		check_fail(&report, "tcp-client lost TCP_KEEPIDLE");
	len = sizeof(int);
	if (getsockopt(find("tcp-server")->fd, IPPROTO_TCP, TCP_CORK, val, &len) || *(int *)val != 1)
		check_fail(&report, "tcp-server lost TCP_CORK");
	set_int("tcp-server", IPPROTO_TCP, TCP_CORK, 0);	/* for what it sends next */
alive:
	check_alive();
	check_write(&report, dir);
}

int main(int argc, char **argv)
{
	char path[4096];
	const char *only = NULL;
	int with_child = 1;

	for (; argc > 2; argc--, argv++) {
		if (!strcmp(argv[1], "--no-child")) {
			with_child = 0;
		} else if (!strcmp(argv[1], "--only") && argc > 3) {
			only = argv[2];
			argc--;
			argv++;
		} else {
			break;
		}
	}
	if (argc != 2) {
		fprintf(stderr, "usage: sockets [--no-child] [--only tcp|udp|unix] DIR\n");
		return 2;
	}
	dir = argv[1];
	check_on_request();
	signal(SIGPIPE, SIG_IGN);
	if (with_child && !only)
		child_connection();
	if (!only || !strcmp(only, "tcp"))
		setup_tcp();
	if (!only || !strcmp(only, "udp"))
		setup_udp();
	if (!only || !strcmp(only, "unix"))
		setup_unix();
	/* let ACKs, window updates and the child's data settle */
	usleep(500 * 1000);
	write_truth();
	snprintf(path, sizeof(path), "%s/ready", dir);
	if (write_ready(path, "ready\n"))
		die("writing %s", path);
	check_wait_for_request();
	self_check();
	for (;;)
		pause();
}
