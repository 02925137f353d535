// SPDX-License-Identifier: GPL-2.0
/*
 * A UDP socket with a classic BPF filter, locked, which checks itself on
 * SIGUSR1.  Datagram "q" arrives before the filter is attached and stays
 * queued; the filter then keeps only datagrams whose payload starts with
 * 'k', and SO_LOCK_FILTER locks it.
 *
 * The check reads the filter back (SO_GET_FILTER) and compares it with
 * what was attached, finds that it cannot be detached (the lock), sends
 * "x" and "k" to the socket, and must receive "q" (on the first check
 * only: it is read then), then "k", and nothing else.  Writes "ready" to
 * DIR/ready, and the check's report to DIR/check.
 *
 * Usage: sockfilter DIR
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "selfcheck.h"

/* UDP payload byte 0 is at offset 8 of what a UDP socket's filter sees. */
static struct sock_filter keep_k[] = {
	BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'k', 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0xffff),
	BPF_STMT(BPF_RET | BPF_K, 0),
};
#define N_KEEP_K	(sizeof(keep_k) / sizeof(keep_k[0]))

struct sockets {
	int filtered;
	int sender;
	struct sockaddr_in to;		/* the filtered socket's address */
	int checks;			/* made so far */
};

static int set_up(struct sockets *s)
{
	struct sock_fprog prog = { .len = N_KEEP_K, .filter = keep_k };
	socklen_t len = sizeof(s->to);
	int one = 1;

	s->filtered = socket(AF_INET, SOCK_DGRAM, 0);
	s->sender = socket(AF_INET, SOCK_DGRAM, 0);
	s->to = (struct sockaddr_in){ .sin_family = AF_INET,
				      .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (s->filtered < 0 || s->sender < 0 ||
	    bind(s->filtered, (struct sockaddr *)&s->to, sizeof(s->to)) ||
	    getsockname(s->filtered, (struct sockaddr *)&s->to, &len) ||
	    sendto(s->sender, "q", 1, 0, (struct sockaddr *)&s->to, sizeof(s->to)) != 1)
		return -1;
	/* "q" is queued before the filter exists: it must stay. */
	usleep(100000);
	if (setsockopt(s->filtered, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(s->filtered, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)))
		return -1;
	return 0;
}

static void check_program(struct check_report *r, int fd)
{
	struct sock_filter got[16];
	socklen_t n = 16;

	if (getsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, got, &n))
		check_fail(r, "SO_GET_FILTER: %s", strerror(errno));
	else if (n != N_KEEP_K || memcmp(got, keep_k, sizeof(keep_k)))
		check_fail(r, "the filter read back has %u instructions, or others", (unsigned)n);
	if (!setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &n, sizeof(n)) || errno != EPERM)
		check_fail(r, "the filter is not locked (SO_DETACH_FILTER: %s)", strerror(errno));
}

/* The next datagram within a second, as a string; "" when none came. */
static void next_datagram(int fd, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	buf[0] = '\0';
	if (poll(&pfd, 1, 1000) != 1)
		return;
	n = recv(fd, buf, size - 1, MSG_DONTWAIT);
	buf[n > 0 ? n : 0] = '\0';
}

static void check_traffic(struct check_report *r, struct sockets *s)
{
	char got[16];

	if (sendto(s->sender, "x", 1, 0, (struct sockaddr *)&s->to, sizeof(s->to)) != 1 ||
	    sendto(s->sender, "k", 1, 0, (struct sockaddr *)&s->to, sizeof(s->to)) != 1) {
		check_fail(r, "cannot send: %s", strerror(errno));
		return;
	}
	if (!s->checks) {
		next_datagram(s->filtered, got, sizeof(got));
		if (strcmp(got, "q"))
			check_fail(r, "the datagram queued before the filter: \"%s\", not \"q\"", got);
	}
	next_datagram(s->filtered, got, sizeof(got));
	if (strcmp(got, "k"))
		check_fail(r, "after \"x\" and \"k\": \"%s\", not \"k\" (the filter drops \"x\")",
			   got);
	next_datagram(s->filtered, got, sizeof(got));
	if (got[0])
		check_fail(r, "\"%s\" came through the filter", got);
}

int main(int argc, char **argv)
{
	struct sockets s = { 0 };
	struct check_report r;
	char path[1024];

	if (argc != 2) {
		fprintf(stderr, "usage: sockfilter DIR\n");
		return 2;
	}
	check_on_request();
	if (set_up(&s)) {
		perror("sockfilter: setting up");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/ready", argv[1]);
	if (write_ready(path, "ready\n"))
		return 1;
	for (;;) {
		check_wait_for_request();
		check_requested = 0;
		memset(&r, 0, sizeof(r));
		check_program(&r, s.filtered);
		check_traffic(&r, &s);
		s.checks++;
		if (check_write(&r, argv[1]))
			return 1;
	}
}
