/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the protocols do alike to one socket (socket_ops.c), and the job
 * of the child making the tree's sockets, which every protocol's file is
 * handed.
 */
#ifndef CRIB_RESTORE_SOCKET_OPS_H
#define CRIB_RESTORE_SOCKET_OPS_H

#include <stddef.h>
#include <sys/socket.h>

#include "plan.h"

struct udp_refill;

/* What the child is doing with the tree's sockets. */
struct sock_job {
	const struct restore_tree *tree;
	struct udp_refill *refill;
	int temp_base;
	int *fds;		/* per tree socket: its new descriptor, -1 none yet */
	struct tool_error *err;
};

/* "inet6 udp" and the like, for messages. */
const char *socket_kind_name(const struct crib_socket *s);
/* Record the failure of @step on @ps with @errnum in j->err; returns -1. */
int sock_fail(struct sock_job *j, const struct plan_socket *ps, const char *step, int errnum);
/* As sock_fail(), with a reason instead of an errno. */
int sock_refuse(struct sock_job *j, const struct plan_socket *ps, const char *why);

/* @a as a sockaddr for @family (AF_INET6 sockets take IPv4 ones v4-mapped). */
socklen_t plan_sockaddr(const struct plan_addr *a, int family, struct sockaddr_storage *ss);
/* A new socket for @ps, parked at or above j->temp_base. */
int sock_new(struct sock_job *j, const struct plan_socket *ps, int *fd);
int sock_bind(struct sock_job *j, const struct plan_socket *ps, int fd);
/* After connect(): the socket has the local address it had. */
int sock_check_local(struct sock_job *j, const struct plan_socket *ps, int fd);
int sock_shutdown(struct sock_job *j, const struct plan_socket *ps, int fd);
/* Send all of @buf on @fd (to @to, if given) without blocking. */
int sock_send_all(int fd, const void *buf, size_t len, int flags,
		  const struct sockaddr_storage *to, socklen_t to_len);
/* Index of @ps in the tree. */
size_t sock_index(const struct sock_job *j, const struct plan_socket *ps);

#endif /* CRIB_RESTORE_SOCKET_OPS_H */
