// SPDX-License-Identifier: GPL-2.0
/*
 * TCP sockets.  What a snapshot cannot carry is refused: a socket in
 * repair mode, an upper layer protocol (kTLS), unread urgent data, and
 * data sent but not yet acknowledged, which lives in the retransmit
 * queue (an rbtree no CRIB kfunc reads).  The queues are checked by
 * their sequence numbers: the receive queue covers copied_seq to rcv_nxt
 * and the write queue snd_nxt to write_seq, without a gap; if they moved
 * since dump_sockets read the socket, it is read again.  The record's tcp
 * map is what TCP_REPAIR needs to rebuild the connection.
 *
 * Its options at the TCP level are read as getsockopt() gives them.
 *
 * Connections are locked before they are read, and closed in repair mode
 * after the dump: network.c.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "kabi.h"
#include "sockets.h"

const char *tcp_unsupported(const struct socket_entry *e)
{
	if (e->k.repair)
		return "a TCP socket in repair mode";
	if (e->k.has_ulp)
		return "a TCP socket with an upper layer protocol (kTLS)";
	if (e->k.urg_data & TCP_URG_VALID)
		return "unread TCP urgent data";
	return NULL;
}

/*
 * Bytes sent and not acknowledged yet live in the retransmit queue, an
 * rbtree no CRIB kfunc reads.  A SYN or FIN in flight carries no data.
 */
uint32_t tcp_unacked(const struct dump_socket_rec *k)
{
	uint32_t n = k->snd_nxt - k->snd_una;

	if (n && (k->state == CRIB_SK_SYN_SENT || k->state == CRIB_SK_SYN_RECV))
		n--;
	if (n && k->snd_nxt == k->write_seq &&
	    (k->state == CRIB_SK_FIN_WAIT1 || k->state == CRIB_SK_CLOSING ||
	     k->state == CRIB_SK_LAST_ACK))
		n--;
	return n;
}

static bool seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/*
 * The unread bytes of the TCP receive queue: from copied_seq to rcv_nxt,
 * a SYN or FIN taking one sequence number and no byte.
 */
static int tcp_recv_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	uint32_t cur = e->k.copied_seq, start, syn, fin, skip;
	const struct skb_copy *s;

	for (size_t i = 0; i < l->n; i++) {
		s = &l->items[i];
		start = s->k.tcp_seq;
		syn = !!(s->k.tcp_flags & TCPHDR_SYN);
		fin = !!(s->k.tcp_flags & TCPHDR_FIN);
		if (s->k.tcp_end_seq != start + syn + s->k.len + fin || seq_after(start, cur) ||
		    !seq_after(s->k.tcp_end_seq, cur))
			return tool_fail(&job->err, 0, "fd %d: skb %zu of the TCP receive queue (%u-%u) does not follow sequence number %u",
					 e->k.fd, i, start, s->k.tcp_end_seq, cur);
		skip = cur - start > syn ? cur - start - syn : 0;
		if (skip < s->k.len &&
		    sock_queue_add_bytes(&e->recv, s->bytes + s->k.headroom + skip, s->k.len - skip))
			return tool_fail(&job->err, 0, "out of memory");
		cur = s->k.tcp_end_seq;
	}
	e->recv.stream = true;
	if (cur != e->k.rcv_nxt)
		return tool_fail(&job->err, 0, "fd %d: the TCP receive queue was read short: it ends at sequence number %u, rcv_nxt is %u",
				 e->k.fd, cur, e->k.rcv_nxt);
	return 0;
}

/* The unsent bytes of the TCP write queue: from snd_nxt to write_seq. */
static int tcp_send_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	uint32_t cur = e->k.snd_nxt, syn, fin;
	const struct skb_copy *s;

	for (size_t i = 0; i < l->n; i++) {
		s = &l->items[i];
		syn = !!(s->k.tcp_flags & TCPHDR_SYN);
		fin = !!(s->k.tcp_flags & TCPHDR_FIN);
		if (s->k.tcp_seq != cur || s->k.tcp_end_seq != cur + syn + s->k.len + fin)
			return tool_fail(&job->err, 0, "fd %d: skb %zu of the TCP write queue (%u-%u) does not follow sequence number %u",
					 e->k.fd, i, s->k.tcp_seq, s->k.tcp_end_seq, cur);
		if (sock_queue_add_bytes(&e->send, s->bytes + s->k.headroom, s->k.len))
			return tool_fail(&job->err, 0, "out of memory");
		cur = s->k.tcp_end_seq;
	}
	e->send.stream = true;
	if (cur != e->k.write_seq)
		return tool_fail(&job->err, 0, "fd %d: the TCP write queue was read short: it ends at sequence number %u, write_seq is %u",
				 e->k.fd, cur, e->k.write_seq);
	return 0;
}

/* Did the socket move on since dump_sockets read it? */
static bool tcp_moved(const struct socket_entry *e, const struct dump_queue_end_rec *end)
{
	return end->copied_seq != e->k.copied_seq || end->rcv_nxt != e->k.rcv_nxt ||
	       end->snd_una != e->k.snd_una || end->snd_nxt != e->k.snd_nxt ||
	       end->write_seq != e->k.write_seq;
}

int tcp_queues(struct dump_job *job, struct socket_entry *e, const struct skb_list *w)
{
	const struct skb_list *rl = &w[DUMP_QUEUE_RECEIVE], *wl = &w[DUMP_QUEUE_WRITE];

	if (tcp_moved(e, &rl->end) || tcp_moved(e, &wl->end) || rl->end.qlen != rl->n ||
	    wl->end.qlen != wl->n)
		return 1;
	if (skb_list_check(job, e->k.fd, DUMP_QUEUE_RECEIVE, rl) ||
	    skb_list_check(job, e->k.fd, DUMP_QUEUE_WRITE, wl) ||
	    tcp_recv_data(job, e, rl) || tcp_send_data(job, e, wl))
		return -1;
	return 0;
}

void tcp_record(const struct socket_entry *e, struct crib_tcp *t)
{
	const struct dump_socket_rec *k = &e->k;

	*t = (struct crib_tcp) {
		.snd_una = k->snd_una, .snd_nxt = k->snd_nxt, .rcv_nxt = k->rcv_nxt,
		.snd_wnd = k->snd_wnd, .rcv_wnd = k->rcv_wnd, .max_window = k->max_window,
		.rcv_wup = k->rcv_wup, .mss_clamp = k->mss_clamp,
		.snd_wscale = k->snd_wscale, .rcv_wscale = k->rcv_wscale,
		.timestamps = k->tstamp_ok, .ts_val = k->ts_val, .sack = k->sack_ok,
		.unsent = e->send.bytes,
		.nodelay = (k->bits >> DUMP_TCP_NODELAY) & 1,
		.cork = (k->bits >> DUMP_TCP_CORK) & 1,
		.write_seq = k->write_seq, .copied_seq = k->copied_seq, .snd_wl1 = k->snd_wl1,
		.wscale_ok = k->wscale_ok,
	};
}

/* net/ipv4/tcp.c retrans_to_secs() with TCP_TIMEOUT_INIT of 1 s. */
static int retrans_to_secs(unsigned int retrans)
{
	int timeout = 1, period = 0;

	if (retrans > 0) {
		period = timeout;
		while (--retrans) {
			timeout <<= 1;
			if (timeout > TCP_RTO_MAX_SECS)
				timeout = TCP_RTO_MAX_SECS;
			period += timeout;
		}
	}
	return period;
}

/* The TCP level, as do_tcp_getsockopt() (net/ipv4/tcp.c) gives it. */
void tcp_options(struct socket_entry *e, unsigned int hz)
{
	const struct dump_socket_rec *k = &e->k;

	sockopt_put_int(e, IPPROTO_TCP, TCP_NODELAY, sock_bit(e, DUMP_TCP_NODELAY));
	sockopt_put_int(e, IPPROTO_TCP, TCP_CORK, sock_bit(e, DUMP_TCP_CORK));
	/* the MSS the process asked for, not the one in use */
	if (k->user_mss)
		sockopt_put_int(e, IPPROTO_TCP, TCP_MAXSEG, k->user_mss);
	sockopt_put_int(e, IPPROTO_TCP, TCP_KEEPIDLE, (int)(k->keepalive_time / hz));
	sockopt_put_int(e, IPPROTO_TCP, TCP_KEEPINTVL, (int)(k->keepalive_intvl / hz));
	sockopt_put_int(e, IPPROTO_TCP, TCP_KEEPCNT, k->keepalive_probes);
	sockopt_put_int(e, IPPROTO_TCP, TCP_SYNCNT, k->syn_retries);
	sockopt_put_int(e, IPPROTO_TCP, TCP_LINGER2, k->linger2 < 0 ? k->linger2 : k->linger2 / (int)hz);
	sockopt_put_int(e, IPPROTO_TCP, TCP_DEFER_ACCEPT, retrans_to_secs(k->defer_accept));
	sockopt_put_int(e, IPPROTO_TCP, TCP_USER_TIMEOUT, (int)k->user_timeout);
	sockopt_put_int(e, IPPROTO_TCP, TCP_NOTSENT_LOWAT, (int)k->notsent_lowat);
	sockopt_put_int(e, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, k->thin_lto);
	sockopt_put(e, IPPROTO_TCP, TCP_CONGESTION, k->ca_name, sizeof(k->ca_name));
	sockopt_put_int(e, IPPROTO_TCP, TCP_WINDOW_CLAMP, (int)k->window_clamp);
}
