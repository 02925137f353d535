// SPDX-License-Identifier: GPL-2.0
/*
 * TCP sockets.  A listener is bound and listens with its backlog.  A
 * connection is rebuilt with TCP_REPAIR (the child is still root, so it
 * has CAP_NET_ADMIN): in repair mode the sequence numbers of both queues
 * are set (TCP_QUEUE_SEQ, only while the socket is closed), bind() takes
 * the address even where the listener holds the port, connect() sends
 * nothing and makes the socket established, TCP_REPAIR_OPTIONS and
 * TCP_TIMESTAMP give back what the handshake agreed on, the receive queue
 * is written as received data, and TCP_REPAIR_WINDOW sets the windows
 * (they must not pass rcv_nxt, so after the receive queue).  The unsent
 * data is written once out of repair mode, as any data is, since a
 * snapshot holds nothing in flight.
 *
 * A FIN the process sent (FIN_WAIT1, FIN_WAIT2) is left out of the
 * sequence numbers and sent again by shutdown() once out of repair mode;
 * a FIN it received (CLOSE_WAIT) is left out too, and comes again from
 * the peer, which must then be a socket of the process that sent it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "kabi.h"
#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"
#include "socket_plan.h"
#include "tcp.h"

/* Bytes of the receive queue written per call: tcp_send_rcvq() takes up to 17 pages. */
#define RCVQ_CHUNK		(64 * 1024)

static bool is_connection(uint64_t state)
{
	return state == CRIB_SK_ESTABLISHED || state == CRIB_SK_FIN_WAIT1 || state == CRIB_SK_FIN_WAIT2 ||
	       state == CRIB_SK_CLOSE_WAIT;
}

/* The process sent its FIN / received the peer's. */
static bool fin_sent(const struct crib_socket *s)
{
	return s->state == CRIB_SK_FIN_WAIT1 || s->state == CRIB_SK_FIN_WAIT2;
}

static bool fin_received(const struct crib_socket *s)
{
	return s->state == CRIB_SK_CLOSE_WAIT;
}

static bool same_addr(const struct plan_addr *a, const struct plan_addr *b)
{
	return a->family == b->family && a->port == b->port && a->len == b->len &&
	       !memcmp(a->addr, b->addr, a->len);
}

/* The other end of @ps's connection, when it is a socket of the process. */
static const struct plan_socket *local_peer(const struct restore_tree *tree,
					    const struct plan_socket *ps)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++) {
		const struct plan_socket *q = &tree->sockets.items[i];

		if (q->s.type == SOCK_STREAM && q->s.family == ps->s.family &&
		    is_connection(q->s.state) && same_addr(&q->local, &ps->peer) &&
		    same_addr(&q->peer, &ps->local))
			return q;
	}
	return NULL;
}

/* Where the send queue starts, without a FIN the process sent. */
static uint32_t send_seq(const struct crib_tcp *t, const struct crib_socket *s)
{
	uint32_t una = (uint32_t)t->snd_una, end = (uint32_t)t->write_seq;

	if (fin_sent(s) && una == end)
		return una - 1;		/* the FIN is acknowledged: it goes again */
	return una;
}

static uint32_t recv_end(const struct crib_tcp *t, const struct crib_socket *s)
{
	return (uint32_t)t->rcv_nxt - (fin_received(s) ? 1 : 0);
}

static uint32_t send_end(const struct crib_tcp *t, const struct crib_socket *s)
{
	return (uint32_t)t->write_seq - (fin_sent(s) ? 1 : 0);
}

static int check_connection(const struct restore_tree *tree, const struct plan_socket *ps,
			    struct tool_error *err)
{
	const struct crib_tcp *t = &ps->s.tcp;
	const char *kind = socket_kind_name(&ps->s);
	unsigned long long fd = (unsigned long long)ps->s.fd;
	const struct plan_socket *peer;

	if (!ps->local.family || !ps->peer.family)
		return tool_fail(err, 0, "fd %llu (%s): a connection without both addresses",
				 fd, kind);
	if ((uint32_t)t->snd_una != (uint32_t)t->snd_nxt &&
	    !(ps->s.state == CRIB_SK_FIN_WAIT1 && (uint32_t)t->snd_nxt - (uint32_t)t->snd_una == 1))
		return tool_fail(err, 0, "fd %llu (%s): %u bytes in flight, which a snapshot "
				 "does not hold", fd, kind,
				 (uint32_t)t->snd_nxt - (uint32_t)t->snd_una);
	if ((uint32_t)(recv_end(t, &ps->s) - (uint32_t)t->copied_seq) != ps->recv.bytes ||
	    (uint32_t)(send_end(t, &ps->s) - send_seq(t, &ps->s)) != ps->send.bytes)
		return tool_fail(err, 0, "fd %llu (%s): the queued data (%llu and %llu bytes) "
				 "does not match the sequence numbers", fd, kind,
				 (unsigned long long)ps->recv.bytes,
				 (unsigned long long)ps->send.bytes);
	if (fin_received(&ps->s)) {
		peer = local_peer(tree, ps);
		if (!peer || !fin_sent(&peer->s))
			return tool_fail(err, 0, "fd %llu (%s): in CLOSE_WAIT, the FIN it got can "
					 "come again only from a peer in the process", fd,
					 kind);
	}
	return 0;
}

int tcp_check(const struct restore_tree *tree, const struct plan_socket *ps,
	      struct tool_error *err)
{
	uint64_t st = ps->s.state;

	if (st == CRIB_SK_LISTEN && !ps->local.family)
		return tool_fail(err, 0, "fd %llu (%s): a listener without an address",
				 (unsigned long long)ps->s.fd, socket_kind_name(&ps->s));
	if (st == CRIB_SK_LISTEN || st == CRIB_SK_CLOSE)
		return 0;
	if (is_connection(st))
		return check_connection(tree, ps, err);
	return tool_fail(err, 0, "fd %llu (%s): a connection in state %s cannot be restored",
			 (unsigned long long)ps->s.fd, socket_kind_name(&ps->s),
			 crib_socket_state_name(&ps->s));
}

int tcp_create(struct sock_job *j, const struct plan_socket *ps)
{
	int fd;

	if (sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd) || sock_bind(j, ps, fd))
		return -1;
	if (ps->s.state == CRIB_SK_LISTEN && listen(fd, (int)ps->s.backlog))
		return sock_fail(j, ps, "listen", errno);
	return 0;
}

static int set_int(int fd, int name, int val)
{
	return setsockopt(fd, IPPROTO_TCP, name, &val, sizeof(val));
}

static int set_queue_seq(int fd, int queue, uint32_t seq)
{
	return set_int(fd, TCP_REPAIR_QUEUE, queue) || set_int(fd, TCP_QUEUE_SEQ, (int)seq);
}

static int repair_options(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct crib_tcp *t = &ps->s.tcp;
	struct tcp_repair_opt opts[4];
	size_t n = 0;

	opts[n++] = (struct tcp_repair_opt){ TCPOPT_MAXSEG, (uint32_t)t->mss_clamp };
	if (t->wscale_ok)
		opts[n++] = (struct tcp_repair_opt){
			TCPOPT_WINDOW, (uint32_t)(t->snd_wscale | t->rcv_wscale << 16) };
	if (t->sack)
		opts[n++] = (struct tcp_repair_opt){ TCPOPT_SACK_PERMITTED, 0 };
	if (t->timestamps)
		opts[n++] = (struct tcp_repair_opt){ TCPOPT_TIMESTAMP, 0 };
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_OPTIONS, opts,
		       (socklen_t)(n * sizeof(opts[0]))))
		return sock_fail(j, ps, "TCP_REPAIR_OPTIONS", errno);
	if (t->timestamps && set_int(fd, TCP_TIMESTAMP, (int)(uint32_t)t->ts_val))
		return sock_fail(j, ps, "TCP_TIMESTAMP", errno);
	return 0;
}

/* The receive queue, written in repair mode as data received. */
static int write_recv_queue(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct plan_chunk *c = ps->recv.n ? &ps->recv.items[0] : NULL;
	size_t done = 0, n;
	ssize_t w;

	if (!c)
		return 0;
	if (set_int(fd, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE))
		return sock_fail(j, ps, "TCP_REPAIR_QUEUE", errno);
	while (done < c->len) {
		n = c->len - done < RCVQ_CHUNK ? c->len - done : RCVQ_CHUNK;
		w = send(fd, c->data + done, n, MSG_NOSIGNAL);
		if (w <= 0)
			return sock_fail(j, ps, "writing the receive queue", w ? errno : EIO);
		done += (size_t)w;
	}
	return 0;
}

/*
 * The windows as the kernel recorded them, made acceptable to
 * TCP_REPAIR_WINDOW, which wants rcv_wup and snd_wl1 within what was
 * received and max_window at least snd_wnd.  A live socket can be
 * outside that: a FIN received counts in rcv_wup; an accepted socket
 * takes snd_wnd from the handshake's last ACK without max_window, which
 * it took from the SYN (unscaled), until the window next changes; and
 * snd_wl1 is the sequence number of the segment that last moved the
 * window, which may have been out of order and since dropped.  Each is
 * only a bound: snd_wl1 set back lets the peer's next segment update the
 * window, as any newer one would.
 */
static int repair_window(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct crib_tcp *t = &ps->s.tcp;
	uint32_t rcv_nxt = recv_end(t, &ps->s);
	struct tcp_repair_window w = {
		.snd_wl1 = (uint32_t)t->snd_wl1, .snd_wnd = (uint32_t)t->snd_wnd,
		.max_window = (uint32_t)t->max_window, .rcv_wnd = (uint32_t)t->rcv_wnd,
		.rcv_wup = (uint32_t)t->rcv_wup,
	};
	char step[160];

	if ((int32_t)(w.rcv_wup - rcv_nxt) > 0)
		w.rcv_wup = rcv_nxt;
	if ((int32_t)(w.snd_wl1 - (rcv_nxt + w.rcv_wnd)) > 0)
		w.snd_wl1 = rcv_nxt;
	if (w.max_window < w.snd_wnd)
		w.max_window = w.snd_wnd;
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w))) {
		snprintf(step, sizeof(step), "TCP_REPAIR_WINDOW (snd_wl1 %u, snd_wnd %u, "
			 "max_window %u, rcv_wnd %u, rcv_wup %u, rcv_nxt %u)", w.snd_wl1,
			 w.snd_wnd, w.max_window, w.rcv_wnd, w.rcv_wup, rcv_nxt);
		return sock_fail(j, ps, step, errno);
	}
	return 0;
}

int tcp_repair(struct sock_job *j, const struct plan_socket *ps)
{
	const struct crib_tcp *t = &ps->s.tcp;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	/* options first: SO_REUSEADDR would undo the forced reuse repair mode sets */
	if (sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd))
		return -1;
	if (set_int(fd, TCP_REPAIR, TCP_REPAIR_ON))
		return sock_fail(j, ps, "TCP_REPAIR", errno);
	if (set_queue_seq(fd, TCP_SEND_QUEUE, send_seq(t, &ps->s)))
		return sock_fail(j, ps, "TCP_QUEUE_SEQ of the send queue", errno);
	if (set_queue_seq(fd, TCP_RECV_QUEUE, (uint32_t)t->copied_seq))
		return sock_fail(j, ps, "TCP_QUEUE_SEQ of the receive queue", errno);
	if (sock_bind(j, ps, fd))
		return -1;
	len = plan_sockaddr(&ps->peer, (int)ps->s.family, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len))
		return sock_fail(j, ps, "connect in repair mode", errno);
	if (sock_check_local(j, ps, fd))
		return -1;
	if (repair_options(j, ps, fd) || write_recv_queue(j, ps, fd) ||
	    repair_window(j, ps, fd))
		return -1;
	/* the connect sized the window clamp afresh, for the new buffers */
	return sockopt_reapply(j, ps, fd, IPPROTO_TCP, TCP_WINDOW_CLAMP);
}

bool tcp_took_more(const struct plan_socket *ps, int fd)
{
	uint32_t seq;
	socklen_t len = sizeof(seq);

	if (set_int(fd, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE) ||
	    getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq, &len))
		return true;	/* cannot tell: assume it did */
	return seq != recv_end(&ps->s.tcp, &ps->s);
}

int tcp_finish(struct sock_job *j, const struct plan_socket *ps)
{
	int fd = j->fds[sock_index(j, ps)], reuse = 0;

	/*
	 * Without a window probe: a snapshot's connections are consistent
	 * with their peers, and the first segment either side sends
	 * resynchronizes the windows anyway.
	 */
	if (set_int(fd, TCP_REPAIR, TCP_REPAIR_OFF_NO_WP))
		return sock_fail(j, ps, "leaving repair mode", errno);
	/* leaving repair mode clears SO_REUSEADDR */
	if (plan_sockopt_int(ps, SOL_SOCKET, SO_REUSEADDR, &reuse) && reuse &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse)))
		return sock_fail(j, ps, "SO_REUSEADDR", errno);
	return 0;
}

/*
 * The unsent data, written as the process wrote it.  The send buffer it
 * had held it, but not necessarily when written in one go, packed
 * otherwise: it is made large enough for the write, then set back.
 */
static int write_unsent(struct sock_job *j, const struct plan_socket *ps, int fd,
			const struct plan_chunk *c)
{
	int room = c->len < (1u << 29) ? (int)c->len * 2 + (1 << 16) : 1 << 30;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof(room)))
		return sock_fail(j, ps, "making room for the unsent data", errno);
	if (sock_send_all(fd, c->data, c->len, 0, NULL, 0))
		return sock_fail(j, ps, "writing the unsent data again", errno);
	return sockopt_reapply(j, ps, fd, SOL_SOCKET, SO_SNDBUF) ||
	       sockopt_reapply(j, ps, fd, SOL_SOCKET, SO_BUF_LOCK);
}

int tcp_resume(struct sock_job *j, const struct plan_socket *ps)
{
	const struct plan_chunk *c = ps->send.n ? &ps->send.items[0] : NULL;
	int fd = j->fds[sock_index(j, ps)];

	if (c && write_unsent(j, ps, fd, c))
		return -1;
	if (fin_sent(&ps->s) && shutdown(fd, SHUT_WR))
		return sock_fail(j, ps, "sending the FIN again", errno);
	return 0;
}
