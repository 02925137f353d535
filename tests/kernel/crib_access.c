// SPDX-License-Identifier: GPL-2.0
/*
 * Who may use the CRIB kfuncs on whom.  Each kind of access (a task's
 * file, its socket, its file table, restoring into its socket) is tried
 * by callers that may run CRIB programs (CAP_CHECKPOINT_RESTORE) but may
 * not ptrace the target (another uid, no CAP_SYS_PTRACE), or lack
 * CAP_NET_ADMIN for a restore: each must be refused, and the same caller
 * must be let through where it has the rights.  A caller without
 * CAP_CHECKPOINT_RESTORE may run no CRIB program at all.  TAP output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "access.h"
#include "crib_access.skel.h"
#include "crib_libbpf.h"
#include "tap.h"

#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE	40
#endif

static const struct caller root = { "root", 0, 0 };
static const struct caller dumper = { "uid 1000 with CAP_CHECKPOINT_RESTORE", 1000,
				      CAP(CAP_CHECKPOINT_RESTORE) };
static const struct caller net_dumper = {
	"uid 1000 with CAP_CHECKPOINT_RESTORE and CAP_NET_ADMIN", 1000,
	CAP(CAP_CHECKPOINT_RESTORE) | CAP(CAP_NET_ADMIN) };
static const struct caller other = { "uid 2000 with CAP_CHECKPOINT_RESTORE", 2000,
				     CAP(CAP_CHECKPOINT_RESTORE) };
static const struct caller nobody = { "uid 1000 without capabilities", 1000, 0 };

/* A target: a process and a UDP socket of its. */
struct target {
	const char *name;
	pid_t pid;
	int fd;
	int go;		/* closing it ends a child target */
};

static int udp_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return fd;
}

/* A child running as @uid, ptrace-able by that uid, with a UDP socket. */
static int start_target(struct target *t, uid_t uid)
{
	int rep[2], go[2];
	char c;

	if (pipe(rep) || pipe(go))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		close(rep[0]);
		close(go[1]);
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(1);
		/* changing uid made it undumpable, which only a root could ptrace */
		prctl(PR_SET_DUMPABLE, 1);
		t->fd = udp_socket();
		if (write(rep[1], &t->fd, sizeof(t->fd)) != sizeof(t->fd))
			_exit(1);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(rep[1]);
	close(go[0]);
	t->go = go[1];
	if (read(rep[0], &t->fd, sizeof(t->fd)) != sizeof(t->fd))
		t->fd = -1;
	close(rep[0]);
	return t->fd < 0 ? -1 : 0;
}

static void stop_target(struct target *t)
{
	close(t->go);
	waitpid(t->pid, NULL, 0);
}

/* Run @prog as @c on @t; the program's value, or the run's -errno. */
static int run(const struct caller *c, const struct bpf_program *prog, const struct target *t)
{
	struct access_args args = { t->pid, t->fd };
	int ret, retval = 0;

	ret = run_as(c, bpf_program__fd(prog), &args, &retval);
	return ret ? ret : retval;
}

static void expect(struct tap *tap, const struct caller *c, const struct bpf_program *prog,
		   const struct target *t, int want, const char *what)
{
	int got = run(c, prog, t);

	if (!tap_check(tap, got == want, "%s, %s: %s", c->name, t->name, what))
		tap_diag("%s returned %d, expected %d", bpf_program__name(prog), got, want);
}

/* The file table is readable: the iterator visits at least our socket. */
static void expect_files(struct tap *tap, const struct caller *c, const struct bpf_program *prog,
			 const struct target *t)
{
	int got = run(c, prog, t);

	if (!tap_check(tap, got > 0, "%s, %s: its file table is iterated", c->name, t->name))
		tap_diag("file_iter returned %d", got);
}

int main(void)
{
	struct target self = { .name = "own root process" };
	struct target kid = { .name = "a uid 1000 process" };
	struct crib_access *skel;
	struct bpf_program *file, *sock, *iter, *restore;
	struct tap t = {};
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	skel = crib_access__open_and_load();
	if (!skel) {
		printf("Bail out! crib_access does not load: %s\n", strerror(errno));
		return 1;
	}
	file = skel->progs.file_lookup;
	sock = skel->progs.sock_lookup;
	iter = skel->progs.file_iter;
	restore = skel->progs.restore_alloc;
	self.pid = getpid();
	self.fd = udp_socket();
	if (self.fd < 0 || start_target(&kid, 1000)) {
		printf("Bail out! no target processes: %s\n", strerror(errno));
		return 1;
	}

	/* root may do anything, on anyone */
	expect(&t, &root, file, &self, 1, "a file is looked up");
	expect(&t, &root, sock, &kid, 1, "a socket is looked up");
	expect_files(&t, &root, iter, &kid);
	expect(&t, &root, restore, &kid, 1, "a packet may be restored into its socket");

	/* a dumper without ptrace rights over its target gets nothing of it */
	expect(&t, &dumper, file, &self, 0, "no file of a root process");
	expect(&t, &dumper, sock, &self, 0, "no socket of a root process");
	expect(&t, &dumper, iter, &self, -EPERM, "no file table of a root process");
	expect(&t, &other, file, &kid, 0, "no file of another uid");
	expect(&t, &other, sock, &kid, 0, "no socket of another uid");
	expect(&t, &other, iter, &kid, -EPERM, "no file table of another uid");
	expect(&t, &other, restore, &kid, ACCESS_NO_TASK, "no socket of another uid to restore into");

	/* the same dumper may reach a process of its own uid */
	expect(&t, &dumper, file, &kid, 1, "a file of its own uid");
	expect(&t, &dumper, sock, &kid, 1, "a socket of its own uid");
	expect_files(&t, &dumper, iter, &kid);

	/* restoring packets takes CAP_NET_ADMIN over the socket's namespace */
	expect(&t, &dumper, restore, &kid, 0, "no restore without CAP_NET_ADMIN");
	expect(&t, &net_dumper, restore, &kid, 1, "a restore with CAP_NET_ADMIN");

	/* and running a CRIB program at all takes CAP_CHECKPOINT_RESTORE */
	expect(&t, &nobody, file, &kid, -EPERM, "no CRIB program runs without CAP_CHECKPOINT_RESTORE");

	stop_target(&kid);
	crib_access__destroy(skel);
	return tap_done(&t);
}
