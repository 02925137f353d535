// SPDX-License-Identifier: GPL-2.0
/*
 * Socket records.  The dump_sockets CRIB program reads every socket of
 * the process; this file refuses what a restore could not rebuild (with
 * each protocol's checks: tcp.c, udp.c, unix.c), reads the queues
 * (socket_walk.c) and has each protocol build them, reads the options
 * (socket_options.c), and writes a socket record and the socket_queue
 * records of each.
 *
 * Supported: TCP and UDP over IPv4 and IPv6, UNIX stream, datagram and
 * seqpacket sockets, netlink sockets of any protocol (netlink.c), ICMP
 * echo, UDP-Lite and raw IP sockets (inet_dgram.c), packet sockets
 * (packet.c).  Refused, each with its reason: other families and
 * protocols, connections waiting to be accepted, TCP data sent but not
 * yet acknowledged (CRIB programs cannot read the retransmit queue), UNIX
 * descriptors in flight, urgent or out-of-band data, queued socket errors.
 *
 * Everything is read, queues included, before the first record is
 * written, so a refused socket stops the dump before anything is written.
 * When the dump will kill the process, its TCP connections are locked
 * (network.c) before their state and queues are read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sockets.h"

/*
 * How long to wait for sent data to be acknowledged, and for a socket to
 * settle.  Segments a lock dropped (lock_connections()) come again only
 * when the retransmission timer fires, which may have backed off to
 * seconds: the wait outlasts a few of its doublings.
 */
#define INFLIGHT_WAIT_MS	10000
#define SETTLE_TRIES		20
#define RETRY_SLEEP_MS		20

struct socket_list {
	struct socket_entry *items;
	size_t n;
	unsigned int hz;
};

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* The socket behind @fd again, as it is now. */
static int reread_socket(struct dump_job *job, struct socket_entry *e)
{
	struct record_list recs = { .kind = DUMP_REC_SOCKET,
				    .size = sizeof(struct dump_socket_rec) };
	int ret = -1;

	if (sockets_collect(job, dump_target(job), job->pid, e->k.fd, &recs))
		goto out;
	if (recs.n != 1 || ((struct dump_socket_rec *)recs.items)->ino != e->k.ino) {
		tool_fail(&job->err, 0, "fd %d changed during the dump", e->k.fd);
		goto out;
	}
	e->k = *(struct dump_socket_rec *)recs.items;
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

/*
 * The kernel's HZ, which it does not export: the receive timeout of a
 * socket of our own, set to one second, read back in jiffies.  The one
 * run outside the dumped tree: its target is crib-dump itself.
 */
static int measure_hz(struct dump_job *job, unsigned int *hz)
{
	struct record_list recs = { .kind = DUMP_REC_SOCKET,
				    .size = sizeof(struct dump_socket_rec) };
	struct timeval one_second = { .tv_sec = 1 };
	struct crib_target self = { .pidfd = -1 };
	int fd, ret = -1;
	uint64_t j;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tool_fail(&job->err, errno, "cannot create a socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &one_second, sizeof(one_second))) {
		tool_fail(&job->err, errno, "cannot set a socket's timeout");
		goto out;
	}
	self.pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self.pidfd < 0) {
		tool_fail(&job->err, errno, "cannot open a pidfd of crib-dump itself");
		goto out;
	}
	if (sockets_collect(job, self, getpid(), fd, &recs))
		goto out;
	j = recs.n == 1 ? ((struct dump_socket_rec *)recs.items)->rcvtimeo : 0;
	if (j < 24 || j > 10000) {
		tool_fail(&job->err, 0, "cannot tell the kernel's HZ (a 1 s timeout read as %llu jiffies)",
			  (unsigned long long)j);
		goto out;
	}
	*hz = (unsigned int)j;
	ret = 0;
out:
	record_list_free(&recs);
	if (self.pidfd >= 0)
		close(self.pidfd);
	close(fd);
	return ret;
}

static const char *family_name(unsigned int family)
{
	switch (family) {
	case AF_UNIX: return "AF_UNIX";
	case AF_INET: return "AF_INET";
	case AF_INET6: return "AF_INET6";
	case AF_NETLINK: return "AF_NETLINK";
	case AF_PACKET: return "AF_PACKET";
	default: return NULL;
	}
}

static int classify(struct dump_job *job, struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;
	const char *fam = family_name(k->family);

	if (k->family == AF_UNIX) {
		switch (k->type) {
		case SOCK_STREAM: e->kind = SOCKET_UNIX_STREAM; return 0;
		case SOCK_DGRAM: e->kind = SOCKET_UNIX_DGRAM; return 0;
		case SOCK_SEQPACKET: e->kind = SOCKET_UNIX_SEQPACKET; return 0;
		}
	} else if (k->family == AF_INET || k->family == AF_INET6) {
		if (k->type == SOCK_STREAM && k->protocol == IPPROTO_TCP && k->is_tcp) {
			e->kind = SOCKET_TCP;
			return 0;
		}
		if (k->type == SOCK_DGRAM && k->protocol == IPPROTO_UDP && k->is_udp) {
			e->kind = SOCKET_UDP;
			return 0;
		}
		if (k->type == SOCK_DGRAM && k->protocol == IPPROTO_UDPLITE && k->is_udp) {
			e->kind = SOCKET_UDPLITE;
			return 0;
		}
		if (k->type == SOCK_DGRAM && (k->protocol == IPPROTO_ICMP ||
					      k->protocol == IPPROTO_ICMPV6)) {
			e->kind = SOCKET_PING;
			return 0;
		}
		if (k->type == SOCK_RAW) {
			e->kind = SOCKET_RAW;
			return 0;
		}
	} else if (k->family == AF_NETLINK && (k->type == SOCK_RAW || k->type == SOCK_DGRAM)) {
		e->kind = SOCKET_NETLINK;
		return 0;
	} else if (k->family == AF_PACKET && (k->type == SOCK_RAW || k->type == SOCK_DGRAM)) {
		e->kind = SOCKET_PACKET;
		return 0;
	}
	if (fam)
		return tool_fail(&job->err, 0, "cannot dump fd %d: %s sockets of type %u, protocol %u are not supported",
				 k->fd, fam, k->type, k->protocol);
	return tool_fail(&job->err, 0, "cannot dump fd %d: sockets of family %u are not supported",
			 k->fd, k->family);
}

/* The socket options no snapshot carries, when set (filters: socket_options.c). */
static const char *option_not_carried(const struct dump_socket_rec *k)
{
	static const struct { enum dump_sock_bit bit; const char *what; } options[] = {
		{ DUMP_SO_ZEROCOPY, "SO_ZEROCOPY" },
		{ DUMP_SO_TIMESTAMPING, "SO_TIMESTAMPING" },
		{ DUMP_SO_BUSY_POLL, "SO_BUSY_POLL" },
		{ DUMP_SO_PREFER_BUSY_POLL, "SO_PREFER_BUSY_POLL" },
		{ DUMP_SO_BUSY_POLL_BUDGET, "SO_BUSY_POLL_BUDGET" },
		{ DUMP_SO_TXTIME, "SO_TXTIME" },
		{ DUMP_SO_RESERVE_MEM, "SO_RESERVE_MEM" },
		{ DUMP_IPV6_RECVERR, "IPV6_RECVERR" },
		{ DUMP_IPV6_RXOPT, "IPV6_RECVPKTINFO or another IPV6_RECV* option" },
		{ DUMP_TCP_FASTOPEN, "TCP_FASTOPEN" },
		{ DUMP_TCP_FASTOPEN_CONNECT, "TCP_FASTOPEN_CONNECT" },
	};
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (k->bits & (1ull << options[i].bit))
			return options[i].what;
	return NULL;
}

/* What no snapshot of this socket could carry. */
static int refuse_unsupported(struct dump_job *job, const struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;
	const char *why;

	why = option_not_carried(k);
	if (why)
		return tool_fail(&job->err, 0, "process %d, fd %d: the socket has %s, which a "
				 "snapshot does not carry: that cannot be restored",
				 (int)job->pid, k->fd, why);
	if (k->state == CRIB_SK_LISTEN && k->ack_backlog)
		return tool_fail(&job->err, 0, "cannot dump fd %d: a listening socket with connections not yet accepted (%u)",
				 k->fd, k->ack_backlog);
	if (k->error_qlen)
		why = "queued socket errors (MSG_ERRQUEUE)";
	else if (e->kind == SOCKET_TCP)
		why = tcp_unsupported(e);
	else if (e->kind == SOCKET_UDP)
		why = udp_unsupported(e);
	else if (inet_dgram_is(e))
		why = inet_dgram_unsupported(e);
	else
		why = unix_unsupported(e);
	if (why)
		return tool_fail(&job->err, 0, "cannot dump fd %d: %s is not supported", k->fd, why);
	return 0;
}

/* Wait (briefly) for the peer to acknowledge what is in flight. */
static int tcp_wait_acked(struct dump_job *job, struct socket_entry *e)
{
	unsigned int waited = 0;

	while (tcp_unacked(&e->k)) {
		if (waited >= INFLIGHT_WAIT_MS)
			return tool_fail(&job->err, 0, "cannot dump fd %d: %u bytes sent on this TCP connection are not acknowledged; CRIB programs cannot read the retransmit queue",
					 e->k.fd, tcp_unacked(&e->k));
		sleep_ms(RETRY_SLEEP_MS);
		waited += RETRY_SLEEP_MS;
		if (reread_socket(job, e))
			return -1;
	}
	return 0;
}

/*
 * The queues of @e from its walks, by its protocol, checked against the
 * socket's counters (e->k) and the walks' ends.  Returns 0, -1 with the
 * job's error set, or 1 when the socket changed under the walk and has
 * to be read again.
 */
static int build_queues(struct dump_job *job, struct socket_entry *e,
			const struct skb_list *walks)
{
	int ret;

	socket_queues_free(e);
	if (e->k.state == CRIB_SK_LISTEN)
		return 0;
	switch (e->kind) {
	case SOCKET_TCP:
		ret = tcp_queues(job, e, walks);
		break;
	case SOCKET_UDP:
		ret = udp_queues(job, e, walks);
		break;
	default:
		ret = unix_queues(job, e, walks);
		break;
	}
	if (ret)
		socket_queues_free(e);
	return ret;
}

/* Walk the queues of @e and build them: as build_queues(). */
static int read_queues(struct dump_job *job, struct socket_entry *e)
{
	struct skb_list walks[DUMP_NR_QUEUES] = { 0 };
	int ret = -1;

	if (!socket_queues_walk(job, e, walks))
		ret = build_queues(job, e, walks);
	socket_walks_free(walks);
	return ret;
}

/* The queues of @e, read again until they agree with the socket's counters. */
static int read_socket(struct dump_job *job, struct socket_entry *e)
{
	int tries, ret;

	for (tries = 0; tries < SETTLE_TRIES; tries++) {
		if (tries) {
			sleep_ms(RETRY_SLEEP_MS);
			if (reread_socket(job, e))
				return -1;
		}
		if (refuse_unsupported(job, e))
			return -1;
		if (e->kind == SOCKET_TCP && tcp_wait_acked(job, e))
			return -1;
		/* no queue to walk: queued messages are refused */
		if (e->kind == SOCKET_NETLINK)
			return netlink_read(job, e);
		if (inet_dgram_is(e))
			return inet_dgram_read(job, e);
		if (e->kind == SOCKET_PACKET)
			return packet_read(job, e);
		ret = read_queues(job, e);
		if (ret <= 0)
			return ret;
	}
	return tool_fail(&job->err, 0, "cannot dump fd %d: its queues kept changing during the dump",
			 e->k.fd);
}

/* The options of @e as getsockopt() would return them, its protocol's last. */
static void read_options(struct socket_entry *e, unsigned int hz)
{
	socket_options_build(e, hz);
	if (e->kind == SOCKET_TCP)
		tcp_options(e, hz);
	else if (e->kind == SOCKET_UDP)
		udp_options(e);
	else if (e->kind == SOCKET_NETLINK)
		netlink_options(e);
	else if (inet_dgram_is(e))
		inet_dgram_options(e);
	else if (e->kind == SOCKET_PACKET)
		packet_options_put(e);
}

/*
 * Lock every connection (network.c), with nothing of ours in flight:
 * once locked, no acknowledgement can arrive, and data sent and not
 * acknowledged would stop the dump.  What was acknowledged is waited for
 * first; the sockets are read again under the lock, and should the
 * kernel have sent more meanwhile (from the unsent queue, as an
 * acknowledgement opened the window), the lock is dropped and taken again.
 */
static int lock_connections(struct dump_job *job, struct socket_list *list)
{
	struct socket_entry *e;
	bool settled;
	size_t i;

	for (int tries = 0; tries < SETTLE_TRIES; tries++) {
		for (i = 0; i < list->n; i++)
			if (network_lockable(&list->items[i]) && tcp_wait_acked(job, &list->items[i]))
				return -1;
		if (network_lock(job, list->items, list->n))
			return -1;
		settled = true;
		for (i = 0; i < list->n && settled; i++) {
			e = &list->items[i];
			if (e->kind != SOCKET_TCP)
				continue;
			if (reread_socket(job, e)) {
				network_unlock(job);
				return -1;
			}
			/* A connection that appeared or data that left since the wait. */
			settled = network_lockable(e) ? network_locked(job, e) && !tcp_unacked(&e->k) :
						  true;
		}
		if (settled)
			return 0;
		network_unlock(job);
	}
	return tool_fail(&job->err, 0, "cannot lock the TCP connections: data kept being sent or connections kept changing while they were locked");
}

int sockets_read(struct dump_job *job)
{
	struct record_list recs = { .kind = DUMP_REC_SOCKET,
				    .size = sizeof(struct dump_socket_rec) };
	const struct dump_socket_rec *k;
	struct socket_list *list;
	int ret = -1;

	list = calloc(1, sizeof(*list));
	if (!list)
		return tool_fail(&job->err, 0, "out of memory");
	job->sockets = list;
	if (sockets_collect(job, dump_target(job), job->pid, -1, &recs))
		goto out;
	if (recs.n != files_socket_count(job)) {
		tool_fail(&job->err, 0, "dump_sockets found %zu sockets, the descriptor table %zu",
			  recs.n, files_socket_count(job));
		goto out;
	}
	if (!recs.n) {
		ret = 0;
		goto out;
	}
	if (measure_hz(job, &list->hz))
		goto out;
	list->items = calloc(recs.n, sizeof(*list->items));
	if (!list->items) {
		tool_fail(&job->err, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < recs.n; i++) {
		struct socket_entry *e = &list->items[list->n++];

		k = (const struct dump_socket_rec *)recs.items + i;
		e->k = *k;
		if (!files_is_socket(job, k->fd, k->ino)) {
			tool_fail(&job->err, 0, "fd %d is not the socket dump_sockets reported", k->fd);
			goto out;
		}
		if (classify(job, e))
			goto out;
	}
	if (job->lock_network && lock_connections(job, list))
		goto out;
	for (size_t i = 0; i < list->n; i++) {
		if (read_socket(job, &list->items[i]) ||
		    socket_filter_read(job, &list->items[i]))
			goto out;
		read_options(&list->items[i], list->hz);
	}
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

/* An inet address as the kernel filled it: a struct sockaddr_in or sockaddr_in6. */
static void inet_sockaddr(const uint8_t *raw, struct crib_sockaddr *a)
{
	struct sockaddr_in6 in6;
	struct sockaddr_in in;
	static const uint8_t any6[16];

	memcpy(&in, raw, sizeof(in));
	if (in.sin_family == AF_INET) {
		if (!in.sin_port && !in.sin_addr.s_addr)
			return;		/* unbound, or not connected */
		a->family = AF_INET;
		a->addr = (struct crib_blob){ .data = raw + offsetof(struct sockaddr_in, sin_addr),
					      .len = 4 };
		a->port = ntohs(in.sin_port);
		return;
	}
	memcpy(&in6, raw, sizeof(in6));
	if (in6.sin6_family != AF_INET6 ||
	    (!in6.sin6_port && !memcmp(&in6.sin6_addr, any6, sizeof(any6))))
		return;
	a->family = AF_INET6;
	a->addr = (struct crib_blob){ .data = raw + offsetof(struct sockaddr_in6, sin6_addr),
				      .len = 16 };
	a->port = ntohs(in6.sin6_port);
	a->flowinfo = ntohl(in6.sin6_flowinfo);
	a->scope_id = in6.sin6_scope_id;
}

/*
 * A TCP socket that was closed under its process (a reset, or both FINs
 * once its own was sent) gave its port back, unless bind() had set it,
 * yet still names it as its address (getsockname()).  Bound again, an
 * accepted one would take its listener's port: it is made unbound.
 */
static bool gave_port_back(const struct dump_socket_rec *k)
{
	return k->protocol == IPPROTO_TCP && k->state == CRIB_SK_CLOSE && !k->num;
}

static int write_socket(struct dump_job *job, const struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;
	struct crib_socket s = {
		.pid = job->pid, .fd = (uint64_t)k->fd, .sock_id = k->ino,
		.family = k->family, .type = k->type, .protocol = k->protocol,
		.state = k->state,
		.options = e->opts, .n_options = e->n_opts,
		.recv_queued = e->recv.bytes, .send_queued = e->send.bytes,
		.shutdown = k->shutdown,
		.backlog = k->state == CRIB_SK_LISTEN ? k->max_ack_backlog : 0,
	};

	if (k->family == AF_UNIX) {
		unix_sockaddr(&k->unix_local, &s.local);
		unix_sockaddr(&k->unix_peer, &s.peer);
		s.peer_id = k->peer_ino;
	} else if (e->kind == SOCKET_NETLINK) {
		netlink_sockaddrs(e, &s.local, &s.peer);
		/* netlink's own states: NETLINK_CONNECTED (1) or not (0) */
		s.state = k->state == 1 ? CRIB_SK_ESTABLISHED : CRIB_SK_CLOSE;
	} else if (e->kind == SOCKET_PACKET) {
		packet_sockaddr(e, &s.local);
		s.state = CRIB_SK_CLOSE;
	} else if (!gave_port_back(k)) {
		inet_sockaddr(k->local_inet, &s.local);
		inet_sockaddr(k->peer_inet, &s.peer);
	}
	if (e->kind == SOCKET_TCP)
		tcp_record(e, &s.tcp);
	if (crib_write_socket(job->writer, &s))
		return tool_fail(&job->err, 0, "writing the socket of fd %d: %s", k->fd,
				 crib_writer_error(job->writer)->msg);
	return 0;
}

static void chunk_src(const struct sock_chunk *c, struct crib_sock_chunk *out)
{
	out->src = (struct crib_sockaddr){ .family = c->src_family };
	if (!c->src_family)
		return;
	out->src.addr = (struct crib_blob){ .data = c->src_addr, .len = c->src_len };
	out->src.port = c->src_port;
	out->src.scope_id = c->src_scope_id;
}

/* Messages, as many to a record as fit in CRIB_CHUNK_MAX bytes. */
static int write_messages(struct dump_job *job, const struct socket_entry *e,
			  const struct sock_queue *q, uint64_t queue)
{
	struct crib_socket_queue rec = { .sock_id = e->k.ino, .queue = queue };
	struct crib_sock_chunk *out;
	size_t i = 0, j, bytes;
	int ret = 0;

	out = calloc(q->n ? q->n : 1, sizeof(*out));
	if (!out)
		return tool_fail(&job->err, 0, "out of memory");
	while (i < q->n && !ret) {
		for (j = i, bytes = 0; j < q->n && j - i < CRIB_LIMIT_ITEMS / 2; j++) {
			if (q->items[j].len > CRIB_CHUNK_MAX) {
				ret = tool_fail(&job->err, 0, "cannot dump fd %d: a datagram of %zu bytes is queued, more than a snapshot record holds",
						e->k.fd, q->items[j].len);
				break;
			}
			if (bytes + q->items[j].len > CRIB_CHUNK_MAX)
				break;
			bytes += q->items[j].len;
			out[j - i].data = (struct crib_blob){ q->items[j].data, q->items[j].len };
			chunk_src(&q->items[j], &out[j - i]);
		}
		if (ret)
			break;
		rec.chunks = out;
		rec.n_chunks = j - i;
		if (crib_write_socket_queue(job->writer, &rec))
			ret = tool_fail(&job->err, 0, "writing the queue of fd %d: %s", e->k.fd,
					crib_writer_error(job->writer)->msg);
		rec.seq++;
		i = j;
	}
	free(out);
	return ret;
}

static int write_queue(struct dump_job *job, const struct socket_entry *e,
		       const struct sock_queue *q, uint64_t queue)
{
	if (!q->n)
		return 0;
	if (!q->stream)
		return write_messages(job, e, q, queue);
	if (crib_write_socket_stream(job->writer, e->k.ino, queue, q->items[0].data,
				     q->items[0].len))
		return tool_fail(&job->err, 0, "writing the queue of fd %d: %s", e->k.fd,
				 crib_writer_error(job->writer)->msg);
	return 0;
}

/* The sockets whose queues are written: each once in the tree. */
struct shared_sockets {
	ARRAY(uint64_t) written;	/* sock_id */
};

/* Whether @sock_id's queues are still to be written; they are from now on. */
static int queues_due(struct dump_job *job, uint64_t sock_id, bool *due)
{
	struct shared_sockets *ss = job->tree->sockets;
	uint64_t *slot;

	if (!ss) {
		ss = calloc(1, sizeof(*ss));
		if (!ss)
			return tool_fail(&job->err, 0, "out of memory");
		job->tree->sockets = ss;
	}
	for (size_t i = 0; i < ss->written.n; i++) {
		if (ss->written.items[i] == sock_id) {
			*due = false;
			return 0;
		}
	}
	slot = array_push(&ss->written);
	if (!slot)
		return tool_fail(&job->err, 0, "out of memory");
	*slot = sock_id;
	*due = true;
	return 0;
}

int sockets_write(struct dump_job *job)
{
	const struct socket_entry *e;
	bool due = false;
	size_t i;

	for (i = 0; i < job->sockets->n; i++) {
		e = &job->sockets->items[i];
		if (write_socket(job, e) || queues_due(job, e->k.ino, &due))
			return -1;
		if (due && (write_queue(job, e, &e->recv, CRIB_QUEUE_RECV) ||
			    write_queue(job, e, &e->send, CRIB_QUEUE_SEND) ||
			    socket_filter_write(job, e)))
			return -1;
	}
	dump_verbose(job, "%zu sockets\n", job->sockets->n);
	return 0;
}

void sockets_free_shared(struct dump_tree *tree)
{
	if (!tree->sockets)
		return;
	array_free(&tree->sockets->written);
	free(tree->sockets);
	tree->sockets = NULL;
}

void sockets_free(struct dump_job *job)
{
	if (!job->sockets)
		return;
	for (size_t i = 0; i < job->sockets->n; i++) {
		socket_queues_free(&job->sockets->items[i]);
		free(job->sockets->items[i].filter);
	}
	free(job->sockets->items);
	free(job->sockets);
	job->sockets = NULL;
}
