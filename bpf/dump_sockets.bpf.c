// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: the sockets of a process (dump_sockets) and the skbs queued
 * on them (dump_socket_queue).
 *
 * dump_sockets walks the descriptor table with the task_file iterator and,
 * for each socket, reads its sock, the protocol's own sock (tcp_sock,
 * udp_sock, unix_sock) and its addresses.  Structures the CRIB kfuncs hand
 * out as trusted pointers are read through them; what has no kfunc (the
 * inet_sock and unix_sock parts, a UNIX socket's peer) is read through
 * bpf_rdonly_cast(), whose loads fault safely.
 *
 * dump_socket_queue is sleepable: the skb iterator takes the socket lock.
 * Each skb comes as a copy (a clone, or, for a datagram still being built,
 * a copy with its unwritten header room zeroed), read with the skb_data
 * iterator, which starts at the packet: at the IP header of a received
 * packet, so that it keeps its headers, at skb->data otherwise.  Offsets
 * are sent from that start.  A copy has no owner (skb->sk), so for UNIX
 * datagrams the sender is read from the queued skb itself, walking the
 * queue alongside the iterator: the queue of a stopped process only grows
 * at its tail, and crib-dump checks the two walks agree (orig_len).
 *
 * What an iterator hands out is valid until its next step only: nothing is
 * kept across one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "dump_sockets.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_UNIX		1
#define AF_INET		2
#define AF_INET6	10
/* struct socket flags, include/linux/net.h */
#define SOCK_PASSCRED_BIT	3
#define SOCK_PASSSEC_BIT	4
#define SOCK_PASSPIDFD_BIT	7
#define TCP_NAGLE_OFF_BIT	0	/* tcp_sock.nonagle: TCP_NAGLE_OFF, include/net/tcp.h */
#define TCP_NAGLE_CORK_BIT	1	/* TCP_NAGLE_CORK */

/*
 * Bitfields through libbpf's relocations: a plain access to a bitfield of
 * a preserve_access_index struct can load the wrong byte (thin_lto read
 * repair_queue).
 */
#define BITFIELD(s, field)	BPF_CORE_READ_BITFIELD(s, field)

/* Bit @from of @word as bit @to of a dump_socket_rec's bits. */
#define BIT_AS(word, from, to)	((((__u64)(word) >> (from)) & 1) << (to))

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} socket_records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} queue_records SEC(".maps");

/* The position of dump_socket_queue's walk (see walk_queue()). */
__u64 walk_idx;

/* The name a UNIX socket is bound to, if any. */
static __always_inline void read_unix_addr(struct unix_address *a, struct dump_unix_addr *out)
{
	__u64 n;	/* 64 bits: a 32-bit length is bounds-checked in a copy */

	if (!a)
		return;
	n = a->len;
	if (n <= 2)		/* sun_family only: unnamed */
		return;
	n -= 2;
	if (n > DUMP_SUN_PATH_LEN)
		n = DUMP_SUN_PATH_LEN;
	out->len = n;
	bpf_probe_read_kernel(out->path, n, a->name[0].sun_path);
}

static __always_inline __u64 sock_ino(struct sock *sk)
{
	struct socket *sock = sk ? sk->sk_socket : NULL;
	struct file *file = sock ? sock->file : NULL;

	return file ? file->f_inode->i_ino : 0;
}

static __always_inline void read_unix(struct sock *sk, struct dump_socket_rec *r)
{
	struct unix_sock *u = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct unix_sock));
	struct unix_sock *peer;

	read_unix_addr(u->addr, &r->unix_local);
	r->unix_nr_fds = u->scm_stat.nr_fds.counter;
	r->unix_has_oob = u->oob_skb != NULL;
	if (!u->peer)
		return;
	peer = bpf_rdonly_cast(u->peer, bpf_core_type_id_kernel(struct unix_sock));
	r->peer_ino = sock_ino(&peer->sk);
	read_unix_addr(peer->addr, &r->unix_peer);
}

static __always_inline void read_inet(struct socket *sock, struct sock *sk,
				      struct dump_socket_rec *r)
{
	struct inet_sock *inet = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct inet_sock));
	struct net *net = sk->__sk_common.skc_net.net;
	struct ipv6_pinfo *np;
	__u64 flags;

	if (r->family == AF_INET) {
		r->addr_err = bpf_inet_src_addr_from_socket(sock, (void *)r->local_inet);
		r->addr_err |= bpf_inet_dst_addr_from_socket(sock, (void *)r->peer_inet);
	} else {
		r->addr_err = bpf_inet6_src_addr_from_socket(sock, (void *)r->local_inet);
		r->addr_err |= bpf_inet6_dst_addr_from_socket(sock, (void *)r->peer_inet);
		np = inet->pinet6;
		if (np) {
			r->hop_limit = np->hop_limit;
			r->tclass = np->tclass;
			r->bits |= BIT_AS(!!np->rxopt.all, 0, DUMP_IPV6_RXOPT);
		}
	}
	r->uc_ttl = inet->uc_ttl;
	r->ip_default_ttl = net->ipv4.sysctl_ip_default_ttl;
	r->tos = inet->tos;
	flags = inet->inet_flags;
	r->bits |= BIT_AS(flags, INET_FLAGS_PKTINFO, DUMP_IP_PKTINFO) |
		   BIT_AS(flags, INET_FLAGS_TTL, DUMP_IP_RECVTTL) |
		   BIT_AS(flags, INET_FLAGS_TOS, DUMP_IP_RECVTOS) |
		   BIT_AS(flags, INET_FLAGS_RECVERR, DUMP_IP_RECVERR) |
		   BIT_AS(flags, INET_FLAGS_FREEBIND, DUMP_IP_FREEBIND) |
		   BIT_AS(flags, INET_FLAGS_TRANSPARENT, DUMP_IP_TRANSPARENT) |
		   BIT_AS(flags, INET_FLAGS_MC_LOOP, DUMP_IP_MULTICAST_LOOP) |
		   BIT_AS(flags, INET_FLAGS_BIND_ADDRESS_NO_PORT, DUMP_IP_BIND_ADDRESS_NO_PORT) |
		   BIT_AS(flags, INET_FLAGS_ORIGDSTADDR, DUMP_IP_RECVORIGDSTADDR) |
		   BIT_AS(flags, INET_FLAGS_RECVERR6, DUMP_IPV6_RECVERR);
	r->mc_ttl = inet->mc_ttl;
	r->pmtudisc = inet->pmtudisc;
	r->min_ttl = inet->min_ttl;
}

/* What TCP_TIMESTAMP returns: the TCP clock (CLOCK_MONOTONIC) plus the offset. */
static __always_inline __u32 tcp_ts_val(struct tcp_sock *tp)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 v;

	if (BITFIELD(tp, tcp_usec_ts))
		return ((__u32)(now / 1000) + tp->tsoffset) | 1;
	v = (__u32)(now / 1000000) + tp->tsoffset;
	return v & ~1u;
}

static __always_inline void read_tcp(struct sock *sk, struct dump_socket_rec *r)
{
	struct tcp_sock *tp = bpf_tcp_sock_from_sock(sk);
	struct net *net = sk->__sk_common.skc_net.net;
	struct inet_connection_sock *icsk;
	struct tcp_options_received *rx;	/* a base of its own for BITFIELD() */
	const struct tcp_congestion_ops *ca;
	int linger2;

	if (!tp)
		return;
	icsk = &tp->inet_conn;
	rx = &tp->rx_opt;
	r->is_tcp = 1;
	r->snd_una = tp->snd_una;
	r->snd_nxt = tp->snd_nxt;
	r->rcv_nxt = tp->rcv_nxt;
	r->copied_seq = tp->copied_seq;
	r->write_seq = tp->write_seq;
	r->snd_wl1 = tp->snd_wl1;
	r->snd_wnd = tp->snd_wnd;
	r->rcv_wnd = tp->rcv_wnd;
	r->max_window = tp->max_window;
	r->rcv_wup = tp->rcv_wup;
	r->window_clamp = tp->window_clamp;
	r->ts_val = tcp_ts_val(tp);
	r->mss_clamp = tp->rx_opt.mss_clamp;
	r->user_mss = tp->rx_opt.user_mss;
	r->snd_wscale = BITFIELD(rx, snd_wscale);
	r->rcv_wscale = BITFIELD(rx, rcv_wscale);
	r->wscale_ok = BITFIELD(rx, wscale_ok);
	r->tstamp_ok = BITFIELD(rx, tstamp_ok);
	r->sack_ok = BITFIELD(rx, sack_ok);
	r->bits |= BIT_AS(BITFIELD(tp, nonagle), TCP_NAGLE_OFF_BIT, DUMP_TCP_NODELAY) |
		   BIT_AS(BITFIELD(tp, nonagle), TCP_NAGLE_CORK_BIT, DUMP_TCP_CORK) |
		   BIT_AS(BITFIELD(tp, fastopen_connect), 0, DUMP_TCP_FASTOPEN_CONNECT) |
		   BIT_AS(!!icsk->icsk_accept_queue.fastopenq.max_qlen, 0, DUMP_TCP_FASTOPEN);
	r->repair = BITFIELD(tp, repair);
	r->thin_lto = BITFIELD(tp, thin_lto);
	r->urg_data = tp->urg_data;
	r->has_ooo = tp->out_of_order_queue.rb_node != NULL;
	r->has_ulp = icsk->icsk_ulp_ops != NULL;
	r->syn_retries = icsk->icsk_syn_retries ? : net->ipv4.sysctl_tcp_syn_retries;
	r->defer_accept = icsk->icsk_accept_queue.rskq_defer_accept;
	r->user_timeout = icsk->icsk_user_timeout;
	r->notsent_lowat = tp->notsent_lowat;
	r->keepalive_time = tp->keepalive_time ? : net->ipv4.sysctl_tcp_keepalive_time;
	r->keepalive_intvl = tp->keepalive_intvl ? : net->ipv4.sysctl_tcp_keepalive_intvl;
	r->keepalive_probes = tp->keepalive_probes ? : net->ipv4.sysctl_tcp_keepalive_probes;
	linger2 = tp->linger2;
	r->linger2 = linger2 < 0 ? linger2 : (linger2 ? : net->ipv4.sysctl_tcp_fin_timeout);
	ca = icsk->icsk_ca_ops;
	if (ca)
		bpf_probe_read_kernel(r->ca_name, sizeof(r->ca_name), ca->name);
}

static __always_inline void read_udp(struct sock *sk, struct dump_socket_rec *r)
{
	struct udp_sock *up = bpf_udp_sock_from_sock(sk);
	struct inet_sock *inet;

	if (!up)
		return;
	r->is_udp = 1;
	r->bits |= BIT_AS(up->udp_flags, UDP_FLAGS_CORK, DUMP_UDP_CORK) |
		   BIT_AS(up->udp_flags, UDP_FLAGS_GRO_ENABLED, DUMP_UDP_GRO);
	r->udp_pending = up->pending;
	r->udp_len = up->len;
	r->gso_size = up->gso_size;
	r->encap_type = up->encap_type;
	r->reader_qlen = up->reader_queue.qlen;
	r->forward_deficit = up->forward_deficit;
	/* Where the corked datagram goes (udp_sendmsg() keeps it in the cork). */
	inet = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct inet_sock));
	if (r->udp_pending == AF_INET) {
		bpf_probe_read_kernel(r->cork_daddr, 4, &inet->cork.fl.u.ip4.daddr);
		r->cork_dport = inet->cork.fl.u.ip4.uli.ports.dport;
	} else if (r->udp_pending == AF_INET6) {
		bpf_probe_read_kernel(r->cork_daddr, 16, &inet->cork.fl.u.ip6.daddr);
		r->cork_dport = inet->cork.fl.u.ip6.uli.ports.dport;
	}
}

static __always_inline void read_sock(struct socket *sock, struct sock *sk,
				      struct dump_socket_rec *r)
{
	struct sock_common *skc = &sk->__sk_common;
	__u64 flags;

	r->family = skc->skc_family;
	r->state = skc->skc_state;
	r->reuse = BITFIELD(skc, skc_reuse);
	r->reuseport = BITFIELD(skc, skc_reuseport);
	r->ipv6only = BITFIELD(skc, skc_ipv6only);
	r->bound_dev_if = skc->skc_bound_dev_if;
	r->num = skc->skc_num;
	flags = skc->skc_flags;
	r->bits |= BIT_AS(flags, SOCK_KEEPOPEN, DUMP_SO_KEEPALIVE) |
		   BIT_AS(flags, SOCK_BROADCAST, DUMP_SO_BROADCAST) |
		   BIT_AS(flags, SOCK_LOCALROUTE, DUMP_SO_DONTROUTE) |
		   BIT_AS(flags, SOCK_URGINLINE, DUMP_SO_OOBINLINE) |
		   BIT_AS(flags, SOCK_LINGER, DUMP_SO_LINGER) |
		   BIT_AS(flags, SOCK_RCVTSTAMP, DUMP_SO_TIMESTAMP) |
		   BIT_AS(flags, SOCK_RCVTSTAMPNS, DUMP_SO_TIMESTAMPNS) |
		   BIT_AS(flags, SOCK_TSTAMP_NEW, DUMP_SO_TSTAMP_NEW) |
		   BIT_AS(flags, SOCK_DBG, DUMP_SO_DEBUG) |
		   BIT_AS(flags, SOCK_WIFI_STATUS, DUMP_SO_WIFI_STATUS) |
		   BIT_AS(flags, SOCK_NOFCS, DUMP_SO_NOFCS) |
		   BIT_AS(flags, SOCK_SELECT_ERR_QUEUE, DUMP_SO_SELECT_ERR_QUEUE) |
		   BIT_AS(flags, SOCK_RCVMARK, DUMP_SO_RCVMARK) |
		   BIT_AS(flags, SOCK_RXQ_OVFL, DUMP_SO_RXQ_OVFL);
	r->type = sk->sk_type;
	r->protocol = sk->sk_protocol;
	r->shutdown = sk->sk_shutdown;
	r->userlocks = sk->sk_userlocks;
	r->rcvbuf = sk->sk_rcvbuf;
	r->sndbuf = sk->sk_sndbuf;
	r->rcvlowat = sk->sk_rcvlowat;
	r->peek_off = sk->sk_peek_off;
	r->priority = sk->sk_priority;
	r->mark = sk->sk_mark;
	r->lingertime = sk->sk_lingertime;
	r->rcvtimeo = sk->sk_rcvtimeo;
	r->sndtimeo = sk->sk_sndtimeo;
	r->ack_backlog = sk->sk_ack_backlog;
	r->max_ack_backlog = sk->sk_max_ack_backlog;
	r->rmem_alloc = sk->sk_backlog.rmem_alloc.counter;
	r->wmem_alloc = sk->sk_wmem_alloc.refs.counter;
	r->receive_qlen = sk->sk_receive_queue.qlen;
	r->write_qlen = sk->sk_write_queue.qlen;
	r->error_qlen = sk->sk_error_queue.qlen;
	r->bits |= BIT_AS(sock->flags, SOCK_PASSCRED_BIT, DUMP_SO_PASSCRED) |
		   BIT_AS(sock->flags, SOCK_PASSSEC_BIT, DUMP_SO_PASSSEC) |
		   BIT_AS(sock->flags, SOCK_PASSPIDFD_BIT, DUMP_SO_PASSPIDFD);
	r->bits |= BIT_AS(BITFIELD(sk, sk_no_check_tx), 0, DUMP_SO_NO_CHECK) |
		   BIT_AS(flags, SOCK_TXTIME, DUMP_SO_TXTIME) |
		   BIT_AS(!!sk->sk_reserved_mem, 0, DUMP_SO_RESERVE_MEM);
	r->max_pacing_rate = sk->sk_max_pacing_rate;
	r->txrehash = sk->sk_txrehash;
	r->bits |= BIT_AS(!!sk->sk_filter, 0, DUMP_SO_FILTER) |
		   BIT_AS(flags, SOCK_FILTER_LOCKED, DUMP_SO_LOCK_FILTER) |
		   BIT_AS(flags, SOCK_ZEROCOPY, DUMP_SO_ZEROCOPY) |
		   BIT_AS(!!sk->sk_tsflags, 0, DUMP_SO_TIMESTAMPING);
	if (bpf_core_field_exists(sk->sk_ll_usec))
		r->bits |= BIT_AS(!!sk->sk_ll_usec, 0, DUMP_SO_BUSY_POLL) |
			   BIT_AS(!!sk->sk_prefer_busy_poll, 0, DUMP_SO_PREFER_BUSY_POLL) |
			   BIT_AS(!!sk->sk_busy_poll_budget, 0, DUMP_SO_BUSY_POLL_BUDGET);
}

/* Why the task_file iterator stopped early, as a dump result. */
static __always_inline int iter_result(int err)
{
	if (!err)
		return DUMP_OK;
	return err == -EAGAIN ? DUMP_BUSY : DUMP_NO_ACCESS;
}

SEC("crib")
int dump_sockets(struct dump_socket_ctx *ctx)
{
	struct bpf_iter_task_file it;
	struct dump_socket_rec *r;
	struct task_struct *task;
	struct socket *sock;
	struct file *file;
	struct sock *sk;
	int fd, ret = DUMP_OK;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task)
		return DUMP_NO_TASK;
	bpf_iter_task_file_new(&it, task);
	while ((file = bpf_iter_task_file_next(&it))) {
		fd = bpf_iter_task_file_get_fd(&it);
		if (fd < (s64)ctx->start || (ctx->fd >= 0 && fd != ctx->fd))
			continue;
		sock = bpf_socket_from_file(file);
		if (!sock)
			continue;
		sk = bpf_sock_from_socket(sock);
		if (!sk)
			continue;
		r = bpf_ringbuf_reserve(&socket_records, sizeof(*r), 0);
		if (!r) {
			bpf_sock_release(sk);
			ret = DUMP_NO_ROOM;
			break;
		}
		dump_zero(r, sizeof(*r));
		r->kind = DUMP_REC_SOCKET;
		r->fd = fd;
		r->ino = file->f_inode->i_ino;
		read_sock(sock, sk, r);
		if (r->family == AF_INET || r->family == AF_INET6) {
			read_inet(sock, sk, r);
			read_tcp(sk, r);
			read_udp(sk, r);
		} else if (r->family == AF_UNIX) {
			read_unix(sk, r);
		}
		bpf_sock_release(sk);
		bpf_ringbuf_submit(r, 0);
	}
	if (ret == DUMP_OK)
		ret = iter_result(bpf_iter_task_file_get_err(&it));
	bpf_iter_task_file_destroy(&it);
	bpf_task_release(task);
	return ret;
}

/* The bytes of the packet @it iterates over, from @start on, in DUMP_SKB_CHUNK pieces. */
static __always_inline int send_skb_data(struct bpf_iter_skb_data *it, __u32 start, __u32 idx)
{
	struct dump_skb_data_rec *d;

	while (bpf_iter_skb_data_next(it)) {
		d = bpf_ringbuf_reserve(&queue_records, sizeof(*d), 0);
		if (!d)
			return DUMP_NO_ROOM;
		d->kind = DUMP_REC_SKB_DATA;
		d->idx = idx;
		d->offset = bpf_iter_skb_data_get_offset(it) - start;
		d->len = bpf_iter_skb_data_get_chunk_len(it);
		/* A chunk that cannot be copied ends the data early: crib-dump sees it short. */
		if (bpf_iter_skb_data_read(it, d->buf, sizeof(d->buf)) != (int)d->len) {
			bpf_ringbuf_discard(d, 0);
			break;
		}
		bpf_ringbuf_submit(d, 0);
	}
	return DUMP_OK;
}

/* TCP and UNIX keep their per-skb state in skb->cb, which clones copy. */
static __always_inline void read_cb(struct sk_buff *skb, struct dump_skb_rec *r)
{
	union {
		struct tcp_skb_cb tcp;
		struct unix_skb_parms unix;
	} cb;

	bpf_probe_read_kernel(&cb, sizeof(cb), skb->cb);
	r->tcp_seq = cb.tcp.seq;
	r->tcp_end_seq = cb.tcp.end_seq;
	r->tcp_flags = cb.tcp.tcp_flags;
	r->unix_consumed = cb.unix.consumed;
	r->has_fp = cb.unix.fp != NULL;
}

/* A header offset from skb->head as one from @start; 0xffff for none before it. */
static __always_inline __u16 rebase(__u16 off, __u32 start)
{
	return off != 0xffff && off >= start ? off - start : 0xffff;
}

/*
 * One skb: its record, then its packet.  The skb_data iterator starts at
 * the packet, not at skb->head: the record's offsets are rebased on that
 * start, so that to crib-dump the packet is the whole buffer.
 */
static __always_inline int send_skb(struct dump_queue_ctx *ctx, struct sk_buff *skb,
				    struct sk_buff *orig, __u32 idx)
{
	struct bpf_iter_skb_data it;
	struct dump_skb_rec *r;
	struct unix_sock *u;
	__u32 start;
	int ret;

	bpf_iter_skb_data_new(&it, skb, DUMP_SKB_CHUNK);
	start = bpf_iter_skb_data_get_offset(&it);
	r = bpf_ringbuf_reserve(&queue_records, sizeof(*r), 0);
	if (!r) {
		bpf_iter_skb_data_destroy(&it);
		return DUMP_NO_ROOM;
	}
	dump_zero(r, sizeof(*r));
	r->kind = DUMP_REC_SKB;
	r->idx = idx;
	r->headroom = skb->data - skb->head - start;
	r->len = skb->len;
	r->truesize = skb->truesize;
	r->network_header = rebase(skb->network_header, start);
	r->transport_header = rebase(skb->transport_header, start);
	r->protocol = skb->protocol;
	r->iif = skb->skb_iif;
	read_cb(skb, r);
	if (ctx->unix_src && orig) {
		r->orig_len = orig->len;
		if (orig->sk) {
			u = bpf_rdonly_cast(orig->sk, bpf_core_type_id_kernel(struct unix_sock));
			read_unix_addr(u->addr, &r->unix_src);
		}
	}
	bpf_ringbuf_submit(r, 0);
	ret = send_skb_data(&it, start, idx);
	bpf_iter_skb_data_destroy(&it);
	return ret;
}

static __always_inline int send_queue_end(struct sock *sk, struct sk_buff_head *head)
{
	struct dump_queue_end_rec *e;
	struct tcp_sock *tp;
	struct udp_sock *up;

	e = bpf_ringbuf_reserve(&queue_records, sizeof(*e), 0);
	if (!e)
		return DUMP_NO_ROOM;
	dump_zero(e, sizeof(*e));
	e->kind = DUMP_REC_QUEUE_END;
	e->count = walk_idx;
	e->qlen = head->qlen;
	e->rmem_alloc = sk->sk_backlog.rmem_alloc.counter;
	tp = bpf_tcp_sock_from_sock(sk);
	if (tp) {
		e->copied_seq = tp->copied_seq;
		e->rcv_nxt = tp->rcv_nxt;
		e->snd_una = tp->snd_una;
		e->snd_nxt = tp->snd_nxt;
		e->write_seq = tp->write_seq;
	}
	up = bpf_udp_sock_from_sock(sk);
	if (up)
		e->forward_deficit = up->forward_deficit;
	bpf_ringbuf_submit(e, 0);
	return DUMP_OK;
}

/*
 * The position lives in a global, not on the stack: a counter the loop
 * branches on would be tracked exactly by the verifier, and the loop
 * would never converge.
 */
static __always_inline int walk_queue(struct dump_queue_ctx *ctx, struct sock *sk,
				      struct sk_buff_head *head)
{
	struct sk_buff *skb, *orig = NULL;
	struct bpf_iter_skb it;
	int ret = DUMP_OK;
	__u64 idx;

	walk_idx = 0;
	if (ctx->unix_src)
		orig = head->next;
	bpf_iter_skb_new(&it, sk, head);
	while ((skb = bpf_iter_skb_next(&it))) {
		idx = walk_idx;
		walk_idx = idx + 1;
		if ((void *)orig == (void *)head)
			orig = NULL;	/* the queue shrank under the walk */
		if (idx >= ctx->start) {
			ret = send_skb(ctx, skb, orig, idx);
			if (ret)
				break;
		}
		if (orig)
			orig = orig->next;
	}
	bpf_iter_skb_destroy(&it);
	if (ret == DUMP_OK)
		ret = send_queue_end(sk, head);
	return ret;
}

SEC("crib.s")
int dump_socket_queue(struct dump_queue_ctx *ctx)
{
	struct sk_buff_head *head = NULL;
	struct task_struct *task;
	struct udp_sock *up;
	struct sock *sk;
	int ret;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task)
		return DUMP_NO_TASK;
	sk = bpf_sock_from_task_fd(task, ctx->fd);
	bpf_task_release(task);
	if (!sk)
		return DUMP_NO_SOCKET;
	if (ctx->queue == DUMP_QUEUE_RECEIVE) {
		head = &sk->sk_receive_queue;
	} else if (ctx->queue == DUMP_QUEUE_WRITE) {
		head = &sk->sk_write_queue;
	} else if (ctx->queue == DUMP_QUEUE_READER) {
		up = bpf_udp_sock_from_sock(sk);
		if (up)
			head = &up->reader_queue;
	}
	ret = head ? walk_queue(ctx, sk, head) : DUMP_NO_QUEUE;
	bpf_sock_release(sk);
	return ret;
}
