// SPDX-License-Identifier: GPL-2.0
/*
 * The skb iterator copies a long queue in bounded batches: what it
 * allocates with the queue lock held and bottom halves disabled stays
 * small however long the queue is.  A UDP socket gets a receive queue of
 * QUEUED datagrams; walking it, the iterator may have at most
 * BATCH_MAX copies out at once (crib_batch.bpf.c counts them), and must
 * hand out every datagram once.  TAP output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "crib_batch.skel.h"
#include "crib_libbpf.h"
#include "crib_target.h"
#include "tap.h"

#define QUEUED		300
#define BATCH_MIN	16	/* the first batch */
#define BATCH_MAX	64	/* kernel/bpf/crib/skb.c, CRIB_SKB_BATCH_MAX */

/* A UDP socket with @n datagrams queued, or -1. */
static int queued_socket(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int rx, tx, size = 8 << 20, i;

	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &len))
		return -1;
	for (i = 0; i < n; i++)
		if (sendto(tx, &i, sizeof(i), 0, (struct sockaddr *)&a, sizeof(a)) != sizeof(i))
			return -1;
	close(tx);
	return rx;
}

/* How many datagrams are queued on @fd, read in order; -1 if out of order. */
static int drain(int fd)
{
	int n = 0, v;

	while (recv(fd, &v, sizeof(v), MSG_DONTWAIT) == sizeof(v)) {
		if (v != n)
			return -1;
		n++;
	}
	return n;
}

int main(void)
{
	struct crib_batch *skel;
	struct tap t = {};
	char err[256];
	int fd;
	struct {
		struct crib_target target;
		int pid, fd;
	} args;
	int retval = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	skel = crib_batch__open_and_load();
	fd = queued_socket(QUEUED);
	if (!skel || fd < 0) {
		printf("Bail out! crib_batch or its socket: %s\n", strerror(errno));
		return 1;
	}
	args.pid = getpid();
	args.fd = fd;
	if (!tap_check(&t, !crib_prog_run_about(skel->progs.batch_peak, getpid(), &args,
						sizeof(args), &retval) && retval == 0,
		       "the queue of %d datagrams is walked", QUEUED))
		return tap_done(&t);
	tap_check(&t, skel->bss->steps == QUEUED, "each datagram is handed out once (%u)",
		  skel->bss->steps);
	tap_check(&t, skel->bss->peak >= BATCH_MIN, "copies are taken in batches (%u at most)",
		  skel->bss->peak);
	tap_check(&t, skel->bss->peak <= BATCH_MAX, "never more than %d at once (%u)", BATCH_MAX,
		  skel->bss->peak);
	tap_check(&t, drain(fd) == QUEUED, "the queue is left as it was");
	close(fd);
	crib_batch__destroy(skel);
	return tap_done(&t);
}
