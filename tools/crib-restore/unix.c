// SPDX-License-Identifier: GPL-2.0
/*
 * UNIX sockets.  Two unnamed sockets connected to each other come back as
 * a socketpair(); named ones are bound again (a path the dead original
 * left behind is removed first, if it is a socket), listeners listen, a
 * connection a listener of the process accepted is connected to it and
 * accepted again, one whose peer is closed is a socketpair() whose other
 * end is closed once it has sent what was queued, and a datagram socket
 * connected to a named one connects to that name.
 *
 * Queued data is sent again, in order, by whoever sent it: on a
 * connection by the peer; a datagram by the socket bound to the name it
 * came from, or, when it came from no name, by the peer or by a new
 * unnamed socket.  A datagram from a name no socket of the process holds
 * cannot come back with that source, and is refused at the check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"
#include "unix.h"

static bool named(const struct plan_addr *a)
{
	return a->family == AF_UNIX && a->len > 0;
}

static bool same_name(const struct plan_addr *a, const struct plan_addr *b)
{
	return named(a) && named(b) && a->len == b->len && !memcmp(a->addr, b->addr, a->len);
}

static const struct plan_socket *peer_of(const struct restore_tree *tree,
					 const struct plan_socket *ps)
{
	if (ps->s.state != CRIB_SK_ESTABLISHED || !ps->s.peer_id)
		return NULL;
	return plan_find_socket_id(tree, ps->s.peer_id);
}

/*
 * A connection whose peer was closed: what the peer had sent is still to
 * be read, then end of file.  It comes back as one end of a socketpair()
 * whose other end sends that data and is closed; so neither end may have
 * had a name.
 */
static bool peer_closed(const struct plan_socket *ps)
{
	return ps->s.state == CRIB_SK_ESTABLISHED && !ps->s.peer_id && ps->s.type != SOCK_DGRAM &&
	       (ps->s.shutdown & 3) == 3 && !named(&ps->local) && !named(&ps->peer);
}

/* Two unnamed sockets connected to each other: a socketpair(). */
static bool is_pair(const struct restore_tree *tree, const struct plan_socket *ps)
{
	const struct plan_socket *peer = peer_of(tree, ps);

	return peer && peer->s.state == CRIB_SK_ESTABLISHED && peer->s.peer_id == ps->s.sock_id &&
	       !named(&ps->local) && !named(&peer->local);
}

/*
 * The listener of the process a connection end was accepted from: it has
 * the listener's name.  Its peer connects to that listener again, and
 * this end is accepted again.
 */
static const struct plan_socket *accepted_from(const struct restore_tree *tree,
					       const struct plan_socket *ps)
{
	size_t i;

	if (ps->s.state != CRIB_SK_ESTABLISHED || ps->s.type == SOCK_DGRAM || !named(&ps->local))
		return NULL;
	for (i = 0; i < tree->sockets.n; i++) {
		const struct plan_socket *l = &tree->sockets.items[i];

		if (l->s.state == CRIB_SK_LISTEN && l->s.type == ps->s.type &&
		    same_name(&l->local, &ps->local))
			return l;
	}
	return NULL;
}

/* The datagram socket of the process bound to @name. */
static const struct plan_socket *holder_of(const struct restore_tree *tree,
					   const struct plan_addr *name)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++)
		if (tree->sockets.items[i].s.type == SOCK_DGRAM &&
		    same_name(&tree->sockets.items[i].local, name))
			return &tree->sockets.items[i];
	return NULL;
}

/* Who sends datagram @c to @ps again: NULL for a new unnamed socket. */
static int dgram_sender(const struct restore_tree *tree, const struct plan_socket *ps,
			const struct plan_chunk *c, const struct plan_socket **sender,
			const char **why)
{
	const struct plan_socket *peer = peer_of(tree, ps);

	*sender = named(&c->src) ? holder_of(tree, &c->src) : peer;
	if (named(&c->src) && !*sender) {
		*why = "a queued datagram comes from a name no socket of the process holds";
		return -1;
	}
	/* a connected socket receives only from its peer */
	if (ps->s.state == CRIB_SK_ESTABLISHED && *sender != peer) {
		*why = "a queued datagram comes from another socket than its peer";
		return -1;
	}
	if (!*sender && !named(&ps->local)) {
		*why = "a queued datagram from an unnamed socket, to an unnamed socket";
		return -1;
	}
	return 0;
}

static int check_name(const struct plan_socket *ps, struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;
	char path[sizeof(ps->local.addr) + 1];
	struct stat st;

	if (!named(&ps->local) || !ps->local.addr[0])
		return 0;	/* unnamed, or abstract */
	memcpy(path, ps->local.addr, ps->local.len);
	path[ps->local.len] = 0;
	if (path[0] != '/')
		return tool_fail(err, 0, "fd %llu (%s): bound to the relative path %s, which "
				 "cannot be found again", fd, socket_kind_name(&ps->s), path);
	if (!lstat(path, &st) && !S_ISSOCK(st.st_mode))
		return tool_fail(err, 0, "fd %llu (%s): %s, its name, is no longer a socket", fd,
				 socket_kind_name(&ps->s), path);
	return 0;
}

static int check_queue(const struct restore_tree *tree, const struct plan_socket *ps,
		       struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;
	const struct plan_socket *sender;
	const char *why;
	size_t i;

	if (ps->send.n)
		return tool_fail(err, 0, "fd %llu (%s): a UNIX socket with a send queue", fd,
				 socket_kind_name(&ps->s));
	if (!ps->recv.n)
		return 0;
	if (ps->s.type != SOCK_DGRAM) {
		if (!peer_of(tree, ps) && !peer_closed(ps))
			return tool_fail(err, 0, "fd %llu (%s): data queued with no peer in the "
					 "process to send it again", fd,
					 socket_kind_name(&ps->s));
		return 0;
	}
	for (i = 0; i < ps->recv.n; i++)
		if (dgram_sender(tree, ps, &ps->recv.items[i], &sender, &why))
			return tool_fail(err, 0, "fd %llu (%s): %s", fd, socket_kind_name(&ps->s),
					 why);
	return 0;
}

int unix_check(const struct restore_tree *tree, const struct plan_socket *ps,
	       struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;
	const struct plan_socket *peer = peer_of(tree, ps);
	const char *kind = socket_kind_name(&ps->s);

	if (ps->s.type != SOCK_STREAM && ps->s.type != SOCK_DGRAM &&
	    ps->s.type != SOCK_SEQPACKET)
		return tool_fail(err, 0, "fd %llu (%s): UNIX sockets of type %llu cannot be "
				 "restored", fd, kind, (unsigned long long)ps->s.type);
	if (ps->s.state == CRIB_SK_LISTEN && !named(&ps->local))
		return tool_fail(err, 0, "fd %llu (%s): a listener without a name", fd, kind);
	if (peer_closed(ps))
		return check_name(ps, err) || check_queue(tree, ps, err);
	if (ps->s.state == CRIB_SK_ESTABLISHED && !peer)
		return tool_fail(err, 0, "fd %llu (%s): connected to a socket outside the "
				 "process; that cannot be restored", fd, kind);
	if (ps->s.state == CRIB_SK_ESTABLISHED && ps->s.type != SOCK_DGRAM && !is_pair(tree, ps) &&
	    !accepted_from(tree, ps) && !accepted_from(tree, peer))
		return tool_fail(err, 0, "fd %llu (%s): a connection between named sockets that "
				 "no listener of the process accepted", fd, kind);
	if (accepted_from(tree, ps) && peer->s.peer_id != ps->s.sock_id)
		return tool_fail(err, 0, "fd %llu (%s): accepted from a listener, by a peer "
				 "connected elsewhere", fd, kind);
	if (ps->s.state == CRIB_SK_ESTABLISHED && !is_pair(tree, ps) && !accepted_from(tree, ps) &&
	    !named(&peer->local))
		return tool_fail(err, 0, "fd %llu (%s): connected to an unnamed socket that is "
				 "connected elsewhere", fd, kind);
	if (ps->s.state != CRIB_SK_ESTABLISHED && ps->s.state != CRIB_SK_CLOSE &&
	    ps->s.state != CRIB_SK_LISTEN)
		return tool_fail(err, 0, "fd %llu (%s): state %llu cannot be restored", fd, kind,
				 (unsigned long long)ps->s.state);
	return check_name(ps, err) || check_queue(tree, ps, err);
}

static int park(struct sock_job *j, const struct plan_socket *ps, int s)
{
	int fd = fcntl(s, F_DUPFD, j->temp_base);

	close(s);
	if (fd < 0)
		return sock_fail(j, ps, "moving the socket", errno);
	j->fds[sock_index(j, ps)] = fd;
	return sockopts_apply(j, ps, fd);
}

static int create_pair(struct sock_job *j, const struct plan_socket *ps)
{
	const struct plan_socket *peer = peer_of(j->tree, ps);
	int sv[2];

	if (socketpair(AF_UNIX, (int)ps->s.type, 0, sv))
		return sock_fail(j, ps, "socketpair", errno);
	if (park(j, ps, sv[0])) {
		close(sv[1]);
		return -1;
	}
	return park(j, peer, sv[1]);
}

/*
 * Bind, replacing the socket file the original left behind.  The new file
 * is made as the process would have made it: its owner, and the mode its
 * umask left (connecting takes write permission on it).
 */
static int bind_name(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct crib_process *p = &ps->owner->proc;
	char path[sizeof(ps->local.addr) + 1];
	struct stat st;

	if (!named(&ps->local))
		return 0;
	if (!ps->local.addr[0])
		return sock_bind(j, ps, fd);	/* abstract: no file */
	memcpy(path, ps->local.addr, ps->local.len);
	path[ps->local.len] = 0;
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) && unlink(path))
		return sock_fail(j, ps, "removing the old socket file", errno);
	if (sock_bind(j, ps, fd))
		return -1;
	if (chmod(path, 0777 & ~(mode_t)p->umask) ||
	    lchown(path, (uid_t)p->fsuid, (gid_t)p->fsgid))
		return sock_fail(j, ps, "giving the socket file its mode and owner", errno);
	return 0;
}

static int create_closed(struct sock_job *j, const struct plan_socket *ps)
{
	int sv[2], ret = 0;
	size_t i;

	if (socketpair(AF_UNIX, (int)ps->s.type, 0, sv))
		return sock_fail(j, ps, "socketpair", errno);
	if (park(j, ps, sv[0])) {
		close(sv[1]);
		return -1;
	}
	for (i = 0; i < ps->recv.n && !ret; i++)
		if (sock_send_all(sv[1], ps->recv.items[i].data, ps->recv.items[i].len, 0,
				  NULL, 0))
			ret = sock_fail(j, ps, "sending the queued data again", errno);
	close(sv[1]);
	return ret;
}

int unix_create(struct sock_job *j, const struct plan_socket *ps)
{
	int fd;

	if (j->fds[sock_index(j, ps)] >= 0)
		return 0;	/* the other end of a pair made it */
	if (is_pair(j->tree, ps))
		return create_pair(j, ps);
	if (peer_closed(ps))
		return create_closed(j, ps);
	if (accepted_from(j->tree, ps))
		return 0;	/* accepted once its peer connects */
	if (sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd) || bind_name(j, ps, fd))
		return -1;
	if (ps->s.state == CRIB_SK_LISTEN && listen(fd, (int)ps->s.backlog))
		return sock_fail(j, ps, "listen", errno);
	return 0;
}

/* @ps connected to the listener @l; its peer, accepted there, comes back. */
static int accept_peer(struct sock_job *j, const struct plan_socket *ps,
		       const struct plan_socket *l)
{
	const struct plan_socket *peer = peer_of(j->tree, ps);
	int fd = accept(j->fds[sock_index(j, l)], NULL, NULL);

	if (fd < 0)
		return sock_fail(j, peer, "accept from its listener", errno);
	return park(j, peer, fd);
}

int unix_connect(struct sock_job *j, const struct plan_socket *ps)
{
	const struct plan_socket *peer = peer_of(j->tree, ps);
	const struct plan_socket *l = peer ? accepted_from(j->tree, peer) : NULL;
	struct sockaddr_storage ss;
	socklen_t len;

	if (!peer || is_pair(j->tree, ps) || accepted_from(j->tree, ps))
		return 0;
	len = plan_sockaddr(&peer->local, AF_UNIX, &ss);
	if (connect(j->fds[sock_index(j, ps)], (struct sockaddr *)&ss, len))
		return sock_fail(j, ps, "connect", errno);
	return l ? accept_peer(j, ps, l) : 0;
}

static int send_dgram(struct sock_job *j, const struct plan_socket *ps,
		      const struct plan_chunk *c)
{
	const struct plan_socket *sender;
	struct sockaddr_storage ss;
	socklen_t len = 0;
	const char *why;
	int fd, ret;

	if (dgram_sender(j->tree, ps, c, &sender, &why))
		return sock_refuse(j, ps, why);
	/* to its name, unless the sender is connected to it */
	if (!sender || sender->s.state != CRIB_SK_ESTABLISHED || sender->s.peer_id != ps->s.sock_id)
		len = plan_sockaddr(&ps->local, AF_UNIX, &ss);
	fd = sender ? j->fds[sock_index(j, sender)] : socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0)
		return sock_fail(j, ps, "a socket to send a datagram from", errno);
	ret = sock_send_all(fd, c->data, c->len, 0, len ? &ss : NULL, len);
	if (ret)
		ret = sock_fail(j, ps, "sending a queued datagram again", errno);
	if (!sender)
		close(fd);
	return ret;
}

int unix_fill(struct sock_job *j, const struct plan_socket *ps)
{
	const struct plan_socket *peer = peer_of(j->tree, ps);
	size_t i;

	if (ps->s.type == SOCK_DGRAM) {
		for (i = 0; i < ps->recv.n; i++)
			if (send_dgram(j, ps, &ps->recv.items[i]))
				return -1;
		return 0;
	}
	if (peer_closed(ps))
		return 0;	/* filled by the peer before it went */
	/* a stream is one chunk; seqpacket records one each */
	for (i = 0; i < ps->recv.n; i++)
		if (sock_send_all(j->fds[sock_index(j, peer)], ps->recv.items[i].data,
				  ps->recv.items[i].len, 0, NULL, 0))
			return sock_fail(j, ps, "sending the queued data again from the peer",
					 errno);
	return 0;
}
