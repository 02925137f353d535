// SPDX-License-Identifier: GPL-2.0
/*
 * The process the socket benchmark reads: N sockets of every kind
 * crib-dump supports, with data queued and options set, then idle.
 *
 *   sock-target --sockets N READYFILE
 *
 * Of N: about 40% TCP connections (both ends here, IPv4 and IPv6, 64
 * bytes unread on each end), 10% TCP listeners, 25% UNIX socket pairs
 * (stream, datagram, seqpacket, 64 bytes queued one way), the rest UDP
 * sockets with two datagrams queued each (and the one that sent them).
 * Once everything is sent and acknowledged it writes "sockets N tcp N
 * udp N unix N" to READYFILE and sleeps until killed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../tests/workloads/ready.h"

#define QUEUED	64

struct counts {
	int tcp, udp, unx;
};

static void die(const char *what)
{
	fprintf(stderr, "sock-target: %s: %s\n", what, strerror(errno));
	exit(1);
}

static socklen_t loopback(int family, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons((uint16_t)port);
		return sizeof(*in);
	}
	in6->sin6_addr = in6addr_loopback;
	in6->sin6_port = htons((uint16_t)port);
	return sizeof(*in6);
}

static int bound(int family, int type)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(family, 0, &ss);
	int fd = socket(family, type, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len))
		die("socket");
	return fd;
}

static void set_int(int fd, int level, int name, int v)
{
	if (setsockopt(fd, level, name, &v, sizeof(v)))
		die("setsockopt");
}

/* Some options, varied from socket to socket. */
static void vary(int fd, int i, int family, bool tcp)
{
	if (i % 3 == 0)
		set_int(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
	if (i % 4 == 1)
		set_int(fd, SOL_SOCKET, SO_RCVBUF, 65536 + 4096 * (i % 7));
	if (i % 5 == 2)
		set_int(fd, SOL_SOCKET, SO_PRIORITY, i % 6);
	if (family == AF_INET && i % 6 == 3)
		set_int(fd, IPPROTO_IP, IP_TOS, 0x10);
	if (tcp && i % 2)
		set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
}

static void tcp_pairs(int pairs, struct counts *c)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char data[QUEUED];
	int l[2], a, b, i, family;

	memset(data, 'x', sizeof(data));
	l[0] = bound(AF_INET, SOCK_STREAM);
	l[1] = bound(AF_INET6, SOCK_STREAM);
	for (i = 0; i < 2; i++)
		if (listen(l[i], 64))
			die("listen");
	c->tcp += 2;
	for (i = 0; i < pairs; i++) {
		family = i % 2 ? AF_INET6 : AF_INET;
		len = sizeof(ss);
		if (getsockname(l[i % 2], (struct sockaddr *)&ss, &len))
			die("getsockname");
		a = socket(family, SOCK_STREAM, 0);
		if (a < 0 || connect(a, (struct sockaddr *)&ss, len))
			die("connect");
		b = accept(l[i % 2], NULL, NULL);
		if (b < 0)
			die("accept");
		vary(a, i, family, true);
		vary(b, i + 1, family, true);
		if (write(a, data, sizeof(data)) != sizeof(data) ||
		    write(b, data, sizeof(data)) != sizeof(data))
			die("write");
		c->tcp += 2;
	}
}

static void tcp_listeners(int n, struct counts *c)
{
	int fd, family;

	for (int i = 0; i < n; i++) {
		family = i % 2 ? AF_INET6 : AF_INET;
		fd = bound(family, SOCK_STREAM);
		if (i % 2)
			set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
		vary(fd, i, family, true);
		if (listen(fd, 16 + i % 16))
			die("listen");
		c->tcp++;
	}
}

static void udp_sockets(int n, struct counts *c)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int tx[2], fd, family;
	char msg[QUEUED];

	memset(msg, 'u', sizeof(msg));
	tx[0] = bound(AF_INET, SOCK_DGRAM);
	tx[1] = bound(AF_INET6, SOCK_DGRAM);
	c->udp += 2;
	for (int i = 0; i < n - 2; i++) {
		family = i % 2 ? AF_INET6 : AF_INET;
		fd = bound(family, SOCK_DGRAM);
		vary(fd, i, family, false);
		len = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &len))
			die("getsockname");
		for (int k = 0; k < 2; k++)
			if (sendto(tx[i % 2], msg, sizeof(msg) - (size_t)k, 0, (struct sockaddr *)&ss,
				   len) < 0)
				die("sendto");
		c->udp++;
	}
}

static void unix_pairs(int pairs, struct counts *c)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	char data[QUEUED];
	int sv[2];

	memset(data, 'p', sizeof(data));
	for (int i = 0; i < pairs; i++) {
		if (socketpair(AF_UNIX, types[i % 3], 0, sv))
			die("socketpair");
		vary(sv[0], i, AF_UNIX, false);
		if (write(sv[0], data, sizeof(data)) != sizeof(data))
			die("write");
		c->unx += 2;
	}
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	struct rlimit rl;
	char text[128];
	int n, tcp, listeners, unx;

	if (argc != 4 || strcmp(argv[1], "--sockets") || (n = atoi(argv[2])) < 20) {
		fprintf(stderr, "usage: sock-target --sockets N READYFILE (N at least 20)\n");
		return 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = (rlim_t)n + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die("setrlimit");
	}
	listeners = n / 10;
	tcp = n * 4 / 10 / 2;		/* pairs, and their two listeners */
	unx = n / 4 / 2;
	tcp_pairs(tcp - 1, &c);
	tcp_listeners(listeners, &c);
	unix_pairs(unx, &c);
	udp_sockets(n - c.tcp - c.unx, &c);
	/* Let every segment be acknowledged, every datagram land. */
	usleep(300 * 1000);
	snprintf(text, sizeof(text), "sockets %d tcp %d udp %d unix %d\n", c.tcp + c.udp + c.unx,
		 c.tcp, c.udp, c.unx);
	if (write_ready(argv[3], text))
		die("ready");
	for (;;)
		pause();
}
