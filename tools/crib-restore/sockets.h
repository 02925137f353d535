/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets in crib-restore, as in crib-dump: sockets.c checks every socket
 * and creates them in an order that lets them find each other;
 * socket_ops.c does what the protocols do alike to one socket,
 * socket_options.c sets its options, tcp.c, udp.c (with udp_queue.c, the
 * receive queue through the CRIB program restore_udp_queue) and unix.c
 * each rebuild their own.  network.c releases the network lock of the TCP
 * connections.  Every socket is created in the child, parked above the
 * snapshot's descriptors; files.c then puts it at its number.
 */
#ifndef CRIB_RESTORE_SOCKETS_TOOL_H
#define CRIB_RESTORE_SOCKETS_TOOL_H

#include <stdbool.h>
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

/* One socket (socket_ops.c).  "inet6 udp" and the like, for messages. */
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

/* Set the options of @ps that differ from what @fd has (spec §6.1). */
int sockopts_apply(struct sock_job *j, const struct plan_socket *ps, int fd);
/* Set the recorded option @level/@name again, if it differs. */
int sockopt_reapply(struct sock_job *j, const struct plan_socket *ps, int fd, int level,
		    int name);

int udp_check(const struct restore_tree *tree, const struct plan_socket *ps,
	      struct tool_error *err);
int udp_create(struct sock_job *j, const struct plan_socket *ps);
int udp_fill(struct sock_job *j, const struct plan_socket *ps);

/* Put the packets of @ps's receive queue back through restore_udp_queue. */
int udp_queue_restore(struct sock_job *j, const struct plan_socket *ps, int fd);

int unix_check(const struct restore_tree *tree, const struct plan_socket *ps,
	       struct tool_error *err);
int unix_create(struct sock_job *j, const struct plan_socket *ps);
int unix_connect(struct sock_job *j, const struct plan_socket *ps);
int unix_fill(struct sock_job *j, const struct plan_socket *ps);

int tcp_check(const struct restore_tree *tree, const struct plan_socket *ps,
	      struct tool_error *err);
/* Listening and unconnected sockets. */
int tcp_create(struct sock_job *j, const struct plan_socket *ps);
/* A connection, up to its window, in repair mode. */
int tcp_repair(struct sock_job *j, const struct plan_socket *ps);
/* Out of repair mode. */
int tcp_finish(struct sock_job *j, const struct plan_socket *ps);
/* Once all are out of it: the unsent data, and a FIN sent again. */
int tcp_resume(struct sock_job *j, const struct plan_socket *ps);

/* ---- what the rest of crib-restore calls ---- */

/* The sockets' part of plan_check(): see sockets.c. */
int sockets_check(const struct restore_tree *tree, struct tool_error *err);

/*
 * Create every socket of the tree, parked at or above @temp_base; @fds[i]
 * gets the descriptor of tree->sockets.items[i] (see sockets.c).  TCP
 * connections are left in repair mode.
 */
int sockets_create(const struct restore_tree *tree, struct udp_refill *refill, int temp_base,
		   int *fds, struct tool_error *err);
/*
 * Once every process is in place: take the TCP connections out of repair
 * mode, on @fds (crib-restore's copies, as sockets_create() made them).
 */
int sockets_leave_repair(const struct restore_tree *tree, const int *fds,
			 struct tool_error *err);
/*
 * Then, once the network lock is released: write their unsent data and
 * their FINs again, so that these go out at once.  Sent under the lock
 * they were dropped, and went out only when a retransmission timer
 * fired, whose backoff kept growing as long as the lock held.
 */
int sockets_resume(const struct restore_tree *tree, const int *fds, struct tool_error *err);
/*
 * Whether connection @fd, back in repair mode, has received data or a FIN
 * since it was restored from @ps (or it cannot tell).
 */
bool tcp_took_more(const struct plan_socket *ps, int fd);

#endif /* CRIB_RESTORE_SOCKETS_TOOL_H */
