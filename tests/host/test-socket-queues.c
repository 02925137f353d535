// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump's socket queue checks (tools/crib-dump/socket_queues.c and the
 * protocols' tcp.c, udp.c, unix.c) on walks built here, skb by skb: a
 * whole queue becomes the data a restore needs, while a queue read short
 * (an skb missing at the end or in the middle, an skb without all its
 * bytes, fewer skbs than the walk counted, UDP memory the skbs do not
 * account for, a corked datagram cut short) fails with a message, and a
 * queue that moved under the walk asks to be read again.  The guest tests
 * cannot make the kernel's skb iterator stop early; these make sure that
 * when it does, no short queue is written.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sockets.h"
#include "tap.h"

#define TCPHDR_FIN	0x01
#define HEADROOM	64

static struct tap t;

/* Append an skb whose data (after HEADROOM bytes of headers) is @data. */
static struct skb_copy *add(struct skb_list *l, const void *data, uint32_t len)
{
	struct skb_copy *s;

	l->items = realloc(l->items, (l->n + 1) * sizeof(*l->items));
	if (!l->items)
		abort();
	s = &l->items[l->n];
	memset(s, 0, sizeof(*s));
	s->k.kind = DUMP_REC_SKB;
	s->k.idx = (uint32_t)l->n;
	s->k.headroom = HEADROOM;
	s->k.len = len;
	s->k.truesize = 768 + len;
	s->size = s->filled = HEADROOM + len;
	s->bytes = calloc(1, s->size);
	if (!s->bytes)
		abort();
	memcpy(s->bytes + HEADROOM, data, len);
	l->n++;
	l->used = true;
	l->ended = true;
	l->end.count = (uint32_t)l->n;
	l->end.qlen = (uint32_t)l->n;
	return s;
}

static void free_walks(struct skb_list *w)
{
	for (int q = 0; q < DUMP_NR_QUEUES; q++) {
		for (size_t i = 0; i < w[q].n; i++)
			free(w[q].items[i].bytes);
		free(w[q].items);
	}
	memset(w, 0, DUMP_NR_QUEUES * sizeof(*w));
}

/*
 * A TCP connection in CLOSE_WAIT: "hello world, again" from sequence number
 * 1000 in two skbs, the first 5 bytes read, then the FIN; 4 bytes written,
 * unsent.  (A fully read skb leaves the queue.)
 */
static void tcp_case(struct socket_entry *e, struct skb_list *w)
{
	struct skb_copy *s;

	memset(e, 0, sizeof(*e));
	memset(w, 0, DUMP_NR_QUEUES * sizeof(*w));
	e->kind = SOCKET_TCP;
	e->k.fd = 7;
	e->k.state = 8;		/* CLOSE_WAIT */
	e->k.copied_seq = 1005;
	e->k.rcv_nxt = 1019;
	e->k.snd_una = e->k.snd_nxt = 5000;
	e->k.write_seq = 5004;
	s = add(&w[DUMP_QUEUE_RECEIVE], "hello worl", 10);
	s->k.tcp_seq = 1000;
	s->k.tcp_end_seq = 1010;
	s = add(&w[DUMP_QUEUE_RECEIVE], "d, again", 8);
	s->k.tcp_seq = 1010;
	s->k.tcp_end_seq = 1019;
	s->k.tcp_flags = TCPHDR_FIN;
	s = add(&w[DUMP_QUEUE_WRITE], "unse", 4);
	s->k.tcp_seq = 5000;
	s->k.tcp_end_seq = 5004;
	for (int q = 0; q < DUMP_NR_QUEUES; q++) {
		w[q].used = q != DUMP_QUEUE_READER;
		w[q].ended = true;
		w[q].end.copied_seq = e->k.copied_seq;
		w[q].end.rcv_nxt = e->k.rcv_nxt;
		w[q].end.snd_una = e->k.snd_una;
		w[q].end.snd_nxt = e->k.snd_nxt;
		w[q].end.write_seq = e->k.write_seq;
	}
}

/* As crib-dump's sockets.c has each protocol build the queues. */
static int build(struct dump_job *job, struct socket_entry *e, struct skb_list *w)
{
	int ret;

	memset(&job->err, 0, sizeof(job->err));
	socket_queues_free(e);
	if (e->kind == SOCKET_TCP)
		ret = tcp_queues(job, e, w);
	else if (e->kind == SOCKET_UDP)
		ret = udp_queues(job, e, w);
	else
		ret = unix_queues(job, e, w);
	if (ret)
		socket_queues_free(e);
	return ret;
}

static bool failed_with(struct dump_job *job, int ret, const char *what)
{
	if (ret != -1 || !strstr(job->err.msg, what)) {
		tap_diag("result %d, message \"%s\"", ret, job->err.msg);
		return false;
	}
	return true;
}

static void test_tcp(struct dump_job *job)
{
	struct skb_list w[DUMP_NR_QUEUES];
	struct socket_entry e;
	int ret;

	tcp_case(&e, w);
	ret = build(job, &e, w);
	tap_check(&t, ret == 0 && e.recv.n == 1 && e.recv.items[0].len == 13 &&
		  !memcmp(e.recv.items[0].data, " world, again", 13) && e.send.bytes == 4 &&
		  !memcmp(e.send.items[0].data, "unse", 4),
		  "TCP: the unread bytes from copied_seq, the FIN taking no byte, the unsent bytes");
	socket_queues_free(&e);
	free_walks(w);

	tcp_case(&e, w);
	e.k.copied_seq = 1003;
	w[DUMP_QUEUE_RECEIVE].end.copied_seq = w[DUMP_QUEUE_WRITE].end.copied_seq = 1003;
	ret = build(job, &e, w);
	tap_check(&t, ret == 0 && e.recv.bytes == 15 && !memcmp(e.recv.items[0].data, "lo world, again", 15),
		  "TCP: a receive queue read part-way into its first skb");
	socket_queues_free(&e);
	free_walks(w);

	tcp_case(&e, w);
	free(w[DUMP_QUEUE_RECEIVE].items[1].bytes);
	w[DUMP_QUEUE_RECEIVE].n = 1;		/* the iterator stopped after the first skb */
	w[DUMP_QUEUE_RECEIVE].end.count = w[DUMP_QUEUE_RECEIVE].end.qlen = 1;
	tap_check(&t, failed_with(job, build(job, &e, w), "TCP receive queue was read short"),
		  "TCP: a receive queue missing its last skb is refused");
	free_walks(w);

	tcp_case(&e, w);
	w[DUMP_QUEUE_RECEIVE].items[1].filled -= 3;
	tap_check(&t, failed_with(job, build(job, &e, w), "was read short: skb 1 has"),
		  "TCP: an skb missing bytes is refused");
	free_walks(w);

	tcp_case(&e, w);
	w[DUMP_QUEUE_RECEIVE].end.count = 3;	/* walked more skbs than arrived */
	tap_check(&t, failed_with(job, build(job, &e, w), "2 skbs sent, 3 walked"),
		  "TCP: fewer skbs than the walk counted is refused");
	free_walks(w);

	tcp_case(&e, w);
	w[DUMP_QUEUE_RECEIVE].items[1].k.tcp_seq = 1012;	/* a gap */
	w[DUMP_QUEUE_RECEIVE].items[1].k.tcp_end_seq = 1021;
	tap_check(&t, failed_with(job, build(job, &e, w), "does not follow sequence number 1010"),
		  "TCP: a gap in the receive queue is refused");
	free_walks(w);

	tcp_case(&e, w);
	free(w[DUMP_QUEUE_WRITE].items[0].bytes);
	w[DUMP_QUEUE_WRITE].n = 0;
	w[DUMP_QUEUE_WRITE].end.count = w[DUMP_QUEUE_WRITE].end.qlen = 0;
	tap_check(&t, failed_with(job, build(job, &e, w), "TCP write queue was read short"),
		  "TCP: a write queue short of write_seq is refused");
	free_walks(w);

	tcp_case(&e, w);
	w[DUMP_QUEUE_RECEIVE].end.qlen = 3;	/* an skb arrived after the walk passed */
	ret = build(job, &e, w);
	tap_check(&t, ret == 1, "TCP: a queue that grew under the walk is read again (result %d)",
		  ret);
	free_walks(w);

	tcp_case(&e, w);
	w[DUMP_QUEUE_WRITE].end.rcv_nxt = 1030;	/* data arrived between the two walks */
	ret = build(job, &e, w);
	tap_check(&t, ret == 1, "TCP: sequence numbers that moved are read again (result %d)", ret);
	free_walks(w);
}

/* A UDP datagram from 127.0.0.1:@port, IPv4 and UDP headers in the headroom. */
static void add_dgram(struct skb_list *l, const char *text, uint16_t port)
{
	struct skb_copy *s = add(l, text, (uint32_t)strlen(text));
	uint8_t src[4] = { 127, 0, 0, 1 };
	uint16_t p = htons(port);

	s->k.protocol = htons(0x0800);
	s->k.network_header = 20;
	s->k.transport_header = 40;
	memcpy(s->bytes + 20 + 12, src, 4);
	memcpy(s->bytes + 40, &p, 2);
}

static void udp_case(struct socket_entry *e, struct skb_list *w)
{
	memset(e, 0, sizeof(*e));
	memset(w, 0, DUMP_NR_QUEUES * sizeof(*w));
	e->kind = SOCKET_UDP;
	e->k.fd = 9;
	e->k.state = 7;
	add_dgram(&w[DUMP_QUEUE_READER], "one", 5001);
	add_dgram(&w[DUMP_QUEUE_RECEIVE], "two", 5002);
	add_dgram(&w[DUMP_QUEUE_RECEIVE], "three", 5001);
	for (int q = 0; q < DUMP_NR_QUEUES; q++) {
		w[q].used = w[q].ended = true;
		w[q].end.forward_deficit = 100;
		w[q].end.rmem_alloc = 100 + 3 * 768 + 3 + 3 + 5;
	}
	e->k.reader_qlen = 1;
	e->k.receive_qlen = 2;
	e->k.rmem_alloc = w[DUMP_QUEUE_RECEIVE].end.rmem_alloc;
}

static void test_udp(struct dump_job *job)
{
	struct skb_list w[DUMP_NR_QUEUES];
	struct socket_entry e;
	struct skb_copy *s;
	int ret;

	udp_case(&e, w);
	ret = build(job, &e, w);
	tap_check(&t, ret == 0 && e.recv.n == 3 && !memcmp(e.recv.items[0].data, "one", 3) &&
		  !memcmp(e.recv.items[2].data, "three", 5) && e.recv.items[1].src_port == 5002 &&
		  e.recv.items[1].src_family == AF_INET,
		  "UDP: the reader queue, then the receive queue, each datagram with its source");
	socket_queues_free(&e);
	free_walks(w);

	udp_case(&e, w);
	w[DUMP_QUEUE_RECEIVE].end.rmem_alloc += 800;	/* an skb the walk did not bring back */
	e.k.rmem_alloc = w[DUMP_QUEUE_RECEIVE].end.rmem_alloc;
	tap_check(&t, failed_with(job, build(job, &e, w), "were read short: their skbs account for"),
		  "UDP: receive memory the skbs do not account for is refused");
	free_walks(w);

	udp_case(&e, w);
	w[DUMP_QUEUE_RECEIVE].end.rmem_alloc += 800;	/* a datagram arrived after the walk */
	ret = build(job, &e, w);
	tap_check(&t, ret == 1, "UDP: receive memory that moved is read again (result %d)", ret);
	free_walks(w);

	/* a corked datagram: IP header room, then the UDP header, then the payload */
	udp_case(&e, w);
	s = add(&w[DUMP_QUEUE_WRITE], "xxxxxxxxcorked", 14);
	s->k.transport_header = HEADROOM;
	e.k.udp_pending = AF_INET;
	e.k.udp_len = 8 + 6;
	ret = build(job, &e, w);
	tap_check(&t, ret == 0 && e.send.n == 1 && e.send.items[0].len == 6 &&
		  !memcmp(e.send.items[0].data, "corked", 6),
		  "UDP: a corked datagram's payload, without its UDP header");
	socket_queues_free(&e);
	e.k.udp_len = 8 + 9;
	tap_check(&t, failed_with(job, build(job, &e, w), "corked UDP datagram was read short"),
		  "UDP: a corked datagram shorter than the socket says is refused");
	free_walks(w);
}

static void test_unix(struct dump_job *job)
{
	struct skb_list w[DUMP_NR_QUEUES] = { 0 };
	struct socket_entry e = { .kind = SOCKET_UNIX_DGRAM };
	struct skb_copy *s;

	e.k.fd = 11;
	e.k.state = 7;
	e.k.receive_qlen = 2;
	s = add(&w[DUMP_QUEUE_RECEIVE], "hi", 2);
	memcpy(s->k.unix_src.path, "/run/x.sock\0", 12);
	s->k.unix_src.len = 12;
	s->k.orig_len = 2;
	s = add(&w[DUMP_QUEUE_RECEIVE], "there", 5);
	memcpy(s->k.unix_src.path, "\0abstract", 9);
	s->k.unix_src.len = 9;
	s->k.orig_len = 5;
	tap_check(&t, build(job, &e, w) == 0 && e.recv.n == 2 && e.recv.items[0].src_len == 11 &&
		  e.recv.items[1].src_len == 9 && e.recv.items[1].src_family == AF_UNIX,
		  "UNIX: datagrams with their senders' names, a path without its NUL");
	socket_queues_free(&e);
	w[DUMP_QUEUE_RECEIVE].items[1].k.orig_len = 4;
	tap_check(&t, failed_with(job, build(job, &e, w), "senders of the datagrams queued changed"),
		  "UNIX: a sender walk that disagrees with the iterator is refused");
	w[DUMP_QUEUE_RECEIVE].items[1].k.orig_len = 5;
	w[DUMP_QUEUE_RECEIVE].items[1].k.has_fp = 1;
	tap_check(&t, failed_with(job, build(job, &e, w), "descriptors in flight (SCM_RIGHTS)"),
		  "UNIX: descriptors in flight are refused");
	free_walks(w);
}

int main(void)
{
	struct dump_job job;

	memset(&job, 0, sizeof(job));
	test_tcp(&job);
	test_udp(&job);
	test_unix(&job);
	return tap_done(&t);
}
