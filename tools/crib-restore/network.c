// SPDX-License-Identifier: GPL-2.0
/*
 * The network lock crib-dump left on the tree's TCP connections (see
 * tools/netlock): once the sockets are back and out of repair mode, their
 * packets may flow again.  Should the restore fail after they left repair
 * mode, they are locked again if they were released, and put back in
 * repair mode before anything is closed, so that the peers see no FIN and
 * no reset, and the snapshot can be restored again.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "crib-restore.h"
#include "netlock.h"

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

int network_hold_again(const struct restore_tree *tree, const int *fds, bool relock,
		       struct tool_error *err)
{
	size_t *index = calloc(tree->sockets.n + 1, sizeof(*index));
	struct netlock_tuple *tuples = NULL;
	size_t n = 0, k;
	int on = 1, ret = 0;

	if (index)
		tuples = locked_tuples(tree, &n, index);
	if (!tuples) {
		free(index);
		return tool_fail(err, 0, "out of memory");
	}
	if (relock && n && netlock_acquire(tuples, n, err))
		ret = -1;
	/* Locked or not, a connection in repair mode closes without a word. */
	for (k = 0; k < n; k++)
		if (fds[index[k]] >= 0 &&
		    setsockopt(fds[index[k]], IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
			ret = tool_fail(err, errno, "cannot put a connection back in repair mode");
	free(tuples);
	free(index);
	return ret;
}
