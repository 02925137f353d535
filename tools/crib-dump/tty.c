// SPDX-License-Identifier: GPL-2.0
/*
 * Pseudo-terminals (spec §5, tty): a /dev/ptmx master and its /dev/pts/N
 * slave, both held in the tree (what script(1), tmux and screen hold: the
 * master in a parent, the slave a child's standard streams and
 * controlling terminal).
 *
 * /dev/tty is carried as a third kind of end when the process's
 * controlling terminal (/proc/PID/stat's tty_nr) is the slave of such a
 * pair: nothing is read through it, the pair's ends say it all.
 *
 * Each end is read through a copy of the process's descriptor taken with
 * pidfd_getfd(2): opening /proc/PID/fd/N would make a new pair out of a
 * master.  A master gives what is the pair's: the slave's termios and
 * window size (the kernel answers a master's TCGETS2 and TIOCGWINSZ with
 * its slave's), the lock and packet modes, the session the pair controls
 * and its foreground group; the slave gives its exclusive mode.  The
 * devpts instance and number of a master's slave come from an O_PATH
 * descriptor of it (TIOCGPTPEER), which opens no terminal.  Either end
 * tells how many bytes wait to be read at it (FIONREAD): those are not
 * carried, and refused.  At a slave in canonical mode FIONREAD counts
 * whole lines only: the start of a line not yet ended is not seen.
 *
 * Once every process was read (tty_share()), the ends are matched by the
 * slave's number, pairs numbered in the order the snapshot meets their
 * master, and the pair's state copied to every end.  Refused, naming the
 * process and descriptor: /dev/tty of a process whose controlling terminal
 * is no /dev/pts pseudo-terminal, a pre-Unix98 pty, a pair of a devpts
 * instance other than the one at /dev/pts, a master whose slave no
 * descriptor of the tree holds (the user's terminal, say), a slave whose
 * master is outside, bytes queued either way, and a pair controlling a
 * session the tree does not hold whole: every process of that session
 * must have it as controlling terminal, its leader and its foreground
 * group must be in the tree.  A process whose controlling terminal is
 * another terminal (the one crib-dump was started from) is not refused:
 * it is restored without it, as before.
 */
#include <asm/termbits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crib-dump.h"
#include "pidfd_getfd.h"

/* Documentation/admin-guide/devices.txt */
#define TTYAUX_MAJOR		5	/* minor 0 /dev/tty, 2 /dev/ptmx */
#define PTY_MASTER_MAJOR	128	/* pre-Unix98 masters, 128-135 */
#define PTY_SLAVE_MAJOR		136	/* /dev/pts slaves, 136-143 */

/* One end a descriptor of the process holds. */
struct tty_end {
	int fd;
	uint32_t desc;			/* dump_files's id of its description */
	const char *what;		/* "master" or "slave", for messages */
	uint64_t slave_dev;		/* the devpts instance, st_dev encoding */
	uint64_t index;			/* the slave's number */
	int queued;			/* FIONREAD at this end */
	struct crib_tty rec;
	uint8_t cc[CRIB_TTY_NCCS];
};

struct tty_ends {
	ARRAY(struct tty_end) items;
};

static uint64_t file_rdev(const struct dump_file_rec *k)
{
	return kernel_dev_to_st_dev(k->rdev);
}

bool tty_is_terminal(const struct dump_file_rec *k)
{
	unsigned int maj = major(file_rdev(k)), min = minor(file_rdev(k));

	if ((k->i_mode & S_IFMT) != S_IFCHR)
		return false;
	return (maj == TTYAUX_MAJOR && (min == 0 || min == 2)) ||
	       (maj >= PTY_MASTER_MAJOR && maj <= PTY_SLAVE_MAJOR + 7);
}

/* The devpts instance /dev/pts is, whose pairs a restore makes through /dev/ptmx. */
static int devpts_dev(uint64_t *dev)
{
	struct stat st;

	if (stat("/dev/pts", &st))
		return -1;
	*dev = st.st_dev;
	return 0;
}

/* What only a master tells: the pair's termios, window size, modes and session. */
static int read_master(int copy, struct tty_end *e)
{
	struct termios2 t;
	struct winsize ws;
	struct stat st;
	int peer, locked = 0, packet = 0;
	pid_t sid = 0, pgrp = 0;
	unsigned int ptn;

	peer = ioctl(copy, TIOCGPTPEER, O_PATH | O_NOCTTY | O_CLOEXEC);
	if (peer < 0)
		return -1;
	if (fstat(peer, &st)) {
		close(peer);
		return -1;
	}
	close(peer);
	e->slave_dev = st.st_dev;
	if (ioctl(copy, TIOCGPTN, &ptn) || ioctl(copy, TCGETS2, &t) ||
	    ioctl(copy, TIOCGWINSZ, &ws) || ioctl(copy, TIOCGPTLCK, &locked) ||
	    ioctl(copy, TIOCGPKT, &packet))
		return -1;
	/* no session: the pair controls none */
	if (ioctl(copy, TIOCGSID, &sid)) {
		if (errno != ENOTTY)
			return -1;
		sid = 0;
	}
	if (sid && ioctl(copy, TIOCGPGRP, &pgrp))
		return -1;
	e->index = ptn;
	memcpy(e->cc, t.c_cc, sizeof(e->cc));
	e->rec.iflag = t.c_iflag;
	e->rec.oflag = t.c_oflag;
	e->rec.cflag = t.c_cflag;
	e->rec.lflag = t.c_lflag;
	e->rec.line = t.c_line;
	e->rec.ispeed = t.c_ispeed;
	e->rec.ospeed = t.c_ospeed;
	e->rec.rows = ws.ws_row;
	e->rec.cols = ws.ws_col;
	e->rec.xpixel = ws.ws_xpixel;
	e->rec.ypixel = ws.ws_ypixel;
	e->rec.locked = locked;
	e->rec.packet = packet;
	e->rec.sid = (uint64_t)sid;
	e->rec.fg_pgrp = (uint64_t)(pgrp > 0 ? pgrp : 0);
	return 0;
}

static int read_slave(int copy, const struct dump_file_rec *k, struct tty_end *e)
{
	int excl = 0;

	if (ioctl(copy, TIOCGEXCL, &excl))
		return -1;
	e->rec.exclusive = excl;
	e->slave_dev = kernel_dev_to_st_dev(k->dev);
	e->index = minor(file_rdev(k)) + 256u * (major(file_rdev(k)) - PTY_SLAVE_MAJOR);
	return 0;
}

/* A terminal no /dev/ptmx made: not carried, with why. */
static const char *not_carried(const struct dump_file_rec *k)
{
	unsigned int maj = major(file_rdev(k));

	if (maj >= PTY_MASTER_MAJOR && maj < PTY_SLAVE_MAJOR)
		return "a pre-Unix98 pseudo-terminal master";
	return NULL;
}

static bool is_dev_tty(const struct dump_file_rec *k)
{
	return major(file_rdev(k)) == TTYAUX_MAJOR && minor(file_rdev(k)) == 0;
}

/*
 * /dev/tty: the process's controlling terminal, which must be a /dev/pts
 * slave; its pair is found, and checked, with the others (tty_share()).
 */
static int read_ctty(struct dump_job *job, const struct dump_file_rec *k, struct tty_end *e)
{
	struct proc_stat st;

	if (proc_stat_read(job->pid, &st))
		return tool_fail(&job->err, errno, "process %d: cannot read its stat",
				 (int)job->pid);
	if (major(st.tty_nr) < PTY_SLAVE_MAJOR || major(st.tty_nr) > PTY_SLAVE_MAJOR + 7)
		return tool_fail(&job->err, 0, "process %d, fd %d (/dev/tty): its controlling "
				 "terminal (%u:%u) is no /dev/pts pseudo-terminal, which a "
				 "snapshot does not carry",
				 (int)job->pid, k->fd, major(st.tty_nr), minor(st.tty_nr));
	e->index = minor(st.tty_nr) + 256u * (major(st.tty_nr) - PTY_SLAVE_MAJOR);
	return devpts_dev(&e->slave_dev) ? tool_fail(&job->err, errno, "cannot stat /dev/pts") : 0;
}

static struct tty_end *new_end(struct dump_job *job, const struct dump_file_rec *k,
			       uint64_t end)
{
	static const char *const what[] = { "master", "slave", "controlling terminal" };
	struct tty_end *e;

	if (!job->ttys) {
		job->ttys = calloc(1, sizeof(*job->ttys));
		if (!job->ttys)
			return NULL;
	}
	e = array_push(&job->ttys->items);
	if (!e)
		return NULL;
	*e = (struct tty_end){ .fd = k->fd, .desc = k->desc, .what = what[end] };
	e->rec = (struct crib_tty){ .pid = (uint64_t)job->pid, .fd = (uint64_t)k->fd, .end = end };
	return e;
}

static int add_end(struct dump_job *job, const struct dump_file_rec *k, const char *path,
		   bool master, int copy)
{
	struct tty_end *e = new_end(job, k, master ? CRIB_TTY_MASTER : CRIB_TTY_SLAVE);
	uint64_t pts;

	if (!e)
		return tool_fail(&job->err, 0, "out of memory");
	if ((master ? read_master(copy, e) : read_slave(copy, k, e)) ||
	    ioctl(copy, FIONREAD, &e->queued))
		return tool_fail(&job->err, errno, "process %d, fd %d (%s): cannot read the "
				 "pseudo-terminal %s", (int)job->pid, k->fd, path, e->what);
	if (devpts_dev(&pts))
		return tool_fail(&job->err, errno, "cannot stat /dev/pts");
	if (e->slave_dev != pts)
		return tool_fail(&job->err, 0, "process %d, fd %d (%s): a pseudo-terminal %s of "
				 "a devpts instance other than /dev/pts, which a snapshot does "
				 "not carry", (int)job->pid, k->fd, path, e->what);
	return 0;
}

int tty_read(struct dump_job *job, const struct dump_file_rec *k, const char *path)
{
	const char *refused = not_carried(k);
	bool master = major(file_rdev(k)) == TTYAUX_MAJOR;
	int copy, ret;

	if (refused)
		return tool_fail(&job->err, 0, "process %d, fd %d (%s): %s, which a snapshot "
				 "does not carry: that cannot be restored", (int)job->pid, k->fd,
				 path, refused);
	if (is_dev_tty(k)) {
		struct tty_end *e = new_end(job, k, CRIB_TTY_CTTY);

		return e ? read_ctty(job, k, e) : tool_fail(&job->err, 0, "out of memory");
	}
	copy = pidfd_take_fd(job->pid, k->fd);
	if (copy < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d (%s): cannot take a copy "
				 "of the pseudo-terminal", (int)job->pid, k->fd, path);
	ret = add_end(job, k, path, master, copy);
	close(copy);
	return ret;
}

/* ---- across the tree ---- */

/* The first master of the slave @s's pair (or of @s's own, for a master), in tree order. */
static struct tty_end *find_master(const struct dump_tree *tree, const struct tty_end *s)
{
	struct tty_ends *ends;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		ends = tree->procs.items[i]->ttys;
		for (j = 0; ends && j < ends->items.n; j++)
			if (ends->items.items[j].rec.end == CRIB_TTY_MASTER &&
			    ends->items.items[j].index == s->index &&
			    ends->items.items[j].slave_dev == s->slave_dev)
				return &ends->items.items[j];
	}
	return NULL;
}

/* Whether some slave of the tree is @m's. */
static const struct tty_end *find_slave(const struct dump_tree *tree, const struct tty_end *m)
{
	struct tty_ends *ends;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		ends = tree->procs.items[i]->ttys;
		for (j = 0; ends && j < ends->items.n; j++)
			if (ends->items.items[j].rec.end == CRIB_TTY_SLAVE &&
			    ends->items.items[j].index == m->index &&
			    ends->items.items[j].slave_dev == m->slave_dev)
				return &ends->items.items[j];
	}
	return NULL;
}

/* Bytes waiting at an end: read by no one yet, and not carried. */
static int check_queued(struct dump_tree *tree, const struct dump_job *job,
			const struct tty_end *e)
{
	if (!e->queued)
		return 0;
	return tool_fail(&tree->err, 0, "process %d, fd %d: %d byte%s the %s wrote wait%s unread "
			 "at the pseudo-terminal %s (/dev/pts/%llu), which a snapshot does not "
			 "carry", (int)job->pid, e->fd, e->queued, e->queued == 1 ? "" : "s",
			 e->rec.end == CRIB_TTY_MASTER ? "slave" : "master",
			 e->queued == 1 ? "s" : "", e->what, (unsigned long long)e->index);
}

/*
 * A master: the pair numbered at its first descriptor, its slave found in
 * the tree.  A master whose slave no descriptor of the tree holds has it
 * held outside, or closed by all (which a restore does not make again).
 */
static int number_pair(struct dump_tree *tree, const struct dump_job *job, struct tty_end *m,
		       uint64_t *pairs)
{
	const struct tty_end *first = find_master(tree, m), *s = find_slave(tree, m);

	if (first != m) {
		/* a master has a single description: dup() and fork() share it */
		if (first->desc != m->desc)
			return tool_fail(&tree->err, 0, "process %d, fd %d: a second description "
					 "of the master of /dev/pts/%llu", (int)job->pid, m->fd,
					 (unsigned long long)m->index);
		m->rec.tty_id = first->rec.tty_id;
		m->rec.exclusive = first->rec.exclusive;
		return 0;
	}
	if (!s)
		return tool_fail(&tree->err, 0, "process %d, fd %d: a pseudo-terminal master "
				 "whose slave /dev/pts/%llu no process of the tree holds (the "
				 "other end is outside the tree, or closed): that cannot be "
				 "restored", (int)job->pid, m->fd, (unsigned long long)m->index);
	m->rec.tty_id = ++*pairs;
	m->rec.exclusive = s->rec.exclusive;
	return 0;
}

/*
 * A slave or /dev/tty: its master's pair and state; a slave's own
 * exclusive mode is the pair's.
 */
static int join_pair(struct dump_tree *tree, const struct dump_job *job, struct tty_end *s)
{
	const struct tty_end *m = find_master(tree, s);
	bool exclusive = s->rec.end == CRIB_TTY_SLAVE ? s->rec.exclusive :
			 m && m->rec.exclusive;

	if (!m && s->rec.end == CRIB_TTY_CTTY)
		return tool_fail(&tree->err, 0, "process %d, fd %d (/dev/tty): the controlling "
				 "terminal /dev/pts/%llu, whose master is outside the tree: that "
				 "cannot be restored", (int)job->pid, s->fd,
				 (unsigned long long)s->index);
	if (!m)
		return tool_fail(&tree->err, 0, "process %d, fd %d (/dev/pts/%llu): a "
				 "pseudo-terminal slave whose master is outside the tree: that "
				 "cannot be restored", (int)job->pid, s->fd,
				 (unsigned long long)s->index);
	s->rec = (struct crib_tty){
		.pid = s->rec.pid, .fd = s->rec.fd, .end = s->rec.end,
		.tty_id = m->rec.tty_id, .iflag = m->rec.iflag, .oflag = m->rec.oflag,
		.cflag = m->rec.cflag, .lflag = m->rec.lflag, .line = m->rec.line,
		.ispeed = m->rec.ispeed, .ospeed = m->rec.ospeed, .rows = m->rec.rows,
		.cols = m->rec.cols, .xpixel = m->rec.xpixel, .ypixel = m->rec.ypixel,
		.locked = m->rec.locked, .packet = m->rec.packet, .exclusive = exclusive,
		.sid = m->rec.sid, .fg_pgrp = m->rec.fg_pgrp,
	};
	memcpy(s->cc, m->cc, sizeof(s->cc));
	return 0;
}

/* The process of the tree with @pid, or NULL. */
static const struct dump_job *tree_process(const struct dump_tree *tree, pid_t pid)
{
	for (size_t i = 0; i < tree->procs.n; i++)
		if (tree->procs.items[i]->pid == pid)
			return tree->procs.items[i];
	return NULL;
}

static bool group_in_session(const struct dump_tree *tree, pid_t pgid, pid_t sid)
{
	for (size_t i = 0; i < tree->procs.n; i++)
		if (tree->procs.items[i]->task.pgid == pgid && tree->procs.items[i]->task.sid == sid)
			return true;
	return false;
}

/*
 * The session a pair controls: its leader and foreground group in the
 * tree, and every process of the tree in it with the pair as controlling
 * terminal, none outside it.
 */
static int check_session(struct dump_tree *tree, const struct dump_job *job,
			 const struct tty_end *m)
{
	pid_t sid = (pid_t)m->rec.sid, fg = (pid_t)m->rec.fg_pgrp;
	uint64_t rdev = makedev(PTY_SLAVE_MAJOR, (unsigned int)m->index);
	const struct dump_job *p;
	struct proc_stat st;
	size_t i;

	if (sid && !tree_process(tree, sid))
		return tool_fail(&tree->err, 0, "process %d, fd %d: the pseudo-terminal "
				 "/dev/pts/%llu controls session %d, whose leader is outside the "
				 "tree: that cannot be restored", (int)job->pid, m->fd,
				 (unsigned long long)m->index, (int)sid);
	if (sid && fg && !group_in_session(tree, fg, sid))
		return tool_fail(&tree->err, 0, "process %d, fd %d: the foreground group %d of "
				 "the pseudo-terminal /dev/pts/%llu is outside the tree: that cannot "
				 "be restored", (int)job->pid, m->fd, (int)fg,
				 (unsigned long long)m->index);
	for (i = 0; i < tree->procs.n; i++) {
		p = tree->procs.items[i];
		if (p->zombie)
			continue;
		if (proc_stat_read(p->pid, &st))
			return tool_fail(&tree->err, errno, "process %d: cannot read its stat",
					 (int)p->pid);
		if ((st.tty_nr == rdev) != (sid && p->task.sid == sid))
			return tool_fail(&tree->err, 0, "process %d %s /dev/pts/%llu as controlling "
					 "terminal while %s session %d, which it controls, "
					 "%s: that cannot be restored", (int)p->pid,
					 st.tty_nr == rdev ? "has" : "does not have",
					 (unsigned long long)m->index,
					 p->task.sid == sid ? "in" : "outside", (int)sid,
					 st.tty_nr == rdev ? "does not have it" : "has it");
	}
	return 0;
}

int tty_share(struct dump_tree *tree)
{
	struct tty_ends *ends;
	struct dump_job *job;
	uint64_t pairs = 0;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		ends = job->ttys;
		for (j = 0; ends && j < ends->items.n; j++)
			if (ends->items.items[j].rec.end == CRIB_TTY_MASTER &&
			    (number_pair(tree, job, &ends->items.items[j], &pairs) ||
			     check_queued(tree, job, &ends->items.items[j]) ||
			     check_session(tree, job, &ends->items.items[j])))
				return -1;
	}
	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		ends = job->ttys;
		for (j = 0; ends && j < ends->items.n; j++)
			if (ends->items.items[j].rec.end != CRIB_TTY_MASTER &&
			    (join_pair(tree, job, &ends->items.items[j]) ||
			     check_queued(tree, job, &ends->items.items[j])))
				return -1;
	}
	return 0;
}

int tty_write(struct dump_job *job)
{
	struct tty_end *e;
	size_t i;

	for (i = 0; job->ttys && i < job->ttys->items.n; i++) {
		e = &job->ttys->items.items[i];
		e->rec.index = e->index;
		e->rec.cc = (struct crib_blob){ e->cc, sizeof(e->cc) };
		if (crib_write_tty(job->writer, &e->rec))
			return tool_fail(&job->err, 0, "writing the pseudo-terminal of fd %d: %s",
					 e->fd, crib_writer_error(job->writer)->msg);
	}
	return 0;
}

void tty_free(struct dump_job *job)
{
	if (!job->ttys)
		return;
	array_free(&job->ttys->items);
	free(job->ttys);
	job->ttys = NULL;
}
