/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A UDP socket of the test's own with datagrams queued: what the socket and
 * skb kfuncs are run on.  Shared by crib_verifier.c and crib_holds.c.
 */
#ifndef CRIB_TESTS_UDP_QUEUE_H
#define CRIB_TESTS_UDP_QUEUE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bound to the loopback, with @n datagrams of 4 bytes queued; -1 on failure. */
static inline int udp_with_queue(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int rx, tx, i;

	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &len))
		goto fail;
	for (i = 0; i < n; i++)
		if (sendto(tx, "crib", 4, 0, (struct sockaddr *)&a, sizeof(a)) != 4)
			goto fail;
	close(tx);
	return rx;
fail:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return -1;
}

#endif /* CRIB_TESTS_UDP_QUEUE_H */
