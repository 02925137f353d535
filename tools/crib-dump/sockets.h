/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets in crib-dump, shared by sockets.c (the socket records: reading,
 * refusing what cannot be restored, writing), socket_options.c (options
 * as getsockopt() returns them) and socket_queues.c (queued data).
 */
#ifndef CRIB_DUMP_SOCKETS_TOOL_H
#define CRIB_DUMP_SOCKETS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crib/format.h>

#include "crib-dump.h"
#include "dump_sockets.h"

/* The sockets crib-dump can dump. */
enum socket_kind {
	SOCKET_TCP,
	SOCKET_UDP,
	SOCKET_UNIX_STREAM,
	SOCKET_UNIX_DGRAM,
	SOCKET_UNIX_SEQPACKET,
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

/* A queue as socket_queue records carry it. */
struct sock_queue {
	struct sock_chunk *chunks;
	size_t n;
	size_t cap;
	uint64_t bytes;
	bool stream;			/* one run of bytes, not messages */
};

#define SOCKOPT_MAX	64
#define SOCKOPT_BUF	1024

struct socket_entry {
	struct dump_socket_rec k;
	enum socket_kind kind;
	struct sock_queue recv;
	struct sock_queue send;
	struct crib_sockopt opts[SOCKOPT_MAX];
	size_t n_opts;
	uint8_t optval[SOCKOPT_BUF];
	size_t optval_used;
};

/* The options of @e as getsockopt() would return them; @hz: the kernel's HZ. */
void socket_options_build(struct socket_entry *e, unsigned int hz);

/*
 * Read the queues of @e into e->recv and e->send, checked against the
 * socket's counters (e->k).  Returns 0, -1 with the job's error set, or 1
 * when the socket changed under the walk and has to be read again.
 */
int socket_queues_read(struct dump_job *job, struct socket_entry *e);
void socket_queues_free(struct socket_entry *e);

#endif /* CRIB_DUMP_SOCKETS_TOOL_H */
