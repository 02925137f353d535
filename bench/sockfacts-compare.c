// SPDX-License-Identifier: GPL-2.0
/* Socket facts: the list both ways fill, and the two compared field by field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sockfacts.h"

struct sock_fact *sock_facts_add(struct sock_facts *f)
{
	struct sock_fact *items;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		items = realloc(f->items, f->cap * sizeof(*items));
		if (!items)
			return NULL;
		f->items = items;
	}
	memset(&f->items[f->n], 0, sizeof(f->items[0]));
	return &f->items[f->n++];
}

static int cmp_fd(const void *a, const void *b)
{
	const struct sock_fact *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

void sock_facts_sort(struct sock_facts *f)
{
	qsort(f->items, f->n, sizeof(*f->items), cmp_fd);
}

void sock_facts_free(struct sock_facts *f)
{
	free(f->items);
	memset(f, 0, sizeof(*f));
}

static const char *const opt_names[SF_NR_OPTS] = {
	"SO_RCVBUF", "SO_SNDBUF", "SO_KEEPALIVE", "SO_REUSEADDR", "SO_REUSEPORT",
	"SO_PRIORITY", "SO_MARK", "SO_RCVLOWAT", "IP_TOS", "IPV6_V6ONLY", "TCP_NODELAY",
	"TCP_CORK",
};

#define DIFF_U(field)								\
	do {									\
		if (a->field != b->field) {					\
			printf("# fd %d: " #field " %llu, %llu\n", a->fd,	\
			       (unsigned long long)a->field,			\
			       (unsigned long long)b->field);			\
			diffs++;						\
		}								\
	} while (0)

static int compare_one(const struct sock_fact *a, const struct sock_fact *b)
{
	int diffs = 0;

	DIFF_U(ino);
	DIFF_U(family);
	DIFF_U(type);
	DIFF_U(state);
	DIFF_U(local_port);
	DIFF_U(peer_port);
	if (memcmp(a->local_addr, b->local_addr, 16) || memcmp(a->peer_addr, b->peer_addr, 16)) {
		printf("# fd %d: addresses differ\n", a->fd);
		diffs++;
	}
	DIFF_U(name_len);
	if (a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len)) {
		printf("# fd %d: UNIX names differ\n", a->fd);
		diffs++;
	}
	DIFF_U(peer_ino);
	DIFF_U(rx_queue);
	DIFF_U(tx_queue);
	DIFF_U(write_seq);
	DIFF_U(rcv_nxt);
	DIFF_U(snd_wl1);
	DIFF_U(snd_wnd);
	DIFF_U(max_window);
	DIFF_U(rcv_wnd);
	DIFF_U(rcv_wup);
	DIFF_U(snd_wscale);
	DIFF_U(rcv_wscale);
	DIFF_U(timestamps);
	DIFF_U(sack);
	DIFF_U(wscale);
	DIFF_U(inq);
	DIFF_U(outq);
	for (int o = 0; o < SF_NR_OPTS; o++) {
		if (a->has_opt[o] != b->has_opt[o] || a->opt[o] != b->opt[o]) {
			printf("# fd %d: %s %s%d, %s%d\n", a->fd, opt_names[o],
			       a->has_opt[o] ? "" : "(none) ", a->opt[o],
			       b->has_opt[o] ? "" : "(none) ", b->opt[o]);
			diffs++;
		}
	}
	return diffs;
}

int sock_facts_compare(const struct sock_facts *a, const struct sock_facts *b)
{
	int diffs = 0;

	if (a->n != b->n) {
		printf("# %zu sockets one way, %zu the other\n", a->n, b->n);
		return 1;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (a->items[i].fd != b->items[i].fd) {
			printf("# socket %zu: fd %d, fd %d\n", i, a->items[i].fd, b->items[i].fd);
			return diffs + 1;
		}
		diffs += compare_one(&a->items[i], &b->items[i]);
	}
	return diffs;
}
