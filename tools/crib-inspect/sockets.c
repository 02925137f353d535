// SPDX-License-Identifier: GPL-2.0-only
/*
 * --sockets: one line per socket: pid, fd, protocol, state, local and
 * peer addresses, bytes queued, and from the descriptor's file record its
 * open flags and its description (file.desc), marked when an earlier
 * descriptor shares it (files.c's desc_map).  A
 * process's file records come before its socket records (spec §4.4), so
 * only the current process's socket descriptors are kept, sorted once for
 * lookup.  With --pid, that process's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

struct sock_fd {
	uint64_t pid, fd, flags, desc;
	struct desc_holder first;	/* pid 0: the first of its description */
};

struct sockets {
	struct view v;
	ARRAY(struct sock_fd) fds;	/* of the current process */
	struct desc_map descs;
	bool unsorted;
};

const char *sockaddr_str(const struct crib_sockaddr *a, char *buf, size_t len)
{
	const uint8_t *p = a->addr.data;
	size_t n = 0, i;

	buf[0] = '\0';
	if (a->family == 2 && a->addr.len == 4) {
		snprintf(buf, len, "%u.%u.%u.%u:%" PRIu64, p[0], p[1], p[2], p[3], a->port);
	} else if (a->family == 10 && a->addr.len == 16) {
		n = (size_t)snprintf(buf, len, "[");
		for (i = 0; i < 16 && n < len; i += 2)
			n += (size_t)snprintf(buf + n, len - n, "%s%x", i ? ":" : "",
					      p[i] << 8 | p[i + 1]);
		if (n < len)
			snprintf(buf + n, len - n, "]:%" PRIu64, a->port);
	} else if (a->family == 16) {
		/* netlink: the port id, and the group a socket is connected to */
		n = (size_t)snprintf(buf, len, "portid:%" PRIu64, a->port);
		if (a->group && n < len)
			snprintf(buf + n, len - n, ",group:%" PRIu64, a->group);
	} else if (a->family == 17) {
		/* packet: the interface bound to, by name, and the protocol */
		n = (size_t)snprintf(buf, len, "%s", a->addr.len ? "" : "*");
		for (i = 0; i < a->addr.len && n + 1 < len; i++)
			buf[n++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
		if (n < len)
			snprintf(buf + n, len - n, ":0x%04" PRIx64, a->port);
	} else if (a->family == 1) {
		if (!a->addr.len) {
			snprintf(buf, len, "(unnamed)");
			return buf;
		}
		i = !p[0];
		if (i)
			buf[n++] = '@';	/* the abstract namespace */
		for (; i < a->addr.len && n + 1 < len; i++)
			buf[n++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
		buf[n] = '\0';
	} else {
		snprintf(buf, len, "-");
	}
	return buf;
}

/* As ss(8) and netstat name them: tcp, udp6, unix/stream, ... */
static const char *proto_str(const struct crib_socket *s, char *buf, size_t len)
{
	static const char *const types[] = { [1] = "stream", [2] = "dgram", [3] = "raw",
					     [5] = "seqpacket" };
	const char *type = s->type < 6 && types[s->type] ? types[s->type] : "?";
	const char *v6 = s->family == 10 ? "6" : "";

	if ((s->family == 2 || s->family == 10) && s->type == 1 && s->protocol == 6)
		snprintf(buf, len, "tcp%s", v6);
	else if ((s->family == 2 || s->family == 10) && s->type == 2 && s->protocol == 136)
		snprintf(buf, len, "udplite%s", v6);
	else if ((s->family == 2 || s->family == 10) && s->type == 2 &&
		 (s->protocol == 1 || s->protocol == 58))
		snprintf(buf, len, "ping%s", v6);
	else if ((s->family == 2 || s->family == 10) && s->type == 2)
		snprintf(buf, len, "udp%s", v6);
	else if ((s->family == 2 || s->family == 10) && s->type == 3)
		snprintf(buf, len, "raw%s/%" PRIu64, v6, s->protocol);
	else if (s->family == 2 || s->family == 10)
		snprintf(buf, len, "inet%s/%s/%" PRIu64, v6, type, s->protocol);
	else if (s->family == 1)
		snprintf(buf, len, "unix/%s", type);
	else if (s->family == 16)
		snprintf(buf, len, "netlink/%" PRIu64, s->protocol);
	else if (s->family == 17)
		snprintf(buf, len, "packet/%s", type);
	else
		snprintf(buf, len, "family%" PRIu64 "/%s", s->family, type);
	return buf;
}

static int fd_cmp(const void *a, const void *b)
{
	const struct sock_fd *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/* The file record of the socket's descriptor, or NULL. */
static const struct sock_fd *find_fd(struct sockets *s, uint64_t pid, uint64_t fd)
{
	struct sock_fd key = { .pid = pid, .fd = fd };

	if (s->unsorted)
		qsort(s->fds.items, s->fds.n, sizeof(*s->fds.items), fd_cmp);
	s->unsorted = false;
	return bsearch(&key, s->fds.items, s->fds.n, sizeof(*s->fds.items), fd_cmp);
}

static void print_line(const struct crib_socket *sk, const struct sock_fd *f)
{
	char proto[32], local[160], peer[160], flags[128] = "-";

	if (f)
		open_flags_str(f->flags, flags, sizeof(flags));
	printf("%-8" PRIu64 " %-5" PRIu64 " %-12s %-12s %-26s %-26s %8" PRIu64 " %8" PRIu64
	       "  %s", sk->pid, sk->fd, proto_str(sk, proto, sizeof(proto)),
	       crib_socket_state_name(sk), sockaddr_str(&sk->local, local, sizeof(local)),
	       sockaddr_str(&sk->peer, peer, sizeof(peer)), sk->recv_queued, sk->send_queued,
	       flags);
	if (f && f->first.pid)
		printf("  [shared with pid %" PRIu64 " fd %" PRIu64 "]", f->first.pid, f->first.fd);
	putchar('\n');
}

static void print_json(struct view_out *out, const struct crib_socket *sk,
		       const struct sock_fd *f)
{
	char proto[32], local[160], peer[160], flags[128] = "";

	if (f)
		open_flags_str(f->flags, flags, sizeof(flags));
	view_json_item(out);
	printf("{\"pid\":%" PRIu64 ",\"fd\":%" PRIu64 ",\"proto\":\"%s\",\"family\":%" PRIu64
	       ",\"type\":%" PRIu64 ",\"protocol\":%" PRIu64 ",\"state\":\"%s\",", sk->pid, sk->fd,
	       proto_str(sk, proto, sizeof(proto)), sk->family, sk->type, sk->protocol,
	       crib_socket_state_name(sk));
	json_key_string("local", sockaddr_str(&sk->local, local, sizeof(local)));
	putchar(',');
	json_key_string("peer", sockaddr_str(&sk->peer, peer, sizeof(peer)));
	printf(",\"recv_queued\":%" PRIu64 ",\"send_queued\":%" PRIu64 ",\"sock_id\":%" PRIu64
	       ",\"flags\":%" PRIu64 ",\"flag_names\":\"%s\",\"desc\":%" PRIu64, sk->recv_queued,
	       sk->send_queued, sk->sock_id, f ? f->flags : 0, flags, f ? f->desc : 0);
	if (f && f->first.pid)
		printf(",\"shared_with\":{\"pid\":%" PRIu64 ",\"fd\":%" PRIu64 "}", f->first.pid,
		       f->first.fd);
	putchar('}');
}

static void keep_fd(struct sockets *s, const struct crib_file *f,
		    const struct desc_holder *first)
{
	struct sock_fd *row = array_push(&s->fds);

	if (!row)
		return;	/* its flags will show as unknown */
	*row = (struct sock_fd){ .pid = f->pid, .fd = f->fd, .flags = f->flags, .desc = f->desc };
	if (first)
		row->first = *first;
	if (s->fds.n > 1 && fd_cmp(row - 1, row) > 0)
		s->unsorted = true;
}

static void sockets_record(void *state, const struct crib_record *rec)
{
	struct sockets *s = state;
	const struct desc_holder *first;
	const struct sock_fd *f;

	if (rec->type == CRIB_REC_PROCESS) {
		s->fds.n = 0;
		s->unsorted = false;
		return;
	}
	if (rec->type == CRIB_REC_FILE) {
		first = desc_map_note(&s->descs, rec->u.file.desc, rec->u.file.pid, rec->u.file.fd);
		if (rec->u.file.type == CRIB_FILE_SOCKET && !record_filtered_out(s->v.o, rec))
			keep_fd(s, &rec->u.file, first);
		return;
	}
	if (record_filtered_out(s->v.o, rec))
		return;
	if (rec->type != CRIB_REC_SOCKET)
		return;
	f = find_fd(s, rec->u.socket.pid, rec->u.socket.fd);
	if (s->v.out->json)
		print_json(s->v.out, &rec->u.socket, f);
	else
		print_line(&rec->u.socket, f);
	view_row(s->v.out);
}

static void sockets_release(void *state)
{
	struct sockets *s = state;

	array_free(&s->fds);
	array_free(&s->descs.holders);
}

const struct view_ops sockets_view = {
	.name = "sockets", .items = "sockets", .none = "sockets",
	.header = "PID      FD    PROTO        STATE        LOCAL                      "
		  "PEER                         RECV-Q   SEND-Q  FLAGS",
	.size = sizeof(struct sockets),
	.record = sockets_record, .release = sockets_release,
};
