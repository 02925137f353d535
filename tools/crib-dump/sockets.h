/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets in crib-dump, as in crib-restore: sockets.c reads every socket
 * and writes its records, in an order that keeps them consistent;
 * socket_records.c collects what dump_sockets sends, socket_options.c
 * turns it into the options as getsockopt() returns them, socket_walk.c
 * walks the queues, socket_queues.c holds their data, which each protocol
 * builds from the walks and checks: tcp.c, udp.c, unix.c; netlink.c and
 * inet_dgram.c (ping, UDP-Lite, raw IP) read what those sockets have besides.  network.c locks the TCP
 * connections of a process the dump kills.
 */
#ifndef CRIB_DUMP_SOCKETS_TOOL_H
#define CRIB_DUMP_SOCKETS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include <crib/format.h>

#include "crib-dump.h"
#include "dump_sockets.h"

struct sock_filter;

/* The sockets crib-dump can dump. */
enum socket_kind {
	SOCKET_TCP,
	SOCKET_UDP,
	SOCKET_UNIX_STREAM,
	SOCKET_UNIX_DGRAM,
	SOCKET_UNIX_SEQPACKET,
	SOCKET_NETLINK,
	SOCKET_PING,			/* ICMP echo: SOCK_DGRAM, IPPROTO_ICMP(V6) */
	SOCKET_UDPLITE,
	SOCKET_RAW,			/* SOCK_RAW over IPv4 or IPv6, any protocol */
	SOCKET_PACKET,
};

/* One message of a datagram queue, or all bytes of a stream queue. */
struct sock_chunk {
	uint8_t *data;
	size_t len;
	uint64_t src_family;		/* 0: no address */
	uint8_t src_addr[DUMP_SUN_PATH_LEN];
	size_t src_len;
	uint64_t src_port;
	uint64_t src_scope_id;
};

/* A queue as socket_queue records carry it: its chunks in order. */
struct sock_queue {
	ARRAY(struct sock_chunk);
	uint64_t bytes;
	bool stream;			/* one run of bytes, not messages */
};

/* What netlink.c reads of a netlink socket besides what dump_sockets reads. */
struct netlink_state {
	uint32_t portid;		/* bound port id, 0 unbound */
	uint32_t dst_portid;		/* connected to, 0 the kernel */
	uint32_t dst_group;		/* connected to, 0 none */
	bool dump_running;		/* NDIAG_FLAG_CB_RUNNING */
	int flags[7];			/* NETLINK_PKTINFO ... NETLINK_GET_STRICT_CHK */
	uint32_t groups[32];		/* NETLINK_LIST_MEMBERSHIPS */
	uint32_t groups_len;		/* bytes of it the kernel filled */
};

/* An option inet_dgram.c reads with getsockopt() on a copy of the descriptor. */
struct proto_opt {
	int level, name;
	uint8_t value[32];		/* struct icmp6_filter is the largest */
	uint32_t len;
};

#define PROTO_OPTS_MAX	3

/* What packet.c reads of a packet socket. */
struct packet_state {
	char ifname[IF_NAMESIZE];	/* bound to, "" any */
	uint16_t num;			/* the protocol bound, host order */
	int options[6];			/* PACKET_VERSION ... PACKET_QDISC_BYPASS */
};

#define SOCKOPT_MAX	64
#define SOCKOPT_BUF	1024

/*
 * A socket as dump_sockets read it.  k.state is the kernel's sk_state,
 * which the snapshot keeps as it is: enum crib_sk_state.
 */
struct socket_entry {
	struct dump_socket_rec k;
	enum socket_kind kind;
	struct sock_queue recv;
	struct sock_queue send;
	struct crib_sockopt opts[SOCKOPT_MAX];
	size_t n_opts;
	uint8_t optval[SOCKOPT_BUF];
	size_t optval_used;
	struct sock_filter *filter;	/* socket_options.c: its classic program, or NULL */
	size_t n_filter;
	bool filter_locked;		/* SO_LOCK_FILTER */
	struct netlink_state nl;	/* SOCKET_NETLINK */
	struct proto_opt proto_opts[PROTO_OPTS_MAX];	/* inet_dgram.c: UDP-Lite's, raw's */
	size_t n_proto_opts;
	struct packet_state pk;		/* SOCKET_PACKET */
};

/*
 * The classic BPF filter and lock of @e, read through a copy of its
 * descriptor; written once per socket, after its queues (socket_options.c).
 */
int socket_filter_read(struct dump_job *job, struct socket_entry *e);
int socket_filter_write(struct dump_job *job, const struct socket_entry *e);

/*
 * The options of @e at the socket, IP and IPv6 levels as getsockopt()
 * would return them; @hz: the kernel's HZ (socket_options.c).  Its
 * protocol's own level follows (tcp_options(), udp_options()), each
 * option added with sockopt_put().
 */
void socket_options_build(struct socket_entry *e, unsigned int hz);
void sockopt_put(struct socket_entry *e, int level, int name, const void *val, size_t len);
void sockopt_put_int(struct socket_entry *e, int level, int name, int val);
/* Flag @b of what dump_sockets read. */
bool sock_bit(const struct socket_entry *e, enum dump_sock_bit b);

#define DUMP_NR_QUEUES	3	/* enum dump_sock_queue */

/* One skb as dump_socket_queue sent it. */
struct skb_copy {
	struct dump_skb_rec k;
	uint8_t *bytes;		/* from skb->head */
	uint32_t size;		/* headroom + len */
	uint32_t filled;
};

/* One walk of one queue (socket_walk.c). */
struct skb_list {
	bool used;		/* walked at all */
	ARRAY(struct skb_copy);	/* in queue order */
	struct dump_queue_end_rec end;
	bool ended;
	const char *bad;	/* what was wrong with a record */
};

/* Walk queue @queue (enum dump_sock_queue) of the socket @fd. */
int socket_walk_queue(struct dump_job *job, int fd, uint32_t queue, bool unix_src,
		      struct skb_list *l);
/*
 * Walk every queue @e has data in (socket_walk.c), indexed by enum
 * dump_sock_queue, for its protocol to build e->recv and e->send from:
 * 0, or -1 with the job's error set.  socket_walks_free() after either.
 */
int socket_queues_walk(struct dump_job *job, const struct socket_entry *e,
		       struct skb_list walks[DUMP_NR_QUEUES]);
void socket_walks_free(struct skb_list walks[DUMP_NR_QUEUES]);
void socket_queues_free(struct socket_entry *e);

/* Walks and queues (socket_queues.c). */
const char *socket_queue_name(uint32_t queue);
void skb_list_free(struct skb_list *l);
/* The walk of queue @queue of fd @fd saw the whole queue, and every skb whole. */
int skb_list_check(struct dump_job *job, int fd, uint32_t queue, const struct skb_list *l);
/* Append @len bytes to a stream queue (its one chunk); 0 or -1. */
int sock_queue_add_bytes(struct sock_queue *q, const uint8_t *data, size_t len);
/* Append a message of @len bytes, *@out (if given) pointing at it; 0 or -1. */
int sock_queue_add_message(struct sock_queue *q, const uint8_t *data, size_t len,
			   struct sock_chunk **out);
void sock_queue_free(struct sock_queue *q);

/*
 * Each protocol: what no snapshot of @e can carry, said as "... is not
 * supported" completes it, NULL when nothing; and @e's queues from the
 * walks, checked against the socket's counters (e->k) and the walks'
 * ends: 0, -1 with the job's error set, or 1 when the socket changed
 * under the walk and has to be read again.
 */
const char *tcp_unsupported(const struct socket_entry *e);
int tcp_queues(struct dump_job *job, struct socket_entry *e, const struct skb_list *walks);
/* Bytes sent and not acknowledged: what a snapshot cannot hold. */
uint32_t tcp_unacked(const struct dump_socket_rec *k);
/* The record's tcp map: what TCP_REPAIR needs. */
void tcp_record(const struct socket_entry *e, struct crib_tcp *t);
/* The TCP level of @e's options (after socket_options_build()). */
void tcp_options(struct socket_entry *e, unsigned int hz);
const char *udp_unsupported(const struct socket_entry *e);
int udp_queues(struct dump_job *job, struct socket_entry *e, const struct skb_list *walks);
/* The UDP level of @e's options (after socket_options_build()). */
void udp_options(struct socket_entry *e);
const char *unix_unsupported(const struct socket_entry *e);
int unix_queues(struct dump_job *job, struct socket_entry *e, const struct skb_list *walks);
/* A UNIX name as the record holds it. */
void unix_sockaddr(const struct dump_unix_addr *u, struct crib_sockaddr *a);

/*
 * What dump_sockets does not read of a netlink socket, refusing queued
 * messages and a dump in progress: 0, or -1 with the job's error set.
 */
int netlink_read(struct dump_job *job, struct socket_entry *e);
/* The netlink level of @e's options (after socket_options_build()). */
void netlink_options(struct socket_entry *e);
/* The port id bound and the port id and group connected to, as the record holds them. */
void netlink_sockaddrs(const struct socket_entry *e, struct crib_sockaddr *local,
		       struct crib_sockaddr *peer);

/* Ping, UDP-Lite and raw IP sockets (inet_dgram.c), as netlink's above. */
bool inet_dgram_is(const struct socket_entry *e);
const char *inet_dgram_name(const struct socket_entry *e);
const char *inet_dgram_unsupported(const struct socket_entry *e);
int inet_dgram_read(struct dump_job *job, struct socket_entry *e);
void inet_dgram_options(struct socket_entry *e);

/* Packet sockets (packet.c), as netlink's above; the local address is bound to. */
int packet_read(struct dump_job *job, struct socket_entry *e);
void packet_options_put(struct socket_entry *e);
void packet_sockaddr(const struct socket_entry *e, struct crib_sockaddr *local);

/* A TCP connection, which the network lock holds (network.c). */
bool network_lockable(const struct socket_entry *e);
/* Lock the connections among @items; after a failure, nothing is locked. */
int network_lock(struct dump_job *job, const struct socket_entry *items, size_t n);
/* Whether @e's connection is under the lock taken by network_lock(). */
bool network_locked(const struct dump_job *job, const struct socket_entry *e);

#endif /* CRIB_DUMP_SOCKETS_TOOL_H */
