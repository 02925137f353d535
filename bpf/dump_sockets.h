/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by dump_sockets.bpf.c and crib-dump: what the socket programs
 * are run with and the records they send back.  Like dump.h, fixed-size
 * types only, every record a multiple of 8 bytes and starting with its
 * __u32 kind.
 *
 * dump_sockets reports each socket of a process as the kernel holds it:
 * times in jiffies, addresses in network byte order, sysctl defaults
 * resolved where the kernel's getsockopt() would resolve them.  crib-dump
 * turns that into getsockopt() values.
 *
 * dump_socket_queue sends the skbs of one queue: for each skb a
 * DUMP_REC_SKB record, then its packet in DUMP_REC_SKB_DATA chunks, and
 * after the last skb a DUMP_REC_QUEUE_END record with the counters that
 * let crib-dump check it saw the whole queue.  The packet starts at the IP
 * header of a received packet (the headers recvmsg() reads its source
 * from), at skb->data otherwise; all offsets are from that start.
 */
#ifndef CRIB_DUMP_SOCKETS_H
#define CRIB_DUMP_SOCKETS_H

#include "dump.h"

/* Apart from enum dump_record_kind, so both can grow independently. */
enum dump_socket_record_kind {
	DUMP_REC_SOCKET = 0x10,
	DUMP_REC_SKB = 0x11,
	DUMP_REC_SKB_DATA = 0x12,
	DUMP_REC_QUEUE_END = 0x13,
};

/* More results of the socket programs, after enum dump_result. */
enum dump_socket_result {
	DUMP_NO_SOCKET = 16,	/* the descriptor is not an open socket */
	DUMP_NO_QUEUE = 17,	/* the socket has no such queue */
};

#define DUMP_SUN_PATH_LEN	108	/* sizeof(sockaddr_un.sun_path) */
#define DUMP_INET_ADDR_LEN	32	/* a struct sockaddr_in6 (28 bytes), padded */
#define DUMP_CA_NAME_LEN	16	/* TCP_CA_NAME_MAX */
#define DUMP_SKB_CHUNK		4096	/* bytes of skb data per record */

/*
 * Boolean socket options, decoded by the program from the kernel's flag
 * words (enum sock_flags, INET_FLAGS_*, UDP_FLAGS_*, tcp_sock.nonagle),
 * whose bit numbers are the kernel's business.
 */
enum dump_sock_bit {
	DUMP_SO_KEEPALIVE = 0,
	DUMP_SO_BROADCAST,
	DUMP_SO_DONTROUTE,
	DUMP_SO_OOBINLINE,
	DUMP_SO_LINGER,
	DUMP_SO_TIMESTAMP,	/* SOCK_RCVTSTAMP */
	DUMP_SO_TIMESTAMPNS,	/* SOCK_RCVTSTAMPNS */
	DUMP_SO_TSTAMP_NEW,
	DUMP_SO_RXQ_OVFL,
	DUMP_SO_DEBUG,		/* SOCK_DBG */
	DUMP_SO_NO_CHECK,	/* sk_no_check_tx */
	DUMP_SO_PASSSEC,	/* struct socket flags */
	DUMP_SO_PASSPIDFD,	/* struct socket flags */
	DUMP_SO_WIFI_STATUS,
	DUMP_SO_NOFCS,
	DUMP_SO_SELECT_ERR_QUEUE,
	DUMP_SO_RCVMARK,
	DUMP_SO_PASSCRED,
	DUMP_IP_PKTINFO,
	DUMP_IP_RECVTTL,
	DUMP_IP_RECVTOS,
	DUMP_IP_RECVERR,
	DUMP_IP_FREEBIND,
	DUMP_IP_TRANSPARENT,
	DUMP_IP_MULTICAST_LOOP,
	DUMP_IP_BIND_ADDRESS_NO_PORT,
	DUMP_IP_RECVORIGDSTADDR,
	DUMP_TCP_NODELAY,
	DUMP_TCP_CORK,
	DUMP_UDP_CORK,
	DUMP_UDP_GRO,
	/* what no snapshot carries: crib-dump refuses a socket with any */
	DUMP_SO_FILTER,		/* SO_ATTACH_FILTER, SO_ATTACH_BPF: sk_filter */
	DUMP_SO_LOCK_FILTER,	/* SOCK_FILTER_LOCKED */
	DUMP_SO_ZEROCOPY,	/* SOCK_ZEROCOPY */
	DUMP_SO_TIMESTAMPING,	/* sk_tsflags */
	DUMP_SO_BUSY_POLL,	/* sk_ll_usec */
	DUMP_SO_PREFER_BUSY_POLL,
	DUMP_SO_BUSY_POLL_BUDGET,
	DUMP_SO_TXTIME,		/* SOCK_TXTIME */
	DUMP_SO_RESERVE_MEM,	/* sk_reserved_mem */
	DUMP_IPV6_RECVERR,	/* INET_FLAGS_RECVERR6 */
	DUMP_IPV6_RXOPT,	/* IPV6_RECVPKTINFO and the other IPV6_RECV* options */
	DUMP_TCP_FASTOPEN,	/* a listener's fastopen queue */
	DUMP_TCP_FASTOPEN_CONNECT,
};

/* The queues dump_socket_queue can walk. */
enum dump_sock_queue {
	DUMP_QUEUE_RECEIVE = 0,	/* sk_receive_queue */
	DUMP_QUEUE_WRITE = 1,	/* sk_write_queue */
	DUMP_QUEUE_READER = 2,	/* a UDP socket's reader_queue */
};

/* dump_sockets: every socket of @pid from descriptor @start, or only @fd. */
struct dump_socket_ctx {
	struct crib_target target;
	__s32 pid;
	__s32 fd;		/* -1: all */
	__u64 start;
};

/*
 * dump_socket_queue: queue @queue of the socket @fd of @pid, from the skb
 * with index @start (a walk cut short by DUMP_NO_ROOM resumes there).
 * @unix_src: also report the bound name of each skb's sender (AF_UNIX).
 */
struct dump_queue_ctx {
	struct crib_target target;
	__s32 pid;
	__s32 fd;
	__u32 queue;		/* enum dump_sock_queue */
	__u32 unix_src;
	__u64 start;
};

/* A UNIX socket name: @len bytes of sun_path, 0 for an unnamed socket. */
struct dump_unix_addr {
	__u32 len;
	__u8 path[DUMP_SUN_PATH_LEN];
};

struct dump_socket_rec {
	__u32 kind;		/* DUMP_REC_SOCKET */
	__s32 fd;
	__u64 ino;		/* sockfs inode */
	__u16 family;
	__u16 type;
	__u16 protocol;
	__u8 state;		/* sk_state */
	__u8 shutdown;		/* sk_shutdown */
	__u8 reuse;
	__u8 reuseport;
	__u8 ipv6only;
	__u8 userlocks;
	__u16 num;		/* skc_num: the port it holds, 0 when it holds none */
	__u64 bits;		/* 1 << enum dump_sock_bit */
	__s32 rcvbuf;
	__s32 sndbuf;
	__s32 rcvlowat;
	__s32 peek_off;
	__u32 priority;
	__u32 mark;
	__u64 max_pacing_rate;	/* bytes per second, ~0: no limit */
	__u8 txrehash;
	__s32 bound_dev_if;
	__u32 ack_backlog;
	__u64 lingertime;	/* jiffies */
	__u64 rcvtimeo;		/* jiffies */
	__u64 sndtimeo;		/* jiffies */
	__u32 max_ack_backlog;
	__u32 rmem_alloc;
	__u32 wmem_alloc;
	__u32 receive_qlen;
	__u32 write_qlen;
	__u32 error_qlen;

	/* AF_INET, AF_INET6: struct sockaddr_in or sockaddr_in6 */
	__u8 local_inet[DUMP_INET_ADDR_LEN];
	__u8 peer_inet[DUMP_INET_ADDR_LEN];
	__s32 addr_err;		/* of the address kfuncs */
	__s16 uc_ttl;		/* -1: the default, ip_default_ttl */
	__u8 ip_default_ttl;
	__u8 tos;
	__u8 mc_ttl;
	__u8 pmtudisc;
	__u8 min_ttl;
	__u8 tclass;		/* AF_INET6 */
	__s16 hop_limit;	/* AF_INET6, -1: the default */

	/* TCP */
	__u32 is_tcp;
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 rcv_nxt;
	__u32 copied_seq;
	__u32 write_seq;
	__u32 snd_wl1;
	__u32 snd_wnd;
	__u32 rcv_wnd;
	__u32 max_window;
	__u32 rcv_wup;
	__u32 window_clamp;
	__u32 ts_val;		/* what TCP_TIMESTAMP would return now */
	__u16 mss_clamp;
	__u16 user_mss;
	__u8 snd_wscale;
	__u8 rcv_wscale;
	__u8 wscale_ok;
	__u8 tstamp_ok;
	__u8 sack_ok;
	__u8 repair;
	__u8 thin_lto;
	__u8 syn_retries;	/* the default resolved */
	__u8 keepalive_probes;	/* the default resolved */
	__u8 defer_accept;	/* retransmissions */
	__u8 has_ooo;		/* out-of-order data queued */
	__u8 has_ulp;		/* an upper layer protocol (kTLS ...) */
	__u32 keepalive_time;	/* jiffies, the default resolved */
	__u32 keepalive_intvl;	/* jiffies, the default resolved */
	__s32 linger2;		/* jiffies, the default resolved; negative: off */
	__u32 user_timeout;	/* ms */
	__u32 notsent_lowat;
	__u32 urg_data;
	char ca_name[DUMP_CA_NAME_LEN];

	/* UDP */
	__u32 is_udp;
	__s32 udp_pending;	/* AF_INET, AF_INET6: a corked datagram */
	__u16 udp_len;		/* of the corked datagram, UDP header included */
	__u16 gso_size;
	__u16 encap_type;
	__u16 cork_dport;
	__u8 cork_daddr[16];	/* destination of the corked datagram */
	__u32 reader_qlen;
	__s32 forward_deficit;

	/* AF_UNIX */
	struct dump_unix_addr unix_local;
	struct dump_unix_addr unix_peer;
	__u64 peer_ino;		/* 0: no peer, or a peer without a socket */
	__u32 unix_nr_fds;	/* descriptors in flight in the receive queue */
	__u32 unix_has_oob;
};

struct dump_skb_rec {
	__u32 kind;		/* DUMP_REC_SKB */
	__u32 idx;		/* position in the queue */
	__u32 headroom;		/* skb->data, from the start of the packet */
	__u32 len;		/* skb->len */
	__u32 truesize;
	__u16 network_header;	/* offsets from the start of the packet, */
	__u16 transport_header;	/* 0xffff when not in it */
	__u16 protocol;		/* skb->protocol, network byte order */
	__u8 tcp_flags;
	__u8 has_fp;		/* AF_UNIX: descriptors attached */
	__s32 iif;		/* skb->skb_iif */
	__u32 tcp_seq;
	__u32 tcp_end_seq;
	__u32 unix_consumed;	/* AF_UNIX stream: bytes already read */
	__u32 orig_len;		/* skb->len of the queued skb unix_src was read from */
	struct dump_unix_addr unix_src;	/* AF_UNIX: the sender's name */
};

struct dump_skb_data_rec {
	__u32 kind;		/* DUMP_REC_SKB_DATA */
	__u32 idx;
	__u32 offset;		/* from the start of the packet */
	__u32 len;
	__u8 buf[DUMP_SKB_CHUNK];
};

/* The state the checks need, read after the walk. */
struct dump_queue_end_rec {
	__u32 kind;		/* DUMP_REC_QUEUE_END */
	__u32 count;		/* skbs walked, those before ctx->start included */
	__u32 qlen;		/* the queue's length after the walk */
	__u32 rmem_alloc;
	__u32 copied_seq;
	__u32 rcv_nxt;
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 write_seq;
	__s32 forward_deficit;
};

_Static_assert(sizeof(struct dump_socket_rec) % 8 == 0, "dump_socket size");
_Static_assert(sizeof(struct dump_skb_rec) % 8 == 0, "dump_skb size");
_Static_assert(sizeof(struct dump_skb_data_rec) % 8 == 0, "dump_skb_data size");
_Static_assert(sizeof(struct dump_queue_end_rec) % 8 == 0, "dump_queue_end size");

#endif /* CRIB_DUMP_SOCKETS_H */
