/* SPDX-License-Identifier: GPL-2.0-only */
/* Sockets and their queued data. */
#ifndef CRIB_SOCKETS_H
#define CRIB_SOCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crib/types.h>

struct crib_writer;

/*
 * A socket address.  addr holds 4 bytes (AF_INET), 16 bytes (AF_INET6) or
 * the sun_path bytes (AF_UNIX, abstract names keep their leading NUL).
 * AF_NETLINK (1.10): port is the port id, group the multicast group a
 * socket is connected to.  family 0 means no address.
 */
struct crib_sockaddr {
	uint64_t family;
	struct crib_blob addr;
	uint64_t port;
	uint64_t flowinfo;
	uint64_t scope_id;
	uint64_t group;			/* 1.10, AF_NETLINK: a multicast group */
};

/* A socket option as getsockopt(2) returned it. */
struct crib_sockopt {
	uint64_t level;
	uint64_t name;
	struct crib_blob value;
};

/*
 * TCP connection state for TCP_REPAIR.  unsent, nodelay and cork say
 * again what socket.send_queued and the TCP_NODELAY and TCP_CORK options
 * say (spec §5): writers keep writing them for the readers of 1.0, which
 * would take their absence for 0 and off; readers take the others.
 */
struct crib_tcp {
	uint64_t snd_una, snd_nxt, rcv_nxt;
	uint64_t snd_wnd, rcv_wnd, max_window, rcv_wup;
	uint64_t mss_clamp;
	uint64_t snd_wscale, rcv_wscale;
	bool timestamps;
	uint64_t ts_val;
	bool sack;
	uint64_t unsent;		/* = socket.send_queued */
	bool nodelay;			/* = option TCP_NODELAY */
	bool cork;			/* = option TCP_CORK */
	uint64_t write_seq;		/* next sequence number the process writes */
	uint64_t copied_seq;		/* next sequence number the process reads */
	uint64_t snd_wl1;		/* sequence number of the last window update */
	bool wscale_ok;			/* window scaling on */
};

/*
 * socket.state: the kernel's sk_state, numbered as TCP's states for every
 * family (spec §6).  UDP and UNIX sockets are CRIB_SK_ESTABLISHED when
 * connected, CRIB_SK_CLOSE when not, CRIB_SK_LISTEN listening (UNIX).
 */
enum crib_sk_state {
	CRIB_SK_ESTABLISHED = 1,
	CRIB_SK_SYN_SENT = 2,
	CRIB_SK_SYN_RECV = 3,
	CRIB_SK_FIN_WAIT1 = 4,
	CRIB_SK_FIN_WAIT2 = 5,
	CRIB_SK_TIME_WAIT = 6,
	CRIB_SK_CLOSE = 7,
	CRIB_SK_CLOSE_WAIT = 8,
	CRIB_SK_LAST_ACK = 9,
	CRIB_SK_LISTEN = 10,
	CRIB_SK_CLOSING = 11,
	CRIB_SK_NEW_SYN_RECV = 12,
};

struct crib_socket {
	uint64_t pid;
	uint64_t fd;
	uint64_t sock_id;		/* sockfs inode */
	uint64_t family;		/* AF_* */
	uint64_t type;			/* SOCK_* */
	uint64_t protocol;
	uint64_t state;			/* enum crib_sk_state */
	struct crib_sockaddr local;
	struct crib_sockaddr peer;
	const struct crib_sockopt *options;
	size_t n_options;
	struct crib_tcp tcp;
	uint64_t recv_queued;		/* bytes; carried by socket_queue records */
	uint64_t send_queued;
	uint64_t shutdown;		/* SHUT_* mask: 1 read, 2 write */
	uint64_t backlog;
	uint64_t peer_id;		/* sock_id of a unix peer */
};

enum crib_queue {
	CRIB_QUEUE_RECV = 0,
	CRIB_QUEUE_SEND = 1,
};

/* One datagram, or a run of stream bytes; src only for datagrams. */
struct crib_sock_chunk {
	struct crib_blob data;
	struct crib_sockaddr src;
};

struct crib_socket_queue {
	uint64_t sock_id;
	uint64_t queue;			/* enum crib_queue */
	uint64_t seq;			/* 0, 1, 2 ... per queue */
	const struct crib_sock_chunk *chunks;
	size_t n_chunks;
};

/*
 * 1.8: a socket's classic BPF filter (SO_ATTACH_FILTER), as the process
 * gave it: struct sock_filter[] in the host's byte order; and whether
 * SO_LOCK_FILTER locked it.
 */
struct crib_socket_filter {
	uint64_t sock_id;
	struct crib_blob insns;		/* empty: locked without a filter */
	bool locked;
};

extern const struct crib_struct_desc crib_socket_desc;
extern const struct crib_struct_desc crib_socket_queue_desc;
extern const struct crib_struct_desc crib_socket_filter_desc;

/*
 * The name of @s's state as spec §6 gives it: TCP's ("ESTABLISHED") for a
 * TCP socket, "connected", "unconnected" or "listening" for the others;
 * "unknown" for a state the spec does not list.
 */
const char *crib_socket_state_name(const struct crib_socket *s);
/* Whether @s is a TCP socket: IPv4 or IPv6, SOCK_STREAM, IPPROTO_TCP. */
bool crib_socket_is_tcp(const struct crib_socket *s);

int crib_write_socket(struct crib_writer *w, const struct crib_socket *s);
/* One queue record; the chunks' data must total at most CRIB_CHUNK_MAX. */
int crib_write_socket_queue(struct crib_writer *w, const struct crib_socket_queue *q);
int crib_write_socket_filter(struct crib_writer *w, const struct crib_socket_filter *f);
/* Stream bytes of a queue, split into records of at most CRIB_CHUNK_MAX. */
int crib_write_socket_stream(struct crib_writer *w, uint64_t sock_id,
			     uint64_t queue, const void *data, size_t len);

#endif /* CRIB_SOCKETS_H */
