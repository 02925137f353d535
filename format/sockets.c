// SPDX-License-Identifier: GPL-2.0-only
/* Sockets and their queued data. */
#include <netinet/in.h>
#include <sys/socket.h>

#include "internal.h"

#define R CRIB_FIELD_REQUIRED
#define ID (CRIB_FIELD_REQUIRED | CRIB_FIELD_ID)
#define X CRIB_FIELD_HEX
#define V CRIB_FIELD_VOLATILE

static const struct crib_field sockaddr_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_sockaddr, family, 0, NULL),
	CRIB_F(2, CRIB_FT_BLOB, 0, struct crib_sockaddr, addr, 128, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_sockaddr, port, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_sockaddr, flowinfo, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, 0, struct crib_sockaddr, scope_id, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_sockaddr, group, 0, NULL),
};
static const struct crib_struct_desc sockaddr_desc =
	CRIB_DESC("sockaddr", struct crib_sockaddr, sockaddr_fields);

static const struct crib_field sockopt_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_sockopt, level, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, R, struct crib_sockopt, name, 0, NULL),
	CRIB_F(3, CRIB_FT_BLOB, 0, struct crib_sockopt, value, 4096, NULL),
};
static const struct crib_struct_desc sockopt_desc =
	CRIB_DESC("sockopt", struct crib_sockopt, sockopt_fields);

static const struct crib_field tcp_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, 0, struct crib_tcp, snd_una, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, 0, struct crib_tcp, snd_nxt, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_tcp, rcv_nxt, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_tcp, snd_wnd, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, 0, struct crib_tcp, rcv_wnd, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_tcp, max_window, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_tcp, rcv_wup, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, 0, struct crib_tcp, mss_clamp, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, 0, struct crib_tcp, snd_wscale, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, 0, struct crib_tcp, rcv_wscale, 0, NULL),
	CRIB_F(11, CRIB_FT_BOOL, 0, struct crib_tcp, timestamps, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, V, struct crib_tcp, ts_val, 0, NULL),
	CRIB_F(13, CRIB_FT_BOOL, 0, struct crib_tcp, sack, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, 0, struct crib_tcp, unsent, 0, NULL),
	CRIB_F(15, CRIB_FT_BOOL, 0, struct crib_tcp, nodelay, 0, NULL),
	CRIB_F(16, CRIB_FT_BOOL, 0, struct crib_tcp, cork, 0, NULL),
	CRIB_F(17, CRIB_FT_UINT, 0, struct crib_tcp, write_seq, 0, NULL),
	CRIB_F(18, CRIB_FT_UINT, 0, struct crib_tcp, copied_seq, 0, NULL),
	CRIB_F(19, CRIB_FT_UINT, 0, struct crib_tcp, snd_wl1, 0, NULL),
	CRIB_F(20, CRIB_FT_BOOL, 0, struct crib_tcp, wscale_ok, 0, NULL),
};
static const struct crib_struct_desc tcp_desc = CRIB_DESC("tcp", struct crib_tcp, tcp_fields);

static const struct crib_field socket_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_socket, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_socket, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R | V, struct crib_socket, sock_id, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, R, struct crib_socket, family, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, R, struct crib_socket, type, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_socket, protocol, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_socket, state, 0, NULL),
	CRIB_F(8, CRIB_FT_STRUCT, 0, struct crib_socket, local, 0, &sockaddr_desc),
	CRIB_F(9, CRIB_FT_STRUCT, 0, struct crib_socket, peer, 0, &sockaddr_desc),
	CRIB_FA(10, CRIB_FT_STRUCT_ARRAY, 0, struct crib_socket, options, 256, &sockopt_desc),
	CRIB_F(11, CRIB_FT_STRUCT, 0, struct crib_socket, tcp, 0, &tcp_desc),
	CRIB_F(12, CRIB_FT_UINT, 0, struct crib_socket, recv_queued, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, 0, struct crib_socket, send_queued, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, 0, struct crib_socket, shutdown, 0, NULL),
	CRIB_F(15, CRIB_FT_UINT, 0, struct crib_socket, backlog, 0, NULL),
	CRIB_F(16, CRIB_FT_UINT, V, struct crib_socket, peer_id, 0, NULL),
};
const struct crib_struct_desc crib_socket_desc =
	CRIB_DESC("socket", struct crib_socket, socket_fields);

static const struct crib_field sock_chunk_fields[] = {
	CRIB_F(1, CRIB_FT_BLOB, R | CRIB_FIELD_BULK, struct crib_sock_chunk, data,
	       CRIB_CHUNK_MAX, NULL),
	CRIB_F(2, CRIB_FT_STRUCT, 0, struct crib_sock_chunk, src, 0, &sockaddr_desc),
};
static const struct crib_struct_desc sock_chunk_desc =
	CRIB_DESC("sock-chunk", struct crib_sock_chunk, sock_chunk_fields);

static const struct crib_field socket_queue_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID | V, struct crib_socket_queue, sock_id, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_socket_queue, queue, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, ID, struct crib_socket_queue, seq, 0, NULL),
	CRIB_FA(4, CRIB_FT_STRUCT_ARRAY, R, struct crib_socket_queue, chunks, CRIB_LIMIT_ITEMS,
		&sock_chunk_desc),
};
const struct crib_struct_desc crib_socket_queue_desc =
	CRIB_DESC("socket_queue", struct crib_socket_queue, socket_queue_fields);

/* At most BPF_MAXINSNS instructions of 8 bytes. */
static const struct crib_field socket_filter_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID | V, struct crib_socket_filter, sock_id, 0, NULL),
	CRIB_F(2, CRIB_FT_BLOB, 0, struct crib_socket_filter, insns, 4096 * 8, NULL),
	CRIB_F(3, CRIB_FT_BOOL, 0, struct crib_socket_filter, locked, 0, NULL),
};
const struct crib_struct_desc crib_socket_filter_desc =
	CRIB_DESC("socket_filter", struct crib_socket_filter, socket_filter_fields);

bool crib_socket_is_tcp(const struct crib_socket *s)
{
	return (s->family == AF_INET || s->family == AF_INET6) && s->type == SOCK_STREAM &&
	       s->protocol == IPPROTO_TCP;
}

const char *crib_socket_state_name(const struct crib_socket *s)
{
	static const char *const tcp[] = {
		[CRIB_SK_ESTABLISHED] = "ESTABLISHED",
		[CRIB_SK_SYN_SENT] = "SYN_SENT",
		[CRIB_SK_SYN_RECV] = "SYN_RECV",
		[CRIB_SK_FIN_WAIT1] = "FIN_WAIT1",
		[CRIB_SK_FIN_WAIT2] = "FIN_WAIT2",
		[CRIB_SK_TIME_WAIT] = "TIME_WAIT",
		[CRIB_SK_CLOSE] = "CLOSE",
		[CRIB_SK_CLOSE_WAIT] = "CLOSE_WAIT",
		[CRIB_SK_LAST_ACK] = "LAST_ACK",
		[CRIB_SK_LISTEN] = "LISTEN",
		[CRIB_SK_CLOSING] = "CLOSING",
		[CRIB_SK_NEW_SYN_RECV] = "NEW_SYN_RECV",
	};

	if (crib_socket_is_tcp(s))
		return s->state < ARRAY_SIZE(tcp) && tcp[s->state] ? tcp[s->state] : "unknown";
	switch (s->state) {
	case CRIB_SK_ESTABLISHED: return "connected";
	case CRIB_SK_CLOSE: return "unconnected";
	case CRIB_SK_LISTEN: return "listening";
	default: return "unknown";
	}
}

int crib_write_socket(struct crib_writer *w, const struct crib_socket *s)
{
	return crib_writer_record(w, CRIB_REC_SOCKET, s);
}

int crib_write_socket_queue(struct crib_writer *w, const struct crib_socket_queue *q)
{
	return crib_writer_record(w, CRIB_REC_SOCKET_QUEUE, q);
}

int crib_write_socket_filter(struct crib_writer *w, const struct crib_socket_filter *f)
{
	return crib_writer_record(w, CRIB_REC_SOCKET_FILTER, f);
}

int crib_write_socket_stream(struct crib_writer *w, uint64_t sock_id, uint64_t queue,
			     const void *data, size_t len)
{
	struct crib_sock_chunk chunk = { 0 };
	struct crib_socket_queue q = {
		.sock_id = sock_id, .queue = queue, .chunks = &chunk, .n_chunks = 1,
	};

	return crib_write_chunks(w, CRIB_REC_SOCKET_QUEUE, &q, &chunk.data, &q.seq, 1, data, len);
}
