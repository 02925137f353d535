// SPDX-License-Identifier: GPL-2.0
/*
 * The network lock crib-dump left on the process's TCP connections (see
 * tools/netlock): once the sockets are back, their packets may flow again.
 */
#include <stdlib.h>
#include <string.h>

#include "crib-restore.h"
#include "netlock.h"

/* @ps's record with its addresses pointing at the plan's copies of them. */
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

int network_release(const struct restore_plan *plan, struct tool_error *err)
{
	struct netlock_tuple *tuples;
	struct crib_socket s;
	size_t i, n = 0;
	int ret = 0;

	tuples = calloc(plan->sockets.n + 1, sizeof(*tuples));
	if (!tuples)
		return tool_fail(err, 0, "out of memory");
	for (i = 0; i < plan->sockets.n; i++) {
		socket_view(&plan->sockets.items[i], &s);
		/* Only TCP connections were locked; malformed ones were refused. */
		if (netlock_tuple_from_socket(&s, &tuples[n]) == 1)
			n++;
	}
	if (n && netlock_release(tuples, n, err))
		ret = -1;
	free(tuples);
	return ret;
}
