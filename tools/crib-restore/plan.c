// SPDX-License-Identifier: GPL-2.0
/*
 * The restore tree as the snapshot reader built it, and the lookups every
 * kind makes in it: a process by its PID, a pipe, a socket, a descriptor.
 * They read the tree and call nothing, so any file may use them without
 * depending on the kinds that filled it.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

char *plan_dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct restore_plan *plan_find(const struct restore_tree *tree, uint64_t pid)
{
	size_t i;

	for (i = tree->procs.n; i-- > 0;)	/* the latest first: records follow their process */
		if (tree->procs.items[i]->proc.pid == pid)
			return tree->procs.items[i];
	return NULL;
}

struct restore_plan *plan_root(const struct restore_tree *tree)
{
	return tree->procs.items[0];
}

struct plan_pipe *plan_find_pipe(struct restore_tree *tree, uint64_t pipe_id)
{
	size_t i;

	for (i = 0; i < tree->pipes.n; i++)
		if (tree->pipes.items[i].pipe_id == pipe_id)
			return &tree->pipes.items[i];
	return NULL;
}

struct plan_socket *plan_find_socket_fd(const struct restore_tree *tree,
					const struct restore_plan *owner, uint64_t fd)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++)
		if (tree->sockets.items[i].owner == owner && tree->sockets.items[i].s.fd == fd)
			return &tree->sockets.items[i];
	return NULL;
}

struct plan_socket *plan_find_socket_id(const struct restore_tree *tree, uint64_t sock_id)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++)
		if (tree->sockets.items[i].s.sock_id == sock_id)
			return &tree->sockets.items[i];
	return NULL;
}

const struct plan_fd *plan_find_fd(const struct restore_tree *tree, uint64_t pid, uint64_t fd)
{
	const struct restore_plan *plan = plan_find(tree, pid);

	for (size_t i = 0; plan && i < plan->fds.n; i++)
		if (plan->fds.items[i].fd == fd)
			return &plan->fds.items[i];
	return NULL;
}
