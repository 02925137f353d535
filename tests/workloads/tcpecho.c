// SPDX-License-Identifier: GPL-2.0
/*
 * A TCP echo server for the network-lock tests: the process crib-dump
 * kills while its peer, another process, keeps its end open.
 *
 *   tcpecho DIR [inflight] [heap MIB]
 *
 * Listens on 127.0.0.1 and ::1 (ports chosen by the kernel), writes
 * "PORT4 PORT6" to DIR/ready, and echoes back whatever its clients send.
 * "inflight" also holds a UNIX socket pair with a descriptor in flight,
 * which crib-dump refuses only after it has locked the connections: a
 * dump that fails late.  "heap MIB" fills MIB MiB of memory, so that the
 * dump takes long enough to be interrupted.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "listen.h"
#include "ready.h"

#define MAX_FDS		16

/* A descriptor sent over a UNIX pair and never received. */
static int hold_inflight(void)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int sv[2], fd = STDIN_FILENO;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	return sendmsg(sv[0], &msg, 0) == 1 ? 0 : -1;
}

/* Kept where the compiler must assume it is read, so the memory stays. */
static unsigned char *volatile heap;

static int fill_heap(long mib)
{
	size_t len = (size_t)mib << 20;
	unsigned char *p = malloc(len);

	if (!p)
		return -1;
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 2654435761u >> 13);
	heap = p;
	return 0;
}

static void serve(struct pollfd *pfd, int n_listen)
{
	char buf[4096];
	int n = n_listen, fd;
	ssize_t got;

	for (;;) {
		if (poll(pfd, (nfds_t)n, -1) < 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (i < n_listen) {
				fd = accept(pfd[i].fd, NULL, NULL);
				if (fd >= 0 && n < MAX_FDS)
					pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
				continue;
			}
			got = read(pfd[i].fd, buf, sizeof(buf));
			if (got <= 0 || write(pfd[i].fd, buf, (size_t)got) != got) {
				close(pfd[i].fd);
				pfd[i--] = pfd[--n];
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct pollfd pfd[MAX_FDS];
	unsigned int port4, port6;
	char path[1024], text[64];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: tcpecho DIR [inflight] [heap MIB]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "inflight") && hold_inflight()) {
			perror("tcpecho: inflight");
			return 1;
		}
		if (!strcmp(argv[i], "heap") && i + 1 < argc && fill_heap(atol(argv[++i]))) {
			perror("tcpecho: heap");
			return 1;
		}
	}
	pfd[0] = (struct pollfd){ .fd = listen_on(AF_INET, "127.0.0.1", &port4), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = listen_on(AF_INET6, "::1", &port6), .events = POLLIN };
	if (pfd[0].fd < 0 || pfd[1].fd < 0) {
		perror("tcpecho: listen");
		return 1;
	}
	snprintf(text, sizeof(text), "%u %u\n", port4, port6);
	snprintf(path, sizeof(path), "%s/ready", argv[1]);
	if (write_ready(path, text)) {
		perror("tcpecho: ready");
		return 1;
	}
	serve(pfd, 2);
	return 0;
}
