// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump's /proc/PID/stat reader (tools/crib-dump/util.c) on processes
 * made here: one whose command reads like more fields ("a) Z 1 2 3 4"),
 * which a parser that stops at the first ')' takes for a zombie; a zombie;
 * a process gone; and one whose controlling terminal is a pseudo-terminal.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crib-dump.h"
#include "kabi.h"
#include "tap.h"

static struct tap t;

/* A child named @name that waits for a signal (@linger) or exits at once. */
static pid_t child(const char *name, bool linger)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		if (linger)
			pause();
		_exit(0);
	}
	if (pid < 0)
		abort();
	return pid;
}

/* Wait until @pid's state is @state, for up to 5 s. */
static bool reaches(pid_t pid, char state, struct proc_stat *st)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 500; i++) {
		if (!proc_stat_read(pid, st) && st->state == state)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* A child in a session of its own whose controlling terminal is a new pty's slave. */
static void controlling_terminal(void)
{
	struct proc_stat st = { 0 };
	struct stat slave_st;
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;
	pid_t pid;

	if (!tap_check(&t, master >= 0 && !grantpt(master) && !unlockpt(master),
		       "a pseudo-terminal to be a controlling terminal"))
		return;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0 || fstat(slave, &slave_st))
		abort();
	pid = fork();
	if (pid == 0) {
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0))
			_exit(1);
		pause();
		_exit(0);
	}
	if (pid < 0)
		abort();
	reaches(pid, 'S', &st);
	tap_check(&t, st.tty_nr == slave_st.st_rdev, "a controlling terminal: tty_nr %#lx is the "
		  "slave's device %#llx", st.tty_nr, (unsigned long long)slave_st.st_rdev);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(slave);
	close(master);
}

int main(void)
{
	struct proc_stat st = { 0 }, self = { 0 };
	pid_t pid;
	bool ok;

	tap_check(&t, !proc_stat_read(getpid(), &self) && self.state == 'R' && self.start_time,
		  "this process: running, with a start time (%c %llu)", self.state,
		  self.start_time);

	pid = child("a) Z 1 2 3 4", true);
	ok = reaches(pid, 'S', &st);
	tap_check(&t, ok, "a command that reads like more fields: sleeping, not '%c'", st.state);
	tap_check(&t, st.start_time >= self.start_time && !(st.flags & PF_EXITING),
		  "its start time (%llu) and flags (%#lx) are its own", st.start_time, st.flags);
	kill(pid, SIGKILL);
	ok = reaches(pid, 'Z', &st);
	tap_check(&t, ok, "killed and not reaped: a zombie ('%c')", st.state);
	waitpid(pid, NULL, 0);
	tap_check(&t, proc_stat_read(pid, &st) == -1, "reaped: gone");

	pid = child("x", false);
	waitpid(pid, NULL, 0);
	tap_check(&t, proc_stat_read(pid, &st) == -1, "a process that exited at once: gone");
	controlling_terminal();
	return tap_done(&t);
}
