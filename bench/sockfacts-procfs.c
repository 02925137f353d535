// SPDX-License-Identifier: GPL-2.0
/*
 * Socket facts the procfs way, as CRIU gathers them: the descriptors from
 * /proc/PID/fd; family, state, addresses and queue sizes from
 * /proc/net/{tcp,tcp6,udp,udp6,unix}; TCP_INFO from inet_diag
 * (INET_DIAG_INFO) and UNIX names, peers and queues from unix_diag, both
 * over sock_diag netlink, which dumps every socket of the network
 * namespace; and, on a pidfd_getfd() copy of each socket, the options by
 * getsockopt(), the queue ioctls, and for a TCP connection, in repair
 * mode for the while, its sequence numbers and window.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include "sockfacts.h"

#ifndef TCP_REPAIR_OFF_NO_WP
#define TCP_REPAIR_OFF_NO_WP	-1
#endif

/* ---- the descriptors and their inodes ---- */

static int cmp_ino(const void *a, const void *b)
{
	const struct sock_fact *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static struct sock_fact *by_ino(struct sock_facts *f, uint64_t ino)
{
	struct sock_fact key = { .ino = ino };

	return bsearch(&key, f->items, f->n, sizeof(*f->items), cmp_ino);
}

static int read_fds(struct procfs_sock_reader *r, struct sock_facts *f, struct tool_error *err)
{
	char path[64], link[64];
	unsigned long long ino;
	struct sock_fact *s;
	struct dirent *d;
	ssize_t len;
	DIR *dir;
	int dfd;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)r->pid);
	dir = opendir(path);
	if (!dir)
		return tool_fail(err, errno, "%s", path);
	dfd = dirfd(dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		len = readlinkat(dfd, d->d_name, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%llu]", &ino) != 1)
			continue;
		s = sock_facts_add(f);
		if (!s) {
			closedir(dir);
			return tool_fail(err, 0, "out of memory");
		}
		s->fd = atoi(d->d_name);
		s->ino = ino;
	}
	closedir(dir);
	qsort(f->items, f->n, sizeof(*f->items), cmp_ino);
	return 0;
}

/* ---- /proc/net ---- */

static int slurp(struct procfs_sock_reader *r, const char *path, struct tool_error *err)
{
	size_t len = 0;
	ssize_t got;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(err, errno, "%s", path);
	for (;;) {
		if (r->buf_size - len < 4096) {
			buf = realloc(r->buf, r->buf_size * 2);
			if (!buf) {
				close(fd);
				return tool_fail(err, 0, "out of memory");
			}
			r->buf = buf;
			r->buf_size *= 2;
		}
		got = read(fd, r->buf + len, r->buf_size - len - 1);
		if (got < 0) {
			close(fd);
			return tool_fail(err, errno, "%s", path);
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	close(fd);
	r->buf[len] = '\0';
	return 0;
}

/* "0100007F:1F90": procfs prints each 32-bit word of the address in host order. */
static void parse_inet(const char *text, int family, uint8_t *addr, uint16_t *port)
{
	unsigned int words = family == AF_INET ? 1 : 4, w;
	char hex[9] = { 0 };

	for (unsigned int i = 0; i < words; i++) {
		memcpy(hex, text + 8 * i, 8);
		w = (unsigned int)strtoul(hex, NULL, 16);
		memcpy(addr + 4 * i, &w, 4);
	}
	*port = (uint16_t)strtoul(text + 8 * words + 1, NULL, 16);
}

static int read_proc_net_inet(struct procfs_sock_reader *r, struct sock_facts *f,
			      const char *name, int family, int type, struct tool_error *err)
{
	char path[64], local[64], peer[64], *line, *next;
	unsigned int state, tx, rx;
	unsigned long long ino;
	struct sock_fact *s;

	snprintf(path, sizeof(path), "/proc/net/%s", name);
	if (slurp(r, path, err))
		return -1;
	line = strchr(r->buf, '\n');		/* the header */
	for (; line && *++line; line = next) {
		next = strchr(line, '\n');
		if (sscanf(line, "%*d: %63s %63s %x %x:%x %*x:%*x %*x %*u %*u %llu",
			   local, peer, &state, &tx, &rx, &ino) != 6)
			return tool_fail(err, 0, "%s: cannot parse '%.60s'", path, line);
		s = by_ino(f, ino);
		if (!s)
			continue;
		s->family = family;
		s->type = type;
		s->state = (int)state;
		s->tx_queue = tx;
		s->rx_queue = rx;
		parse_inet(local, family, s->local_addr, &s->local_port);
		parse_inet(peer, family, s->peer_addr, &s->peer_port);
	}
	return 0;
}

static int read_proc_net_unix(struct procfs_sock_reader *r, struct sock_facts *f,
			      struct tool_error *err)
{
	unsigned long long ino;
	unsigned int type;
	struct sock_fact *s;
	char *line, *next;

	if (slurp(r, "/proc/net/unix", err))
		return -1;
	line = strchr(r->buf, '\n');
	for (; line && *++line; line = next) {
		next = strchr(line, '\n');
		if (sscanf(line, "%*x: %*x %*x %*x %x %*x %llu", &type, &ino) != 2)
			return tool_fail(err, 0, "/proc/net/unix: cannot parse '%.60s'", line);
		s = by_ino(f, ino);
		if (!s)
			continue;
		s->family = AF_UNIX;
		s->type = (int)type;
		/* The path is taken from unix_diag, which keeps abstract names whole. */
	}
	return 0;
}

/* ---- sock_diag ---- */

typedef void (*diag_fn)(struct sock_facts *f, const struct nlmsghdr *h);

static int diag_dump(int nl, const void *req, size_t req_len, struct sock_facts *f, diag_fn fn,
		     struct procfs_sock_reader *r, struct tool_error *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct nlmsghdr *h;
	ssize_t got;

	if (sendto(nl, req, req_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return tool_fail(err, errno, "sock_diag request");
	for (;;) {
		got = recv(nl, r->buf, r->buf_size, 0);
		if (got < 0)
			return tool_fail(err, errno, "sock_diag");
		for (h = (const struct nlmsghdr *)r->buf; NLMSG_OK(h, (size_t)got);
		     h = NLMSG_NEXT(h, got)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return tool_fail(err, -((const struct nlmsgerr *)NLMSG_DATA(h))->error,
						 "sock_diag");
			fn(f, h);
		}
	}
}

static void on_inet(struct sock_facts *f, const struct nlmsghdr *h)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	const struct rtattr *a = (const struct rtattr *)(m + 1);
	const struct tcp_info *ti;
	struct sock_fact *s;

	s = by_ino(f, m->idiag_inode);
	if (!s)
		return;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type != INET_DIAG_INFO ||
		    RTA_PAYLOAD(a) < (int)offsetof(struct tcp_info, tcpi_rto))
			continue;
		ti = RTA_DATA(a);
		if (s->state == CRIB_SK_LISTEN || s->state == CRIB_SK_CLOSE ||
		    s->state == CRIB_SK_SYN_SENT)
			continue;
		s->snd_wscale = ti->tcpi_snd_wscale;
		s->rcv_wscale = ti->tcpi_rcv_wscale;
		s->timestamps = ti->tcpi_options & TCPI_OPT_TIMESTAMPS;
		s->sack = ti->tcpi_options & TCPI_OPT_SACK;
		s->wscale = ti->tcpi_options & TCPI_OPT_WSCALE;
	}
}

static int read_inet_diag(int nl, struct procfs_sock_reader *r, struct sock_facts *f, int family,
			  struct tool_error *err)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 req;
	} msg = {
		.h = { .nlmsg_len = sizeof(msg), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .sdiag_family = (uint8_t)family, .sdiag_protocol = IPPROTO_TCP,
			 .idiag_ext = 1 << (INET_DIAG_INFO - 1), .idiag_states = ~0u },
	};

	return diag_dump(nl, &msg, sizeof(msg), f, on_inet, r, err);
}

static void on_unix(struct sock_facts *f, const struct nlmsghdr *h)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	const struct rtattr *a = (const struct rtattr *)(m + 1);
	const struct unix_diag_rqlen *q;
	struct sock_fact *s;

	s = by_ino(f, m->udiag_ino);
	if (!s)
		return;
	s->state = m->udiag_state;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case UNIX_DIAG_NAME:
			s->name_len = RTA_PAYLOAD(a) < SOCKFACT_NAME_LEN ? RTA_PAYLOAD(a) :
									    SOCKFACT_NAME_LEN;
			memcpy(s->name, RTA_DATA(a), s->name_len);
			break;
		case UNIX_DIAG_PEER:
			s->peer_ino = *(const uint32_t *)RTA_DATA(a);
			break;
		case UNIX_DIAG_RQLEN:
			q = RTA_DATA(a);
			/* Bytes queued, which dump_sockets does not count, but on a listener. */
			s->rx_queue = m->udiag_state == CRIB_SK_LISTEN ? q->udiag_rqueue : 0;
			s->tx_queue = q->udiag_wqueue;
			break;
		}
	}
}

static int read_unix_diag(int nl, struct procfs_sock_reader *r, struct sock_facts *f,
			  struct tool_error *err)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req req;
	} msg = {
		.h = { .nlmsg_len = sizeof(msg), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .sdiag_family = AF_UNIX, .udiag_states = ~0u,
			 .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN },
	};

	return diag_dump(nl, &msg, sizeof(msg), f, on_unix, r, err);
}

static int read_diag(struct procfs_sock_reader *r, struct sock_facts *f, struct tool_error *err)
{
	int nl, ret;

	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return tool_fail(err, errno, "sock_diag socket");
	ret = read_inet_diag(nl, r, f, AF_INET, err) || read_inet_diag(nl, r, f, AF_INET6, err) ||
	      read_unix_diag(nl, r, f, err) ? -1 : 0;
	close(nl);
	return ret;
}

/* ---- getsockopt() and ioctl() on a copy of each socket ---- */

static int get_int(int fd, int level, int name, int *v)
{
	socklen_t len = sizeof(*v);

	return getsockopt(fd, level, name, v, &len);
}

static int read_options(int sk, struct sock_fact *s)
{
	static const struct { enum sockfact_opt o; int level, name; } common[] = {
		{ SF_SO_RCVBUF, SOL_SOCKET, SO_RCVBUF },
		{ SF_SO_SNDBUF, SOL_SOCKET, SO_SNDBUF },
		{ SF_SO_KEEPALIVE, SOL_SOCKET, SO_KEEPALIVE },
		{ SF_SO_REUSEADDR, SOL_SOCKET, SO_REUSEADDR },
		{ SF_SO_REUSEPORT, SOL_SOCKET, SO_REUSEPORT },
		{ SF_SO_PRIORITY, SOL_SOCKET, SO_PRIORITY },
		{ SF_SO_MARK, SOL_SOCKET, SO_MARK },
		{ SF_SO_RCVLOWAT, SOL_SOCKET, SO_RCVLOWAT },
	};
	size_t i;

	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		if (get_int(sk, common[i].level, common[i].name, &s->opt[common[i].o]))
			return -1;
		s->has_opt[common[i].o] = true;
	}
	if (s->family == AF_INET) {
		if (get_int(sk, IPPROTO_IP, IP_TOS, &s->opt[SF_IP_TOS]))
			return -1;
		s->has_opt[SF_IP_TOS] = true;
	}
	if (s->family == AF_INET6) {
		if (get_int(sk, IPPROTO_IPV6, IPV6_V6ONLY, &s->opt[SF_IPV6_V6ONLY]))
			return -1;
		s->has_opt[SF_IPV6_V6ONLY] = true;
	}
	if (s->type == SOCK_STREAM && s->family != AF_UNIX) {
		if (get_int(sk, IPPROTO_TCP, TCP_NODELAY, &s->opt[SF_TCP_NODELAY]) ||
		    get_int(sk, IPPROTO_TCP, TCP_CORK, &s->opt[SF_TCP_CORK]))
			return -1;
		s->has_opt[SF_TCP_NODELAY] = s->has_opt[SF_TCP_CORK] = true;
	}
	return 0;
}

/* What TCP_REPAIR shows: the sequence numbers of both queues and the window. */
static int read_repair(int sk, struct sock_fact *s)
{
	struct tcp_repair_window w;
	socklen_t len = sizeof(w);
	int on = 1, off = TCP_REPAIR_OFF_NO_WP, q, ret = -1, v;

	if (ioctl(sk, SIOCINQ, &v))
		return -1;
	s->inq = (uint32_t)v;
	if (ioctl(sk, SIOCOUTQ, &v))
		return -1;
	s->outq = (uint32_t)v;
	if (setsockopt(sk, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
		return -1;
	q = TCP_SEND_QUEUE;
	if (setsockopt(sk, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ||
	    get_int(sk, IPPROTO_TCP, TCP_QUEUE_SEQ, &v))
		goto out;
	s->write_seq = (uint32_t)v;
	q = TCP_RECV_QUEUE;
	if (setsockopt(sk, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ||
	    get_int(sk, IPPROTO_TCP, TCP_QUEUE_SEQ, &v))
		goto out;
	s->rcv_nxt = (uint32_t)v;
	if (getsockopt(sk, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, &len))
		goto out;
	s->snd_wl1 = w.snd_wl1;
	s->snd_wnd = w.snd_wnd;
	s->max_window = w.max_window;
	s->rcv_wnd = w.rcv_wnd;
	s->rcv_wup = w.rcv_wup;
	ret = 0;
out:
	setsockopt(sk, IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off));
	/* Leaving repair mode clears SO_REUSEADDR (sk_reuse): give it back. */
	if (s->opt[SF_SO_REUSEADDR])
		setsockopt(sk, SOL_SOCKET, SO_REUSEADDR, &s->opt[SF_SO_REUSEADDR], sizeof(int));
	return ret;
}

static bool tcp_connection(const struct sock_fact *s)
{
	return s->family != AF_UNIX && s->type == SOCK_STREAM && s->state != CRIB_SK_LISTEN &&
	       s->state != CRIB_SK_CLOSE && s->state != CRIB_SK_SYN_SENT;
}

static int read_socket(struct procfs_sock_reader *r, struct sock_fact *s, struct tool_error *err)
{
	int sk, ret;

	sk = (int)syscall(SYS_pidfd_getfd, r->pidfd, s->fd, 0);
	if (sk < 0)
		return tool_fail(err, errno, "pidfd_getfd(fd %d)", s->fd);
	ret = read_options(sk, s);
	if (!ret && tcp_connection(s))
		ret = read_repair(sk, s);
	if (ret)
		tool_fail(err, errno, "fd %d: getsockopt", s->fd);
	close(sk);
	return ret;
}

/* ---- the whole ---- */

int procfs_sock_reader_init(struct procfs_sock_reader *r, pid_t pid, struct tool_error *err)
{
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (r->pidfd < 0)
		return tool_fail(err, errno, "pidfd_open(%d)", (int)pid);
	/* Large enough for a sock_diag message batch (the kernel's default is 32 KiB). */
	r->buf_size = 64 << 10;
	r->buf = malloc(r->buf_size);
	if (!r->buf)
		return tool_fail(err, 0, "out of memory");
	return 0;
}

void procfs_sock_reader_free(struct procfs_sock_reader *r)
{
	if (r->pidfd > 0)
		close(r->pidfd);
	free(r->buf);
	r->buf = NULL;
}

int procfs_sock_facts_read(struct procfs_sock_reader *r, struct sock_facts *f,
			   struct tool_error *err)
{
	uint64_t t[NR_STAGES + 1];

	memset(f, 0, sizeof(*f));
	t[STAGE_FDS] = __rdtsc();
	if (read_fds(r, f, err))
		return -1;
	t[STAGE_PROC_NET] = __rdtsc();
	if (read_proc_net_inet(r, f, "tcp", AF_INET, SOCK_STREAM, err) ||
	    read_proc_net_inet(r, f, "tcp6", AF_INET6, SOCK_STREAM, err) ||
	    read_proc_net_inet(r, f, "udp", AF_INET, SOCK_DGRAM, err) ||
	    read_proc_net_inet(r, f, "udp6", AF_INET6, SOCK_DGRAM, err) ||
	    read_proc_net_unix(r, f, err))
		return -1;
	t[STAGE_DIAG] = __rdtsc();
	if (read_diag(r, f, err))
		return -1;
	t[STAGE_SOCKOPT] = __rdtsc();
	for (size_t i = 0; i < f->n; i++) {
		if (!f->items[i].family)
			return tool_fail(err, 0, "fd %d: socket:[%llu] is in no /proc/net table",
					 f->items[i].fd, (unsigned long long)f->items[i].ino);
		if (read_socket(r, &f->items[i], err))
			return -1;
	}
	t[NR_STAGES] = __rdtsc();
	for (int i = 0; i < NR_STAGES; i++)
		r->stage_cycles[i] = t[i + 1] - t[i];
	sock_facts_sort(f);
	return 0;
}
