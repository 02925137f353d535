// SPDX-License-Identifier: GPL-2.0
/*
 * A workload shaped like script(1) or a tmux pane: it holds the master of
 * a pseudo-terminal, in packet mode, with a window of 33x101; its child
 * makes a session, takes the slave as controlling terminal and standard
 * streams (the "shell"), and forks a "job" in a group of its own, which
 * it puts in front.  The job sets the slave raw-ish (no ICANON, ECHO,
 * ICRNL, OPOST; ISIG kept, VINTR ^G), opens /dev/tty as its fd 3, and
 * answers through it what it reads on its standard input: "?PATH"
 * with "T ok" when its session, group, /dev/tty and ttyname(3) (PATH,
 * the slave's name as the master knows it) are as they should be, or
 * "T" and why not; anything else with "echo:" and the bytes.  It says
 * "R" once it is set up.  Writes
 * "MASTER_FD SHELL JOB" to DIR/ready once the job answered its first
 * question (so that nothing waits unread in the pair).
 *
 * On SIGUSR1 the holder of the master checks the pair: termios and window
 * size as set, packet mode, the session and foreground group the master
 * sees, the shell's and the job's controlling terminal (/proc/PID/stat),
 * the job's own answer, and that bytes written to the master come back
 * through the slave.  Writes the verdict to DIR/check.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "selfcheck.h"

#define ROWS	33
#define COLS	101
#define VINTR_CHAR	007

/* The job's answer to "?@want_name": its session, group and terminal as they should be. */
static void job_answer(const char *want_name, char *out, size_t len)
{
	pid_t sid = getsid(0), pgrp = getpgrp();
	const char *name = ttyname(0);
	int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);

	if (tcgetsid(0) != sid || getppid() != sid)
		snprintf(out, len, "T session %d, terminal's %d, parent %d\n", (int)sid,
			 (int)tcgetsid(0), (int)getppid());
	else if (tcgetpgrp(0) != pgrp || pgrp != getpid())
		snprintf(out, len, "T group %d, in front %d\n", (int)pgrp, (int)tcgetpgrp(0));
	else if (tty < 0)
		snprintf(out, len, "T /dev/tty: %s\n", strerror(errno));
	else if (tcgetsid(3) != sid)
		snprintf(out, len, "T fd 3, /dev/tty, is not the terminal of session %d\n",
			 (int)sid);
	else if (!name || strcmp(name, want_name))
		snprintf(out, len, "T ttyname %s, the master's slave %s\n", name ? name : "none",
			 want_name);
	else
		snprintf(out, len, "T ok\n");
	if (tty >= 0)
		close(tty);
}

static int set_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return -1;
	t.c_iflag &= ~(tcflag_t)(ICRNL | IXON | INLCR | IGNCR);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
	t.c_lflag |= ISIG;
	t.c_cc[VINTR] = VINTR_CHAR;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	return tcsetattr(fd, TCSANOW, &t);
}

/* The job: in its own group, in front, answering on its terminal through /dev/tty. */
static void job(void)
{
	char buf[512], out[600];
	int tty;
	ssize_t n;

	if (setpgid(0, 0) || tcsetpgrp(0, getpid()) || set_raw(0))
		_exit(1);
	tty = open("/dev/tty", O_RDWR);
	if (tty < 0 || (tty != 3 && (dup2(tty, 3) != 3 || close(tty))) || write(3, "R\n", 2) != 2)
		_exit(1);
	for (;;) {
		n = read(0, buf, sizeof(buf) - 1);
		if (n <= 0)
			_exit(n < 0 && errno == EINTR ? 0 : 1);
		buf[n] = '\0';
		if (buf[0] == '?') {
			buf[strcspn(buf, "\n")] = '\0';
			job_answer(buf + 1, out, sizeof(out));
		} else {
			snprintf(out, sizeof(out), "echo:%s\n", buf);
		}
		if (write(3, out, strlen(out)) < 0)
			_exit(1);
	}
}

/* The shell: a session of its own on the slave, and the job it forks. */
static void shell(int master, const char *slave_name, int report)
{
	pid_t job_pid;
	int slave;

	close(master);
	if (setsid() < 0)
		_exit(1);
	slave = open(slave_name, O_RDWR);
	if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) || dup2(slave, 0) < 0 || dup2(slave, 1) < 0 ||
	    dup2(slave, 2) < 0)
		_exit(1);
	close(slave);
	/* the shell itself is in the background now: it must not be stopped for it */
	signal(SIGTTOU, SIG_IGN);
	job_pid = fork();
	if (job_pid == 0) {
		close(report);
		job();
	}
	if (job_pid < 0 || write(report, &job_pid, sizeof(job_pid)) != sizeof(job_pid))
		_exit(1);
	close(report);
	for (;;)
		pause();
}

/* One line from the master, its packet-mode header bytes left out; 0 or -1. */
static int read_line(int master, char *line, size_t len)
{
	struct pollfd p = { .fd = master, .events = POLLIN };
	char buf[512];
	size_t used = 0;
	ssize_t n;

	line[0] = '\0';
	while (!strchr(line, '\n')) {
		if (poll(&p, 1, 10000) != 1)
			return -1;
		n = read(master, buf, sizeof(buf));
		if (n <= 0)
			return -1;
		/* packet mode: each read starts with a control byte, TIOCPKT_DATA (0) for data */
		if (buf[0] != TIOCPKT_DATA || (size_t)n - 1 >= len - used)
			continue;
		memcpy(line + used, buf + 1, (size_t)n - 1);
		used += (size_t)n - 1;
		line[used] = '\0';
	}
	return 0;
}

/* Ask the job @question; its answer in @answer. */
static int ask(int master, const char *question, char *answer, size_t len)
{
	if (write(master, question, strlen(question)) != (ssize_t)strlen(question))
		return -1;
	return read_line(master, answer, len);
}

static int question(int master, char *q, size_t len)
{
	char name[64];

	if (ptsname_r(master, name, sizeof(name)))
		return -1;
	snprintf(q, len, "?%s\n", name);
	return 0;
}

/* The controlling terminal /proc/PID/stat names (field 7), and its foreground group (8). */
static int stat_tty(pid_t pid, unsigned long *tty_nr, int *tpgid)
{
	char path[64], buf[1024], *end;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	end = strrchr(buf, ')');
	if (!end || sscanf(end + 2, "%*c %*d %*d %*d %lu %d", tty_nr, tpgid) != 2)
		return -1;
	return 0;
}

static void check_modes(struct check_report *r, int master)
{
	struct termios t;
	struct winsize ws;
	int packet = 0;

	if (tcgetattr(master, &t))
		check_fail(r, "tcgetattr: %s", strerror(errno));
	else if ((t.c_lflag & (ICANON | ECHO | IEXTEN)) || !(t.c_lflag & ISIG) ||
		 (t.c_iflag & (ICRNL | IXON)) || (t.c_oflag & OPOST) ||
		 t.c_cc[VINTR] != VINTR_CHAR || t.c_cc[VMIN] != 1)
		check_fail(r, "termios: iflag %#o oflag %#o lflag %#o VINTR %#o VMIN %d",
			   t.c_iflag, t.c_oflag, t.c_lflag, t.c_cc[VINTR], t.c_cc[VMIN]);
	if (ioctl(master, TIOCGWINSZ, &ws) || ws.ws_row != ROWS || ws.ws_col != COLS)
		check_fail(r, "window size: %dx%d, not %dx%d", ws.ws_row, ws.ws_col, ROWS, COLS);
	if (ioctl(master, TIOCGPKT, &packet) || !packet)
		check_fail(r, "packet mode off");
}

static void check_session(struct check_report *r, int master, pid_t shell_pid, pid_t job_pid)
{
	pid_t sid = 0, pgrp = 0;
	unsigned long tty_nr = 0;
	struct stat st;
	int slave, tpgid = 0;
	pid_t who[2] = { shell_pid, job_pid };

	if (ioctl(master, TIOCGSID, &sid) || sid != shell_pid)
		check_fail(r, "the pair controls session %d, not %d", (int)sid, (int)shell_pid);
	if (ioctl(master, TIOCGPGRP, &pgrp) || pgrp != job_pid)
		check_fail(r, "group %d is in front, not %d", (int)pgrp, (int)job_pid);
	slave = ioctl(master, TIOCGPTPEER, O_PATH | O_NOCTTY);
	if (slave < 0 || fstat(slave, &st)) {
		check_fail(r, "the slave: %s", strerror(errno));
		return;
	}
	close(slave);
	for (int i = 0; i < 2; i++)
		if (stat_tty(who[i], &tty_nr, &tpgid) || tty_nr != st.st_rdev || tpgid != job_pid)
			check_fail(r, "process %d: terminal %#lx (the slave is %#lx), in front %d",
				   (int)who[i], tty_nr, (unsigned long)st.st_rdev, tpgid);
}

static void check_through(struct check_report *r, int master)
{
	char q[80], answer[700];

	if (question(master, q, sizeof(q)) || ask(master, q, answer, sizeof(answer)))
		check_fail(r, "the job does not answer");
	else if (strcmp(answer, "T ok\n"))
		check_fail(r, "the job: %s", answer);
	if (ask(master, "hello", answer, sizeof(answer)) || strcmp(answer, "echo:hello\n"))
		check_fail(r, "echo: \"%s\"", answer);
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = ROWS, .ws_col = COLS, .ws_xpixel = 808, .ws_ypixel = 594 };
	struct check_report r = { 0 };
	char name[64], text[96], q[80], answer[700];
	int master, report[2], packet = 1;
	pid_t shell_pid, job_pid;

	if (argc != 2) {
		fprintf(stderr, "usage: pty DIR\n");
		return 2;
	}
	check_on_request();
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, name, sizeof(name)) || ioctl(master, TIOCSWINSZ, &ws) || ioctl(master, TIOCPKT, &packet) || pipe(report))
		return 1;
	shell_pid = fork();
	if (shell_pid == 0) {
		close(report[0]);
		shell(master, name, report[1]);
	}
	close(report[1]);
	if (shell_pid < 0 || read(report[0], &job_pid, sizeof(job_pid)) != sizeof(job_pid))
		return 1;
	close(report[0]);
	/* the job ready, and its first answer read: the pair holds nothing unread at the dump */
	if (read_line(master, answer, sizeof(answer)) || strcmp(answer, "R\n") ||
	    question(master, q, sizeof(q)) || ask(master, q, answer, sizeof(answer)) ||
	    strcmp(answer, "T ok\n")) {
		fprintf(stderr, "pty: the job answered \"%s\"\n", answer);
		return 1;
	}
	snprintf(text, sizeof(text), "%d %d %d\n", master, (int)shell_pid, (int)job_pid);
	snprintf(r.text, sizeof(r.text), "%s/ready", argv[1]);
	if (write_ready(r.text, text))
		return 1;
	r.text[0] = '\0';
	check_wait_for_request();
	check_modes(&r, master);
	check_session(&r, master, shell_pid, job_pid);
	check_through(&r, master);
	if (check_write(&r, argv[1]))
		return 1;
	for (;;)
		pause();
}
