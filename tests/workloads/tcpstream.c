// SPDX-License-Identifier: GPL-2.0
/*
 * Two TCP streams, both ways at once, whose every byte is checked: one
 * side is checkpointed mid-stream, the other keeps running.
 *
 *   tcpstream serve DIR
 *   tcpstream peer DIR PORT4 PORT6 [N]
 *
 * "serve" listens on 127.0.0.1 and ::1 (ports chosen by the kernel),
 * holds DIR/anchor open (a file a restore needs), writes "PORT4 PORT6" to
 * DIR/ready, and on each connection writes its stream as fast as the
 * socket takes it while reading the peer's slowly, so that its receive
 * queue holds unread data; a peer that reads slowly leaves unsent data
 * in its send queue (its send buffers are 128 KiB).  SIGUSR1 makes it
 * stop writing and read at full speed.  At the peer's
 * end of file it writes DIR/serve-PORT, PORT being the peer's port:
 * "received N sent N bad N error E", and closes.
 *
 * "peer" makes N connections (2 by default), to IPv4 and IPv6 in turn,
 * sends its streams at a steady rate into large send buffers (so that it
 * keeps sending while the other side is gone) and reads slowly,
 * rewriting DIR/peer-status a few times a second: "SENT RECEIVED" of
 * each connection in turn, then the count of wrong bytes.  SIGUSR1
 * finishes: it stops sending, shuts its streams down for writing, reads
 * the rest at full speed up to the end of file, writes DIR/peer-result,
 * a line per connection:
 *   "PORT FAMILY sent N received N bad N error E eof 0|1"
 * (PORT its own port, FAMILY 4 or 6), and exits 0 when everything was
 * read without an error.  The rates are shared by the connections.
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

#include "listen.h"
#include "ready.h"

#define TICK_MS		20
#define SLOW_READ	4096		/* bytes read per tick while slow, in all: 200 KiB/s */
#define PEER_SEND	8192		/* bytes the peer sends per tick, in all: 400 KiB/s */
#define MIN_SHARE	64		/* a connection's least share of a tick */
#define PEER_SNDBUF	(16 << 20)
#define SERVE_SNDBUF	(128 << 10)
#define MAX_CONNS	256

struct stream {
	int fd;
	int family;			/* AF_INET or AF_INET6 */
	unsigned int port;		/* the peer's port (serve), our own (peer) */
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
	static uint8_t buf[16384];
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

/* A tick's @total shared by @n connections. */
static size_t share(size_t total, int n)
{
	return n && total / (size_t)n > MIN_SHARE ? total / (size_t)n : MIN_SHARE;
}

/* The port at the other end (@peer) or at ours. */
static unsigned int port_of(int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if ((peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
					       ((struct sockaddr_in6 *)&ss)->sin6_port);
}

static void serve_result(const char *dir, const struct stream *s)
{
	char path[1024], text[256];

	snprintf(path, sizeof(path), "%s/serve-%u", dir, s->port);
	snprintf(text, sizeof(text), "received %llu sent %llu bad %llu error %d\n",
		 (unsigned long long)s->received, (unsigned long long)s->sent,
		 (unsigned long long)s->bad, s->error);
	write_ready(path, text);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void serve_loop(const char *dir, int *lfd, const int *lfamily)
{
	static struct stream conns[MAX_CONNS];
	struct pollfd pfd[2 + MAX_CONNS];
	uint64_t last_read = 0;
	int n = 0, fd, reading, sndbuf = SERVE_SNDBUF;

	for (;;) {
		for (int i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ .fd = lfd[i], .events = POLLIN };
		for (int i = 0; i < n; i++)
			pfd[2 + i] = (struct pollfd){ .fd = conns[i].fd,
						      .events = POLLOUT | (fast ? POLLIN : 0) };
		if (poll(pfd, (nfds_t)(2 + n), TICK_MS) < 0 && errno != EINTR)
			return;
		/* slowly: a share of SLOW_READ once per tick */
		reading = fast || now_ms() - last_read >= TICK_MS;
		if (reading)
			last_read = now_ms();
		for (int i = 0; i < n; i++) {
			struct stream *s = &conns[i];

			if (reading)
				stream_read(s, 1, fast ? SIZE_MAX : share(SLOW_READ, n));
			/* only where there is room: making the bytes costs */
			if (!s->eof && !fast && (pfd[2 + i].revents & POLLOUT))
				stream_write(s, 0, SIZE_MAX);
			if (s->eof || s->error) {
				serve_result(dir, s);
				close(s->fd);
				conns[i] = conns[--n];
				pfd[2 + i--] = pfd[2 + n];
			}
		}
		for (int i = 0; i < 2; i++) {
			if (!(pfd[i].revents & POLLIN) || n == MAX_CONNS)
				continue;
			fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK);
			/* a fixed send buffer: unsent data in bounds, however many connections */
			if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)))
				close(fd);
			else if (fd >= 0)
				conns[n++] = (struct stream){ .fd = fd, .family = lfamily[i],
							      .port = port_of(fd, 1) };
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

static void peer_report(const char *dir, const struct stream *s, int n, int full)
{
	char path[1024];
	uint64_t bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.tmp", dir, full ? "peer-result" : "peer-status");
	f = fopen(path, "w");
	if (!f)
		return;
	for (int i = 0; i < n; i++) {
		if (full)
			fprintf(f, "%u %d sent %llu received %llu bad %llu error %d eof %d\n",
				s[i].port, s[i].family == AF_INET ? 4 : 6,
				(unsigned long long)s[i].sent, (unsigned long long)s[i].received,
				(unsigned long long)s[i].bad, s[i].error, s[i].eof);
		else
			fprintf(f, "%llu %llu ", (unsigned long long)s[i].sent,
				(unsigned long long)s[i].received);
		bad += s[i].bad;
	}
	if (!full)
		fprintf(f, "%llu\n", (unsigned long long)bad);
	if (fclose(f) == 0) {
		char final[1024];

		snprintf(final, sizeof(final), "%s/%s", dir, full ? "peer-result" : "peer-status");
		rename(path, final);
	}
}

static int stream_done(const struct stream *s)
{
	return s->eof || s->error;
}

/* Stop sending, shut down for writing, read up to the end of file. */
static int peer_finish(const char *dir, struct stream *s, int n)
{
	struct pollfd pfd[MAX_CONNS];
	int left = n, ret = 0;

	if (n < 1 || n > MAX_CONNS)
		return 1;
	for (int i = 0; i < n; i++)
		if (shutdown(s[i].fd, SHUT_WR))
			s[i].error = errno;
	while (left) {
		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = stream_done(&s[i]) ? -1 : s[i].fd,
						  .events = POLLIN };
		if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR)
			return 1;
		left = 0;
		for (int i = 0; i < n; i++) {
			if (pfd[i].revents)
				stream_read(&s[i], 0, SIZE_MAX);
			left += !stream_done(&s[i]);
		}
	}
	peer_report(dir, s, n, 1);
	for (int i = 0; i < n; i++)
		ret |= s[i].error || s[i].bad;
	return ret;
}

static int peer(const char *dir, unsigned int port4, unsigned int port6, int n)
{
	static struct stream s[MAX_CONNS];
	struct timespec tick = { 0, TICK_MS * 1000000L };
	unsigned int ticks = 0;

	for (int i = 0; i < n; i++) {
		s[i].family = i % 2 ? AF_INET6 : AF_INET;
		s[i].fd = connect_to(s[i].family, i % 2 ? port6 : port4);
		if (s[i].fd < 0) {
			perror("tcpstream peer: connect");
			return 1;
		}
		s[i].port = port_of(s[i].fd, 0);
	}
	while (!fast) {
		for (int i = 0; i < n; i++) {
			stream_write(&s[i], 1, share(PEER_SEND, n));
			stream_read(&s[i], 0, share(SLOW_READ, n));
		}
		if (++ticks % 10 == 0)
			peer_report(dir, s, n, 0);
		nanosleep(&tick, NULL);
	}
	return peer_finish(dir, s, n);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "peer")) {
		int n = argc == 6 ? atoi(argv[5]) : 2;

		if (n < 1 || n > MAX_CONNS) {
			fprintf(stderr, "tcpstream peer: 1 to %d connections\n", MAX_CONNS);
			return 2;
		}
		return peer(argv[2], (unsigned int)atoi(argv[3]), (unsigned int)atoi(argv[4]), n);
	}
	fprintf(stderr, "usage: tcpstream serve DIR | tcpstream peer DIR PORT4 PORT6 [N]\n");
	return 2;
}
