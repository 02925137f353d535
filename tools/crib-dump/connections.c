// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP connections of a process that the dump kills.  Before their
 * state is read, every packet of each connected one is dropped, both ways
 * (the network lock, tools/netlock): the peer's data and acknowledgements
 * can no longer move the sequence numbers the snapshot records, and the
 * peer, seeing nothing, only retransmits.  Once the snapshot is complete
 * every TCP socket goes into repair mode, so that closing it when the
 * process is killed sends neither FIN nor RST (tcp_disconnect() in repair
 * mode only drops the connection).  The lock stays after crib-dump exits:
 * it is crib-restore's to release.  If the dump fails, the lock is
 * released, repair mode undone, and the connections carry on.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "netlock.h"
#include "sockets.h"

struct connection_lock {
	struct netlock_tuple *tuples;	/* connected sockets, locked */
	size_t n_tuples;
	bool locked;
	int *fds;			/* every TCP socket but listeners, by fd */
	size_t n_fds;
	int *dups;			/* the same sockets, ours, once in repair mode */
	size_t n_dups;
};

static bool is_connection(const struct socket_entry *e)
{
	return e->kind == SOCKET_TCP && netlock_state_connected(e->k.state);
}

bool connection_is_locked(const struct dump_job *job, const struct socket_entry *e)
{
	const struct connection_lock *cl = job->connections;
	struct netlock_tuple t = { 0 };

	if (!cl || !cl->locked || !is_connection(e) ||
	    netlock_tuple_from_sockaddrs((const struct sockaddr *)e->k.local_inet,
					 (const struct sockaddr *)e->k.peer_inet, &t))
		return false;
	for (size_t i = 0; i < cl->n_tuples; i++)
		if (!memcmp(&cl->tuples[i], &t, sizeof(t)))
			return true;
	return false;
}

/* The tuples and repair list of @items, in a fresh job->connections. */
static int connections_collect(struct dump_job *job, const struct socket_entry *items, size_t n)
{
	struct connection_lock *cl;
	const struct socket_entry *e;

	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return tool_fail(&job->err, 0, "out of memory");
	job->connections = cl;
	cl->tuples = calloc(n ? n : 1, sizeof(*cl->tuples));
	cl->fds = calloc(n ? n : 1, sizeof(*cl->fds));
	cl->dups = calloc(n ? n : 1, sizeof(*cl->dups));
	if (!cl->tuples || !cl->fds || !cl->dups)
		return tool_fail(&job->err, 0, "out of memory");
	for (size_t i = 0; i < n; i++) {
		e = &items[i];
		if (e->kind != SOCKET_TCP)
			continue;
		if (e->k.state != CRIB_SK_LISTEN)
			cl->fds[cl->n_fds++] = e->k.fd;
		if (!is_connection(e))
			continue;
		memset(&cl->tuples[cl->n_tuples], 0, sizeof(cl->tuples[0]));
		if (netlock_tuple_from_sockaddrs((const struct sockaddr *)e->k.local_inet,
						 (const struct sockaddr *)e->k.peer_inet,
						 &cl->tuples[cl->n_tuples]))
			return tool_fail(&job->err, 0, "cannot lock fd %d: its addresses are not a TCP connection's",
					 e->k.fd);
		cl->n_tuples++;
	}
	return 0;
}

int connections_lock(struct dump_job *job, const struct socket_entry *items, size_t n)
{
	connections_free(job);
	if (connections_collect(job, items, n))
		return -1;
	if (!job->connections->n_tuples)
		return 0;
	if (netlock_acquire(job->connections->tuples, job->connections->n_tuples, &job->err))
		return -1;
	job->connections->locked = true;
	dump_verbose(job, "locked %zu TCP connections (nftables table inet %s)\n",
		     job->connections->n_tuples, NETLOCK_TABLE);
	return 0;
}

void connections_unlock(struct dump_job *job)
{
	struct connection_lock *cl = job->connections;
	struct tool_error nerr = { 0 };

	if (!cl || !cl->locked)
		return;
	if (netlock_release(cl->tuples, cl->n_tuples, &nerr))
		fprintf(stderr, "crib-dump: releasing the network lock: %s; see 'nft list table inet %s'\n",
			nerr.msg, NETLOCK_TABLE);
	cl->locked = false;
}

static int pidfd_open_pid(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_take(int pidfd, int fd)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

static void repair_undo(struct connection_lock *cl)
{
	int off = TCP_REPAIR_OFF;

	for (size_t i = 0; i < cl->n_dups; i++) {
		setsockopt(cl->dups[i], IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off));
		close(cl->dups[i]);
	}
	cl->n_dups = 0;
}

int connections_repair(struct dump_job *job)
{
	struct connection_lock *cl = job->connections;
	int pidfd, dup, on = TCP_REPAIR_ON;

	if (!cl || !cl->n_fds)
		return 0;
	pidfd = pidfd_open_pid(job->pid);
	if (pidfd < 0)
		return tool_fail(&job->err, errno, "pidfd_open(%d)", (int)job->pid);
	for (size_t i = 0; i < cl->n_fds; i++) {
		dup = pidfd_take(pidfd, cl->fds[i]);
		if (dup < 0) {
			tool_fail(&job->err, errno, "cannot take fd %d to put its TCP socket in repair mode",
				  cl->fds[i]);
			goto fail;
		}
		/* The same socket: repair mode set here is the process's too. */
		if (setsockopt(dup, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on))) {
			tool_fail(&job->err, errno, "cannot put the TCP socket of fd %d in repair mode",
				  cl->fds[i]);
			close(dup);
			goto fail;
		}
		cl->dups[cl->n_dups++] = dup;
	}
	close(pidfd);
	dump_verbose(job, "%zu TCP sockets in repair mode: closing them sends nothing\n",
		     cl->n_dups);
	return 0;
fail:
	repair_undo(cl);
	close(pidfd);
	return -1;
}

void connections_free(struct dump_job *job)
{
	struct connection_lock *cl = job->connections;

	if (!cl)
		return;
	/* After the kill, the last reference: still in repair mode, so silent. */
	for (size_t i = 0; i < cl->n_dups; i++)
		close(cl->dups[i]);
	free(cl->tuples);
	free(cl->fds);
	free(cl->dups);
	free(cl);
	job->connections = NULL;
}
