// SPDX-License-Identifier: GPL-2.0
/*
 * The network lock crib-dump left on the tree's TCP connections (see
 * tools/netlock): once the sockets are back and out of repair mode, their
 * packets may flow again.  Should the restore fail after they left repair
 * mode, they are locked again if they were released, and put back in
 * repair mode before anything is closed, so that the peers see no FIN and
 * no reset, and the snapshot can be restored again.  But a connection
 * that took in data while it was released has acknowledged it, and its
 * peer will not send it again: restored again from the snapshot, it would
 * miss those bytes without a word.  Such a connection is reset instead.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netlock.h"
#include "network.h"
#include "plan.h"
#include "tcp.h"

/* @ps's record with its addresses pointing at the tree's copies of them. */
static void socket_view(const struct plan_socket *ps, struct crib_socket *s)
{
	*s = ps->s;
	s->local = (struct crib_sockaddr){
		.family = ps->local.family, .port = ps->local.port,
		.addr = { .data = ps->local.addr, .len = ps->local.len },
	};
	s->peer = (struct crib_sockaddr){
		.family = ps->peer.family, .port = ps->peer.port,
		.addr = { .data = ps->peer.addr, .len = ps->peer.len },
	};
}

/*
 * The tuples of the tree's locked connections, each once (a socket may
 * have several descriptors); @index[k] is the socket of tuples[k].  NULL
 * when memory is short.
 */
static struct netlock_tuple *locked_tuples(const struct restore_tree *tree, size_t *n,
					   size_t *index)
{
	struct netlock_tuple *tuples = calloc(tree->sockets.n + 1, sizeof(*tuples));
	const struct plan_socket *ps;
	struct crib_socket s;
	size_t i;

	*n = 0;
	for (i = 0; tuples && i < tree->sockets.n; i++) {
		ps = &tree->sockets.items[i];
		if (plan_find_socket_id(tree, ps->s.sock_id) != ps)
			continue;
		socket_view(ps, &s);
		/* Only TCP connections were locked; malformed ones were refused. */
		if (netlock_tuple_from_socket(&s, &tuples[*n]) == 1) {
			if (index)
				index[*n] = i;
			(*n)++;
		}
	}
	return tuples;
}

int network_release(const struct restore_tree *tree, struct tool_error *err)
{
	struct netlock_tuple *tuples;
	size_t n;
	int ret = 0;

	tuples = locked_tuples(tree, &n, NULL);
	if (!tuples)
		return tool_fail(err, 0, "out of memory");
	if (n && netlock_release(tuples, n, err))
		ret = -1;
	free(tuples);
	return ret;
}

/*
 * Connection @fd, which took in what the snapshot does not hold: out of
 * repair mode and the lock, to close with a reset, so that its peer
 * learns it is gone rather than wait on a connection that lost bytes.
 */
static int reset_connection(int fd, const struct netlock_tuple *t, struct tool_error *err)
{
	struct linger abort = { .l_onoff = 1, .l_linger = 0 };
	char what[160];

	netlock_tuple_format(t, what, sizeof(what));
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &(int){ TCP_REPAIR_OFF_NO_WP }, sizeof(int)) ||
	    setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort)) ||
	    netlock_release(t, 1, err))
		return tool_fail(err, errno, "cannot reset connection %s", what);
	tool_error_append(err, "; connection %s took in data once released, which this "
			  "snapshot does not hold: it is reset, and a new restore cannot resume it",
			  what);
	return 0;
}

int network_hold_again(const struct restore_tree *tree, const int *fds, bool relock,
		       struct tool_error *err)
{
	size_t *index = calloc(tree->sockets.n + 1, sizeof(*index));
	struct netlock_tuple *tuples = NULL;
	size_t n = 0, k;
	int on = 1, ret = 0, fd;

	if (index)
		tuples = locked_tuples(tree, &n, index);
	if (!tuples) {
		free(index);
		return tool_fail(err, 0, "out of memory");
	}
	if (relock && n && netlock_acquire(tuples, n, err))
		ret = -1;
	/* Locked or not, a connection in repair mode closes without a word. */
	for (k = 0; k < n; k++) {
		fd = fds[index[k]];
		if (fd < 0)
			continue;
		if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on))) {
			ret = tool_fail(err, errno, "cannot put a connection back in repair mode");
			continue;
		}
		if (relock && tcp_took_more(&tree->sockets.items[index[k]], fd) &&
		    reset_connection(fd, &tuples[k], err))
			ret = -1;
	}
	free(tuples);
	free(index);
	return ret;
}
