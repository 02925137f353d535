// SPDX-License-Identifier: GPL-2.0
/*
 * Pseudo-terminals (spec §5, tty): each pair made anew by crib-restore
 * with the other open file descriptions (files.c), at the first
 * description of the pair: /dev/ptmx opened and unlocked, the slave
 * opened from it (TIOCGPTPEER, never by a /dev/pts path, which another
 * pair may hold now), the slave's termios (TCSETS2) and the window size
 * set, packet mode on the master; every other description of the slave
 * opened again through /proc/self/fd; then exclusive mode and the lock,
 * which would refuse those opens.  Everything is opened O_NOCTTY:
 * crib-restore takes no terminal.  The kernel numbers the new slave, which
 * may not be the number it had (spec: tty.index is volatile).
 *
 * The controlling terminal is the session's: its leader takes it
 * (TIOCSCTTY) right after setsid(), before it forks the processes born in
 * the session, which inherit it; a process of the foreground group, once
 * in it, puts the group in front (TIOCSPGRP, SIGTTOU blocked, as a shell's
 * job control does).  Both use crib-restore's parked description of the
 * pair, which every process holds until it settles its descriptors.
 *
 * A /dev/tty description is opened by the process of the snapshot that
 * holds it first (an ancestor of the others that inherited it), once it
 * has the pair as controlling terminal: the leader right after TIOCSCTTY,
 * another process when it is born, before it forks; parked at its place
 * with the others.  A process that holds one and did not inherit it opens
 * its own (tty_open_late()).
 */
#include <asm/termbits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "descriptors.h"
#include "tree.h"
#include "tty.h"

int tty_take_record(struct restore_tree *tree, const struct crib_tty *t,
		    struct tool_error *err)
{
	struct plan_tty *p;

	if (t->end > CRIB_TTY_CTTY)
		return tool_fail(err, 0, "process %llu, fd %llu: a pseudo-terminal end of kind "
				 "%llu", (unsigned long long)t->pid, (unsigned long long)t->fd,
				 (unsigned long long)t->end);
	if (t->cc.len > CRIB_TTY_NCCS)
		return tool_fail(err, 0, "process %llu, fd %llu: %zu control characters, more "
				 "than a terminal has", (unsigned long long)t->pid,
				 (unsigned long long)t->fd, t->cc.len);
	p = array_push(&tree->ttys);
	if (!p)
		return tool_fail(err, 0, "out of memory");
	memset(p, 0, sizeof(*p));
	p->t = *t;
	p->t.cc = (struct crib_blob){ 0 };	/* @cc is the copy; the array moves */
	memcpy(p->cc, t->cc.data, t->cc.len);
	return 0;
}

void tty_free(struct restore_tree *tree)
{
	array_free(&tree->ttys);
}

const struct plan_tty *tty_find(const struct restore_tree *tree, uint64_t pid, uint64_t fd)
{
	for (size_t i = 0; i < tree->ttys.n; i++)
		if (tree->ttys.items[i].t.pid == pid && tree->ttys.items[i].t.fd == fd)
			return &tree->ttys.items[i];
	return NULL;
}

/* ---- checked before anything is made ---- */

static const struct plan_tty *pair_master(const struct restore_tree *tree, uint64_t tty_id)
{
	for (size_t i = 0; i < tree->ttys.n; i++)
		if (tree->ttys.items[i].t.tty_id == tty_id &&
		    tree->ttys.items[i].t.end == CRIB_TTY_MASTER)
			return &tree->ttys.items[i];
	return NULL;
}

/* An end: a descriptor of the snapshot, a character device, its pair's master there. */
static int check_end(const struct restore_tree *tree, const struct plan_tty *p,
		     struct tool_error *err)
{
	const struct restore_plan *leader = p->t.sid ? plan_find(tree, p->t.sid) : NULL;
	const struct plan_fd *pf = plan_find_fd(tree, p->t.pid, p->t.fd);

	if (!pf || tree->descs.items[pf->desc].file->type != CRIB_FILE_CHARDEV)
		return tool_fail(err, 0, "process %llu, fd %llu: a pseudo-terminal record for a "
				 "descriptor that is not a character device",
				 (unsigned long long)p->t.pid, (unsigned long long)p->t.fd);
	if (!pair_master(tree, p->t.tty_id))
		return tool_fail(err, 0, "process %llu, fd %llu: pseudo-terminal pair %llu has "
				 "no master in the snapshot", (unsigned long long)p->t.pid,
				 (unsigned long long)p->t.fd, (unsigned long long)p->t.tty_id);
	if (p->t.sid && (!leader || leader->proc.zombie || leader->proc.sid != p->t.sid))
		return tool_fail(err, 0, "pseudo-terminal pair %llu controls session %llu, "
				 "which no process of the snapshot leads",
				 (unsigned long long)p->t.tty_id, (unsigned long long)p->t.sid);
	/* /dev/tty is opened again by a process of the session the pair controls */
	if (p->t.end == CRIB_TTY_CTTY && (!p->t.sid || plan_find(tree, p->t.pid)->proc.sid !=
					  p->t.sid))
		return tool_fail(err, 0, "process %llu, fd %llu: /dev/tty of a process outside "
				 "the session pseudo-terminal pair %llu controls",
				 (unsigned long long)p->t.pid, (unsigned long long)p->t.fd,
				 (unsigned long long)p->t.tty_id);
	return 0;
}

/* The description a descriptor with a record refers to (check_end() found it). */
static size_t desc_of(const struct restore_tree *tree, const struct plan_tty *p)
{
	return plan_find_fd(tree, p->t.pid, p->t.fd)->desc;
}

int tty_check(const struct restore_tree *tree, struct tool_error *err)
{
	const struct plan_tty *p, *m;
	size_t i;

	for (i = 0; i < tree->ttys.n; i++) {
		p = &tree->ttys.items[i];
		if (check_end(tree, p, err))
			return -1;
		m = pair_master(tree, p->t.tty_id);
		/* a master has one description, which dup() and fork() share */
		if (p->t.end == CRIB_TTY_MASTER && desc_of(tree, p) != desc_of(tree, m))
			return tool_fail(err, 0, "pseudo-terminal pair %llu has two masters",
					 (unsigned long long)p->t.tty_id);
	}
	return 0;
}

/* ---- the pairs ---- */

bool tty_first_of_pair(const struct restore_tree *tree, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (tree->descs.items[j].tty &&
		    tree->descs.items[j].tty->t.tty_id == tree->descs.items[i].tty->t.tty_id)
			return false;
	return true;
}

/* The termios and window size of the slave, set through it; packet mode on the master. */
static int set_modes(int master, int slave, const struct plan_tty *p)
{
	struct termios2 t;
	struct winsize ws = {
		.ws_row = (unsigned short)p->t.rows, .ws_col = (unsigned short)p->t.cols,
		.ws_xpixel = (unsigned short)p->t.xpixel, .ws_ypixel = (unsigned short)p->t.ypixel,
	};
	int packet = p->t.packet;

	if (ioctl(slave, TCGETS2, &t))
		return -1;
	t.c_iflag = (tcflag_t)p->t.iflag;
	t.c_oflag = (tcflag_t)p->t.oflag;
	t.c_cflag = (tcflag_t)p->t.cflag;
	t.c_lflag = (tcflag_t)p->t.lflag;
	t.c_line = (cc_t)p->t.line;
	memcpy(t.c_cc, p->cc, sizeof(t.c_cc));
	t.c_ispeed = (speed_t)p->t.ispeed;
	t.c_ospeed = (speed_t)p->t.ospeed;
	if (ioctl(slave, TCSETS2, &t) || ioctl(master, TIOCSWINSZ, &ws))
		return -1;
	return ioctl(master, TIOCPKT, &packet);
}

/* Exclusive mode and the lock last: either refuses the slave's opens. */
static int set_locks(int master, int slave, const struct plan_tty *p)
{
	int lock = 1;

	if (p->t.exclusive && ioctl(slave, TIOCEXCL))
		return -1;
	return p->t.locked ? ioctl(master, TIOCSPTLCK, &lock) : 0;
}

/*
 * The kernel's O_LARGEFILE on x86-64 (asm-generic/fcntl.h), which open()
 * adds to every description and TIOCGPTPEER does not; glibc's O_LARGEFILE
 * is 0 there, for 64-bit offsets are the default.
 */
#define KERNEL_O_LARGEFILE	0100000

/*
 * The open(2) flags of a description as it had them, whatever is set at
 * open only: its access mode, O_LARGEFILE and O_CLOEXEC (kept in the
 * description's flags too); never a controlling terminal for crib-restore.
 */
static int open_flags(const struct crib_file *f)
{
	return (int)(f->flags & (O_ACCMODE | KERNEL_O_LARGEFILE | O_CLOEXEC)) | O_NOCTTY;
}

/* A description of the slave other than the first, opened again from it. */
static int reopen_slave(int slave, const struct crib_file *f, int at)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", slave);
	return desc_park(open(path, open_flags(f)), at);
}

static int make_ends(const struct restore_tree *tree, size_t first, int base, int master,
		     int slave)
{
	const struct plan_tty *p = tree->descs.items[first].tty;
	bool first_slave = true;
	size_t i;
	int fd;

	for (i = first; i < tree->descs.n; i++) {
		const struct plan_desc *d = &tree->descs.items[i];

		if (!d->tty || d->tty->t.tty_id != p->t.tty_id || d->tty->t.end == CRIB_TTY_CTTY)
			continue;
		if (d->tty->t.end == CRIB_TTY_MASTER)
			fd = dup3(master, base + (int)i, O_CLOEXEC);
		else if (first_slave)
			fd = dup3(slave, base + (int)i, O_CLOEXEC);
		else
			fd = reopen_slave(slave, d->file, base + (int)i);
		if (d->tty->t.end == CRIB_TTY_SLAVE)
			first_slave = false;
		if (fd < 0 || desc_set_status_flags(fd, d->file))
			return -1;
	}
	return 0;
}

/* The first description of the pair's @end. */
static const struct crib_file *end_file(const struct restore_tree *tree, size_t first,
					uint64_t end)
{
	const struct plan_tty *p = tree->descs.items[first].tty;

	for (size_t i = first; i < tree->descs.n; i++)
		if (tree->descs.items[i].tty && tree->descs.items[i].tty->t.tty_id == p->t.tty_id &&
		    tree->descs.items[i].tty->t.end == end)
			return tree->descs.items[i].file;
	return NULL;
}

int tty_make(const struct restore_tree *tree, size_t first, int base, struct tool_error *err)
{
	const struct plan_tty *p = tree->descs.items[first].tty;
	const struct crib_file *mf = end_file(tree, first, CRIB_TTY_MASTER);
	const struct crib_file *sf = end_file(tree, first, CRIB_TTY_SLAVE);
	int master, slave = -1, unlock = 0, ret = -1;

	/* tty_check() found the master; a pair without a slave in the tree is refused at dump */
	master = open("/dev/ptmx", open_flags(mf));
	if (master < 0)
		return tool_fail(err, errno, "pseudo-terminal pair %llu: cannot open /dev/ptmx",
				 (unsigned long long)p->t.tty_id);
	if (ioctl(master, TIOCSPTLCK, &unlock))
		goto out;
	slave = ioctl(master, TIOCGPTPEER, sf ? open_flags(sf) : O_RDWR | O_NOCTTY);
	if (slave < 0 || set_modes(master, slave, p) ||
	    make_ends(tree, first, base, master, slave) || set_locks(master, slave, p))
		goto out;
	ret = 0;
out:
	if (ret)
		tool_fail(err, errno, "cannot make pseudo-terminal pair %llu (/dev/pts/%llu at "
			  "the dump) again", (unsigned long long)p->t.tty_id,
			  (unsigned long long)p->t.index);
	if (slave >= 0)
		close(slave);
	close(master);
	return ret;
}

/* ---- the session ---- */

/* crib-restore's parked description of @p's pair: any of it reaches the slave. */
static int parked_fd(const struct restore_ctx *ctx, const struct plan_tty *p)
{
	const struct restore_tree *tree = ctx->tree;

	for (size_t i = 0; i < tree->descs.n; i++)
		if (tree->descs.items[i].tty && tree->descs.items[i].tty->t.end != CRIB_TTY_CTTY &&
		    tree->descs.items[i].tty->t.tty_id == p->t.tty_id)
			return ctx->park_base + (int)i;
	return -1;
}

/* The pair controlling session @sid, or NULL. */
static const struct plan_tty *controlling(const struct restore_tree *tree, uint64_t sid)
{
	for (size_t i = 0; i < tree->ttys.n; i++)
		if (tree->ttys.items[i].t.sid && tree->ttys.items[i].t.sid == sid)
			return &tree->ttys.items[i];
	return NULL;
}

bool tty_is_dev_tty(const struct plan_desc *d)
{
	return d->tty && d->tty->t.end == CRIB_TTY_CTTY;
}

/* The /dev/tty descriptions @plan holds first, opened in it and parked. */
static int open_dev_tty(const struct restore_ctx *ctx, const struct restore_plan *plan,
			struct tool_error *err)
{
	const struct restore_tree *tree = ctx->tree;
	const struct plan_desc *d;
	int at;

	for (size_t i = 0; i < tree->descs.n; i++) {
		d = &tree->descs.items[i];
		at = ctx->park_base + (int)i;
		if (!tty_is_dev_tty(d) || d->owner != plan)
			continue;
		if (desc_park(open("/dev/tty", open_flags(d->file)), at) < 0 ||
		    desc_set_status_flags(at, d->file))
			return tool_fail(err, errno, "fd %llu: cannot open /dev/tty, the controlling "
					 "terminal of session %llu", (unsigned long long)d->file->fd,
					 (unsigned long long)plan->proc.sid);
	}
	return 0;
}

int tty_open_born(const struct restore_ctx *ctx, const struct restore_plan *plan,
		  struct tool_error *err)
{
	/* the leader opens its own once it took the terminal */
	if (plan->proc.sid == plan->proc.pid || !controlling(ctx->tree, plan->proc.sid))
		return 0;
	return open_dev_tty(ctx, plan, err);
}

int tty_open_late(const struct restore_ctx *ctx, const struct restore_plan *plan,
		  struct tool_error *err)
{
	const struct restore_tree *tree = ctx->tree;
	const struct plan_desc *d;
	int at;

	for (size_t i = 0; i < plan->fds.n; i++) {
		d = &tree->descs.items[plan->fds.items[i].desc];
		at = ctx->park_base + (int)plan->fds.items[i].desc;
		if (!tty_is_dev_tty(d) || fcntl(at, F_GETFD) >= 0)
			continue;
		if (desc_park(open("/dev/tty", open_flags(d->file)), at) < 0 ||
		    desc_set_status_flags(at, d->file))
			return tool_fail(err, errno, "fd %llu: cannot open /dev/tty",
					 (unsigned long long)plan->fds.items[i].fd);
	}
	return 0;
}

int tty_take_ctty(const struct restore_ctx *ctx, const struct restore_plan *plan,
		  struct tool_error *err)
{
	const struct plan_tty *p;

	if (plan->proc.sid != plan->proc.pid)
		return 0;
	p = controlling(ctx->tree, plan->proc.sid);
	if (!p)
		return 0;
	if (ioctl(parked_fd(ctx, p), TIOCSCTTY, 0))
		return tool_fail(err, errno, "cannot take pseudo-terminal pair %llu as the "
				 "controlling terminal of session %llu",
				 (unsigned long long)p->t.tty_id,
				 (unsigned long long)plan->proc.sid);
	return open_dev_tty(ctx, plan, err);
}

int tty_set_foreground(const struct restore_ctx *ctx, const struct restore_plan *plan,
		       struct tool_error *err)
{
	const struct plan_tty *p = controlling(ctx->tree, plan->proc.sid);
	pid_t pgrp = (pid_t)plan->proc.pgid;
	sigset_t ttou, old;
	int ret;

	if (!p || p->t.fg_pgrp != plan->proc.pgid)
		return 0;
	/* a process not in front asking for it: the kernel stops it unless SIGTTOU is blocked */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	ret = ioctl(parked_fd(ctx, p), TIOCSPGRP, &pgrp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return tool_fail(err, errno, "cannot put group %d in front of the pseudo-terminal "
				 "pair %llu", (int)pgrp, (unsigned long long)p->t.tty_id);
	return 0;
}
