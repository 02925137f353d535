// SPDX-License-Identifier: GPL-2.0
/*
 * The network lock (tools/netlock) on the TCP connections of a process
 * that the dump kills; crib-restore's network.c releases it.  Before
 * their state is read, every packet of each connected one is dropped,
 * both ways: the peer's data and acknowledgements can no longer move the
 * sequence numbers the snapshot records, and the peer, seeing nothing,
 * only retransmits.  Once the snapshot is complete
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

struct network_lock {
	struct netlock_tuple *tuples;	/* connected sockets, locked */
	size_t n_tuples;
	bool locked;
	int *fds;			/* every TCP socket but listeners, by fd */
	size_t n_fds;
	int *dups;			/* the same sockets, ours, once in repair mode */
	size_t n_dups;
};

bool network_lockable(const struct socket_entry *e)
{
	return e->kind == SOCKET_TCP && netlock_state_connected(e->k.state);
}

bool network_locked(const struct dump_job *job, const struct socket_entry *e)
{
	const struct network_lock *nl = job->network;
	struct netlock_tuple t = { 0 };

	if (!nl || !nl->locked || !network_lockable(e) ||
	    netlock_tuple_from_sockaddrs((const struct sockaddr *)e->k.local_inet,
					 (const struct sockaddr *)e->k.peer_inet, &t))
		return false;
	for (size_t i = 0; i < nl->n_tuples; i++)
		if (!memcmp(&nl->tuples[i], &t, sizeof(t)))
			return true;
	return false;
}

/* The tuples and repair list of @items, in a fresh job->network. */
static int network_collect(struct dump_job *job, const struct socket_entry *items, size_t n)
{
	struct network_lock *nl;
	const struct socket_entry *e;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return tool_fail(&job->err, 0, "out of memory");
	job->network = nl;
	nl->tuples = calloc(n ? n : 1, sizeof(*nl->tuples));
	nl->fds = calloc(n ? n : 1, sizeof(*nl->fds));
	nl->dups = calloc(n ? n : 1, sizeof(*nl->dups));
	if (!nl->tuples || !nl->fds || !nl->dups)
		return tool_fail(&job->err, 0, "out of memory");
	for (size_t i = 0; i < n; i++) {
		e = &items[i];
		if (e->kind != SOCKET_TCP)
			continue;
		if (e->k.state != CRIB_SK_LISTEN)
			nl->fds[nl->n_fds++] = e->k.fd;
		if (!network_lockable(e))
			continue;
		memset(&nl->tuples[nl->n_tuples], 0, sizeof(nl->tuples[0]));
		if (netlock_tuple_from_sockaddrs((const struct sockaddr *)e->k.local_inet,
						 (const struct sockaddr *)e->k.peer_inet,
						 &nl->tuples[nl->n_tuples]))
			return tool_fail(&job->err, 0, "cannot lock fd %d: its addresses are not a TCP connection's",
					 e->k.fd);
		nl->n_tuples++;
	}
	return 0;
}

int network_lock(struct dump_job *job, const struct socket_entry *items, size_t n)
{
	network_free(job);
	if (network_collect(job, items, n))
		return -1;
	if (!job->network->n_tuples)
		return 0;
	if (netlock_acquire(job->network->tuples, job->network->n_tuples, &job->err))
		return -1;
	job->network->locked = true;
	dump_verbose(job, "locked %zu TCP connections (nftables table inet %s)\n",
		     job->network->n_tuples, NETLOCK_TABLE);
	return 0;
}

void network_unlock(struct dump_job *job)
{
	struct network_lock *nl = job->network;
	struct tool_error nerr = { 0 };

	if (!nl || !nl->locked)
		return;
	if (netlock_release(nl->tuples, nl->n_tuples, &nerr))
		fprintf(stderr, "crib-dump: releasing the network lock: %s; see 'nft list table inet %s'\n",
			nerr.msg, NETLOCK_TABLE);
	nl->locked = false;
}

static int pidfd_open_pid(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_take(int pidfd, int fd)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

static void repair_undo(struct network_lock *nl)
{
	int off = TCP_REPAIR_OFF;

	for (size_t i = 0; i < nl->n_dups; i++) {
		setsockopt(nl->dups[i], IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off));
		close(nl->dups[i]);
	}
	nl->n_dups = 0;
}

int network_repair(struct dump_job *job)
{
	struct network_lock *nl = job->network;
	int pidfd, dup, on = TCP_REPAIR_ON;

	if (!nl || !nl->n_fds)
		return 0;
	pidfd = pidfd_open_pid(job->pid);
	if (pidfd < 0)
		return tool_fail(&job->err, errno, "pidfd_open(%d)", (int)job->pid);
	for (size_t i = 0; i < nl->n_fds; i++) {
		dup = pidfd_take(pidfd, nl->fds[i]);
		if (dup < 0) {
			tool_fail(&job->err, errno, "cannot take fd %d to put its TCP socket in repair mode",
				  nl->fds[i]);
			goto fail;
		}
		/* The same socket: repair mode set here is the process's too. */
		if (setsockopt(dup, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on))) {
			tool_fail(&job->err, errno, "cannot put the TCP socket of fd %d in repair mode",
				  nl->fds[i]);
			close(dup);
			goto fail;
		}
		nl->dups[nl->n_dups++] = dup;
	}
	close(pidfd);
	dump_verbose(job, "%zu TCP sockets in repair mode: closing them sends nothing\n",
		     nl->n_dups);
	return 0;
fail:
	repair_undo(nl);
	close(pidfd);
	return -1;
}

void network_free(struct dump_job *job)
{
	struct network_lock *nl = job->network;

	if (!nl)
		return;
	/* After the kill, the last reference: still in repair mode, so silent. */
	for (size_t i = 0; i < nl->n_dups; i++)
		close(nl->dups[i]);
	free(nl->tuples);
	free(nl->fds);
	free(nl->dups);
	free(nl);
	job->network = NULL;
}
