// SPDX-License-Identifier: GPL-2.0
/*
 * A UDP receive queue larger than the ring buffers CRIB moves packets
 * through: datagrams of up to 65507 bytes, from two senders, queued on
 * an IPv4 socket with a large receive buffer.
 *
 *   udpqueue DIR
 *
 * Once set up it writes DIR/ready.  On SIGUSR1 it reads the queue back
 * and checks every datagram's length, contents, source and order, that
 * nothing more is queued, and that the socket still receives; it writes
 * "ok" (or what failed) to DIR/check.
 *
 * Datagram i is sizes[i] bytes; byte k of it is (i * 37 + k * 11) & 0xff.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ready.h"
#include "selfcheck.h"

#define N_DGRAMS	28

/* Sizes, the largest UDP allows among them: about 1.5 MiB in all. */
static const size_t sizes[N_DGRAMS] = {
	65507, 1, 60000, 0, 65507, 4096, 65000, 65507, 30000, 65507, 2, 65507, 65507, 1500,
	65507, 65507, 100, 65507, 65507, 65507, 8192, 65507, 65507, 65507, 9000, 65507,
	65507, 65507,
};

static int receiver, senders[2];
static const char *dir;
static struct check_report report;

static void die(const char *what)
{
	fprintf(stderr, "udpqueue: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned char byte_of(int i, size_t k)
{
	return (unsigned char)(i * 37 + k * 11);
}

static int bound_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("socket");
	return fd;
}

static struct sockaddr_in name_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len))
		die("getsockname");
	return a;
}

static void setup(void)
{
	static unsigned char buf[65507];
	int rcvbuf = 8 << 20;
	struct sockaddr_in to;

	receiver = bound_socket();
	if (setsockopt(receiver, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUFFORCE");
	senders[0] = bound_socket();
	senders[1] = bound_socket();
	to = name_of(receiver);
	for (int i = 0; i < N_DGRAMS; i++) {
		for (size_t k = 0; k < sizes[i]; k++)
			buf[k] = byte_of(i, k);
		if (sendto(senders[i % 2], buf, sizes[i], 0, (struct sockaddr *)&to, sizeof(to)) !=
		    (ssize_t)sizes[i])
			die("sendto");
	}
}

static void check_one(int i, const unsigned char *buf, ssize_t n, const struct sockaddr_in *from)
{
	struct sockaddr_in want = name_of(senders[i % 2]);

	if (n != (ssize_t)sizes[i]) {
		check_fail(&report, "datagram %d: %zd bytes, want %zu", i, n, sizes[i]);
		return;
	}
	for (size_t k = 0; k < sizes[i]; k++)
		if (buf[k] != byte_of(i, k)) {
			check_fail(&report, "datagram %d: byte %zu differs", i, k);
			return;
		}
	if (from->sin_family != AF_INET || from->sin_port != want.sin_port ||
	    from->sin_addr.s_addr != want.sin_addr.s_addr)
		check_fail(&report, "datagram %d: not from sender %d", i, i % 2);
}

static void self_check(void)
{
	static unsigned char buf[65536];
	struct sockaddr_in from;
	socklen_t len;
	ssize_t n;

	for (int i = 0; i < N_DGRAMS; i++) {
		len = sizeof(from);
		memset(&from, 0, sizeof(from));
		n = recvfrom(receiver, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len);
		if (n < 0) {
			check_fail(&report, "datagram %d: %s", i, strerror(errno));
			break;
		}
		check_one(i, buf, n, &from);
	}
	if (recv(receiver, buf, sizeof(buf), MSG_DONTWAIT) >= 0 || errno != EAGAIN)
		check_fail(&report, "more queued than was sent");
	/* still receives */
	{
		struct sockaddr_in to = name_of(receiver);

		if (sendto(senders[0], "!", 1, 0, (struct sockaddr *)&to, sizeof(to)) != 1 ||
		    recv(receiver, buf, sizeof(buf), 0) != 1 || buf[0] != '!')
			check_fail(&report, "the socket no longer receives");
	}
	check_write(&report, dir);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: udpqueue DIR\n");
		return 2;
	}
	dir = argv[1];
	check_on_request();
	setup();
	snprintf(path, sizeof(path), "%s/ready", dir);
	if (write_ready(path, "ready\n"))
		die("ready");
	check_wait_for_request();
	self_check();
	for (;;)
		pause();
}
