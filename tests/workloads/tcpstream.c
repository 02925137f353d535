// SPDX-License-Identifier: GPL-2.0
/*
 * Two TCP streams, both ways at once, whose every byte is checked: one
 * side is checkpointed mid-stream, the other keeps running.
 *
 *   tcpstream serve DIR
 *   tcpstream peer DIR PORT4 PORT6
 *
 * "serve" listens on 127.0.0.1 and ::1 (ports chosen by the kernel),
 * holds DIR/anchor open (a file a restore needs), writes "PORT4 PORT6" to
 * DIR/ready, and on each connection writes its stream as fast as the
 * socket takes it while reading the peer's slowly, so that its receive
 * queue holds unread data; a peer that reads slowly leaves unsent data
 * in its send queue.  SIGUSR1 makes it read at full speed.  At the peer's
 * end of file it writes DIR/serve-4 (or -6): "received N sent N bad N",
 * and closes.
 *
 * "peer" connects to both, sends its streams at a steady rate into a
 * large send buffer (so that it keeps sending while the other side is
 * gone) and reads slowly, rewriting DIR/peer-status a few times a second:
 * "sent4 received4 sent6 received6 bad".  SIGUSR1 finishes: it stops
 * sending, shuts its streams down for writing, reads the rest at full
 * speed up to the end of file, writes DIR/peer-result:
 *   "4 sent N received N bad N error E" and the same for 6,
 * and exits 0 when everything was read without an error.
 *
 * Byte i of a stream is byte i % 8 of splitmix64(seed << 56 ^ i / 8): no
 * lost, repeated or reordered byte goes unnoticed.  The seed is the
 * direction (1 towards the server, 2 towards the peer) plus the family
 * (0 for IPv4, 4 for IPv6).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ready.h"

#define TICK_MS		20
#define SLOW_READ	2048		/* bytes read per tick while slow: 100 KiB/s */
#define PEER_SEND	4096		/* bytes the peer sends per tick: 200 KiB/s */
#define PEER_SNDBUF	(16 << 20)
#define MAX_CONNS	8

struct stream {
	int fd;
	int family;			/* AF_INET or AF_INET6 */
	uint64_t sent, received, bad;
	int error;			/* errno of a failed read or write */
	int eof;
	int out_done;			/* shut down for writing */
};

static volatile sig_atomic_t fast;

static uint8_t pattern(unsigned int seed, uint64_t i)
{
	uint64_t z = ((uint64_t)seed << 56 ^ i / 8) + 0x9e3779b97f4a7c15ull;

	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint8_t)(z >> (i % 8 * 8));
}

static unsigned int seed(int to_server, int family)
{
	return (to_server ? 1 : 2) + (family == AF_INET6 ? 4 : 0);
}

static void on_usr1(int sig)
{
	(void)sig;
	fast = 1;
}

/* Up to @max bytes of the stream, checked against the pattern. */
static void stream_read(struct stream *s, int to_server, size_t max)
{
	static uint8_t buf[65536];
	unsigned int sd = seed(to_server, s->family);
	ssize_t n;

	while (max && !s->eof && !s->error) {
		n = read(s->fd, buf, max < sizeof(buf) ? max : sizeof(buf));
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				s->error = errno;
			return;
		}
		if (n == 0) {
			s->eof = 1;
			return;
		}
		for (ssize_t k = 0; k < n; k++)
			if (buf[k] != pattern(sd, s->received + (uint64_t)k))
				s->bad++;
		s->received += (uint64_t)n;
		max -= (size_t)n;
	}
}

/* Up to @max bytes more of the stream, as much as the socket takes. */
static void stream_write(struct stream *s, int to_server, size_t max)
{
	static uint8_t buf[65536];
	unsigned int sd = seed(to_server, s->family);
	size_t len = max < sizeof(buf) ? max : sizeof(buf);
	ssize_t n;

	while (max && !s->error) {
		for (size_t k = 0; k < len; k++)
			buf[k] = pattern(sd, s->sent + k);
		n = send(s->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				s->error = errno;
			return;
		}
		s->sent += (uint64_t)n;
		max -= (size_t)n;
		len = max < sizeof(buf) ? max : sizeof(buf);
	}
}

static int listen_on(int family, const char *addr, unsigned int *port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	socklen_t len = sizeof(ss);
	int fd;

	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		inet_pton(AF_INET, addr, &in->sin_addr);
	else
		inet_pton(AF_INET6, addr, &in6->sin6_addr);
	if (bind(fd, (struct sockaddr *)&ss,
		 family == AF_INET ? sizeof(*in) : sizeof(*in6)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ? in->sin_port : in6->sin6_port);
	return fd;
}

static void serve_result(const char *dir, const struct stream *s)
{
	char path[1024], text[256];

	snprintf(path, sizeof(path), "%s/serve-%d", dir, s->family == AF_INET ? 4 : 6);
	snprintf(text, sizeof(text), "received %llu sent %llu bad %llu error %d\n",
		 (unsigned long long)s->received, (unsigned long long)s->sent,
		 (unsigned long long)s->bad, s->error);
	write_ready(path, text);
}

static void serve_loop(const char *dir, int *lfd, const int *lfamily)
{
	struct stream conns[MAX_CONNS];
	struct pollfd pfd[2 + MAX_CONNS];
	int n = 0, fd;

	for (;;) {
		for (int i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ .fd = lfd[i], .events = POLLIN };
		for (int i = 0; i < n; i++)
			pfd[2 + i] = (struct pollfd){ .fd = conns[i].fd,
						      .events = POLLOUT | (fast ? POLLIN : 0) };
		if (poll(pfd, (nfds_t)(2 + n), TICK_MS) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < 2; i++) {
			if (!(pfd[i].revents & POLLIN) || n == MAX_CONNS)
				continue;
			fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK);
			if (fd >= 0)
				conns[n++] = (struct stream){ .fd = fd, .family = lfamily[i] };
		}
		for (int i = 0; i < n; i++) {
			struct stream *s = &conns[i];

			stream_read(s, 1, fast ? SIZE_MAX : SLOW_READ);
			if (!s->eof)
				stream_write(s, 0, SIZE_MAX);
			if (s->eof || s->error) {
				serve_result(dir, s);
				close(s->fd);
				conns[i--] = conns[--n];
			}
		}
	}
}

static int serve(const char *dir)
{
	unsigned int port4, port6;
	char path[1024], text[64];
	int lfd[2], lfamily[2] = { AF_INET, AF_INET6 }, anchor;

	snprintf(path, sizeof(path), "%s/anchor", dir);
	anchor = open(path, O_RDWR | O_CREAT, 0600);
	lfd[0] = listen_on(AF_INET, "127.0.0.1", &port4);
	lfd[1] = listen_on(AF_INET6, "::1", &port6);
	if (anchor < 0 || lfd[0] < 0 || lfd[1] < 0) {
		perror("tcpstream serve");
		return 1;
	}
	snprintf(text, sizeof(text), "%u %u\n", port4, port6);
	snprintf(path, sizeof(path), "%s/ready", dir);
	if (write_ready(path, text)) {
		perror("tcpstream: ready");
		return 1;
	}
	serve_loop(dir, lfd, lfamily);
	return 1;
}

static int connect_to(int family, unsigned int port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	int fd, size = PEER_SNDBUF;

	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	/* room to keep sending while the other side is gone (root: past wmem_max) */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		goto fail;
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		inet_pton(AF_INET, "127.0.0.1", &in->sin_addr);
		in->sin_port = htons((uint16_t)port);
	} else {
		inet_pton(AF_INET6, "::1", &in6->sin6_addr);
		in6->sin6_port = htons((uint16_t)port);
	}
	if (connect(fd, (struct sockaddr *)&ss, family == AF_INET ? sizeof(*in) : sizeof(*in6)))
		goto fail;
	if (fcntl(fd, F_SETFL, O_NONBLOCK))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static void peer_report(const char *dir, const char *name, const struct stream *s, int full)
{
	char path[1024], text[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (full)
		snprintf(text, sizeof(text),
			 "4 sent %llu received %llu bad %llu error %d eof %d\n"
			 "6 sent %llu received %llu bad %llu error %d eof %d\n",
			 (unsigned long long)s[0].sent, (unsigned long long)s[0].received,
			 (unsigned long long)s[0].bad, s[0].error, s[0].eof,
			 (unsigned long long)s[1].sent, (unsigned long long)s[1].received,
			 (unsigned long long)s[1].bad, s[1].error, s[1].eof);
	else
		snprintf(text, sizeof(text), "%llu %llu %llu %llu %llu\n",
			 (unsigned long long)s[0].sent, (unsigned long long)s[0].received,
			 (unsigned long long)s[1].sent, (unsigned long long)s[1].received,
			 (unsigned long long)(s[0].bad + s[1].bad));
	write_ready(path, text);
}

/* Stop sending, shut down for writing, read up to the end of file. */
static int peer_finish(const char *dir, struct stream *s)
{
	struct pollfd pfd[2];

	for (int i = 0; i < 2; i++)
		if (shutdown(s[i].fd, SHUT_WR))
			s[i].error = errno;
	while (!(s[0].eof || s[0].error) || !(s[1].eof || s[1].error)) {
		for (int i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ .fd = s[i].eof || s[i].error ? -1 : s[i].fd,
						  .events = POLLIN };
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return 1;
		for (int i = 0; i < 2; i++)
			stream_read(&s[i], 0, SIZE_MAX);
	}
	peer_report(dir, "peer-result", s, 1);
	return s[0].error || s[1].error || s[0].bad || s[1].bad;
}

static int peer(const char *dir, unsigned int port4, unsigned int port6)
{
	struct stream s[2] = { { .family = AF_INET }, { .family = AF_INET6 } };
	struct timespec tick = { 0, TICK_MS * 1000000L };
	unsigned int ticks = 0;

	s[0].fd = connect_to(AF_INET, port4);
	s[1].fd = connect_to(AF_INET6, port6);
	if (s[0].fd < 0 || s[1].fd < 0) {
		perror("tcpstream peer: connect");
		return 1;
	}
	while (!fast) {
		for (int i = 0; i < 2; i++) {
			stream_write(&s[i], 1, PEER_SEND);
			stream_read(&s[i], 0, SLOW_READ);
		}
		if (++ticks % 10 == 0)
			peer_report(dir, "peer-status", s, 0);
		nanosleep(&tick, NULL);
	}
	return peer_finish(dir, s);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "peer"))
		return peer(argv[2], (unsigned int)atoi(argv[3]), (unsigned int)atoi(argv[4]));
	fprintf(stderr, "usage: tcpstream serve DIR | tcpstream peer DIR PORT4 PORT6\n");
	return 2;
}
