/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network lock: while a process's TCP connections are in a snapshot
 * and not yet restored, every packet of them is dropped, both ways, so
 * that neither end sees a reset or a FIN and the peer only retransmits.
 *
 * It lives in one nftables table, "inet crib", shared by every dump and
 * restore: named sets "conn4" and "conn6" of concatenated
 *   local address . local port . peer address . peer port
 * and an input and an output chain that drop what matches.  Locking adds
 * elements, releasing deletes them, so several dumps and restores
 * coexist; the table stays (empty sets drop nothing).  By hand:
 *   nft list table inet crib
 *   nft delete element inet crib conn4 '{ 10.0.0.1 . 22 . 10.0.0.2 . 40000 }'
 *
 * Used by crib-dump (lock before reading the sockets) and crib-restore
 * (release once they are restored, or on request).
 */
#ifndef CRIB_NETLOCK_H
#define CRIB_NETLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct crib_socket;
struct sockaddr;

#define NETLOCK_TABLE		"crib"
#define NETLOCK_SET4		"conn4"
#define NETLOCK_SET6		"conn6"

/*
 * One TCP connection as the packets on the wire name it.  An IPv6 socket
 * talking IPv4 (v4-mapped addresses) is an AF_INET tuple.
 */
struct netlock_tuple {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t local_addr[16];		/* network order; 4 bytes for AF_INET */
	uint16_t local_port;		/* host order */
	uint8_t peer_addr[16];
	uint16_t peer_port;
};

/*
 * TCP states (sk_state) of a connection a dump locks: established, or
 * closing with a peer still there (the FIN states).
 */
bool netlock_state_connected(unsigned int tcp_state);

/* @t from a socket's two addresses (struct sockaddr_in or sockaddr_in6); 0 or -1. */
int netlock_tuple_from_sockaddrs(const struct sockaddr *local, const struct sockaddr *peer,
				 struct netlock_tuple *t);
/*
 * @t from a socket record: 1 when it is a TCP connection a dump locked
 * (connected state, inet addresses), 0 when it is not, -1 when its
 * addresses are malformed.
 */
int netlock_tuple_from_socket(const struct crib_socket *s, struct netlock_tuple *t);

/* "127.0.0.1 . 5000 . 127.0.0.1 . 41234", as nft writes an element. */
void netlock_tuple_format(const struct netlock_tuple *t, char *buf, size_t size);

/*
 * Drop every packet of @n connections, in one transaction: all or none.
 * Creates the table on first use.  A connection already locked stays
 * locked (once: the next release lets it go).
 */
int netlock_acquire(const struct netlock_tuple *t, size_t n, struct tool_error *err);
/*
 * Let the packets of @n connections through again.  A connection that is
 * not locked is skipped; anything else that fails is reported, after the
 * others were released.
 */
int netlock_release(const struct netlock_tuple *t, size_t n, struct tool_error *err);
/* Whether @t is locked now: 1, 0, or -1 with @err set. */
int netlock_is_locked(const struct netlock_tuple *t, struct tool_error *err);

/*
 * Release the connections of @n socket records (those that are TCP
 * connections; the others are skipped): what a restore calls once it has
 * brought the sockets back.
 */
int netlock_release_sockets(const struct crib_socket *s, size_t n, struct tool_error *err);
/*
 * Release the connections of every TCP socket a snapshot holds, read
 * from @fd; *@released counts those that were locked.
 */
int netlock_release_snapshot(int fd, size_t *released, struct tool_error *err);

#endif /* CRIB_NETLOCK_H */
