// SPDX-License-Identifier: GPL-2.0
/*
 * Releasing by socket records: those a restore brought back, or every
 * one of a snapshot, for a lock whose restore will not happen.  The whole
 * snapshot is read and checked first, so a damaged one releases nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include <crib/format.h>

#include "array.h"
#include "netlock.h"

struct tuple_list {
	ARRAY(struct netlock_tuple);
};

static int tuple_list_add(struct tuple_list *l, const struct netlock_tuple *t)
{
	struct netlock_tuple *added = array_push(l);

	if (!added)
		return -1;
	*added = *t;
	return 0;
}

/* @s's connection into @l, if it is one. */
static int collect_socket(const struct crib_socket *s, struct tuple_list *l,
			  struct tool_error *err)
{
	struct netlock_tuple t;
	int is_conn;

	is_conn = netlock_tuple_from_socket(s, &t);
	if (is_conn < 0) {
		return tool_fail(err, 0, "the socket of fd %llu has malformed addresses",
				 (unsigned long long)s->fd);
	}
	if (is_conn && tuple_list_add(l, &t))
		return tool_fail(err, 0, "out of memory");
	return 0;
}

int netlock_release_sockets(const struct crib_socket *s, size_t n, struct tool_error *err)
{
	struct tuple_list l = { 0 };
	int ret = -1;

	for (size_t i = 0; i < n; i++)
		if (collect_socket(&s[i], &l, err))
			goto out;
	ret = netlock_release(l.items, l.n, err);
out:
	array_free(&l);
	return ret;
}

static int collect(struct crib_reader *r, struct tuple_list *l, struct tool_error *err)
{
	struct crib_record rec;
	int ret;

	while ((ret = crib_reader_next(r, &rec)) > 0)
		if (rec.type == CRIB_REC_SOCKET && collect_socket(&rec.u.socket, l, err))
			return -1;
	if (ret < 0)
		return tool_fail(err, 0, "reading the snapshot: %s", crib_reader_error(r)->msg);
	return 0;
}

/* How many of @l are locked now. */
static int count_locked(const struct tuple_list *l, size_t *locked, struct tool_error *err)
{
	int ret;

	*locked = 0;
	for (size_t i = 0; i < l->n; i++) {
		ret = netlock_is_locked(&l->items[i], err);
		if (ret < 0)
			return -1;
		*locked += (size_t)ret;
	}
	return 0;
}

int netlock_release_snapshot(int fd, size_t *released, struct tool_error *err)
{
	struct tuple_list l = { 0 };
	struct crib_error cerr;
	struct crib_reader *r;
	int ret = -1;

	*released = 0;
	r = crib_reader_open(fd, NULL, &cerr);
	if (!r)
		return tool_fail(err, 0, "reading the snapshot: %s", cerr.msg);
	if (collect(r, &l, err) || count_locked(&l, released, err))
		goto out;
	ret = netlock_release(l.items, l.n, err);
out:
	array_free(&l);
	crib_reader_close(r);
	return ret;
}
