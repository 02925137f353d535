// SPDX-License-Identifier: GPL-2.0
/*
 * Who may use the CRIB kfuncs on whom.  Each kind of access (a task's
 * file, its socket, its file table, its memory map, restoring into its
 * socket) is tried by callers that may run CRIB programs
 * (CAP_CHECKPOINT_RESTORE) but may not ptrace the run's target (another
 * uid, no CAP_SYS_PTRACE), which BPF_PROG_RUN refuses, or may ptrace the
 * target but not a descendant of it (one that made itself undumpable),
 * which each kfunc refuses; or that lack CAP_NET_ADMIN for a restore.
 * The same caller must be let through where it has the rights.  A caller
 * without CAP_CHECKPOINT_RESTORE may run no CRIB program at all.  TAP
 * output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
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

/*
 * A target: the process a run is about (@root), and the process looked
 * at (@pid: @root, or a child of it) with a UDP socket of its.
 */
struct target {
	const char *name;
	pid_t root;
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

/*
 * In a process of @uid: with @undumpable_child, fork a child that makes
 * itself undumpable (only CAP_SYS_PTRACE may ptrace it then) and carry on
 * as it.  Report the pid and a UDP socket of the process looked at on
 * @rep, then wait for @go to close.
 */
static void __attribute__((noreturn)) be_target(int rep, int go, bool undumpable_child)
{
	struct { pid_t pid; int fd; } r;
	char c;

	/* changing uid made it undumpable, which only a root could ptrace */
	prctl(PR_SET_DUMPABLE, 1);
	if (undumpable_child) {
		pid_t kid = fork();

		if (kid < 0)
			_exit(1);
		if (kid > 0)
			_exit(read(go, &c, 1) < 0);
		prctl(PR_SET_DUMPABLE, 0);
	}
	r.pid = getpid();
	r.fd = udp_socket();
	if (write(rep, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(read(go, &c, 1) < 0);
}

/* A child running as @uid, ptrace-able by that uid, with a UDP socket (or a child that has it). */
static int start_target(struct target *t, uid_t uid, bool undumpable_child)
{
	struct { pid_t pid; int fd; } r = { -1, -1 };
	int rep[2], go[2];

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
		be_target(rep[1], go[0], undumpable_child);
	}
	t->root = t->pid;
	close(rep[1]);
	close(go[0]);
	t->go = go[1];
	if (read(rep[0], &r, sizeof(r)) != sizeof(r))
		r.fd = -1;
	close(rep[0]);
	t->pid = r.pid;
	t->fd = r.fd;
	return t->fd < 0 ? -1 : 0;
}

static void stop_target(struct target *t)
{
	close(t->go);
	waitpid(t->root, NULL, 0);
}

/* Run @prog as @c on @t; the program's value, or the run's -errno. */
static int run(const struct caller *c, const struct bpf_program *prog, const struct target *t)
{
	struct access_args args = { .pid = t->pid, .fd = t->fd };
	int ret, retval = 0;

	ret = run_as(c, bpf_program__fd(prog), t->root, &args, &retval);
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

/* The memory map is readable: the walk visits at least one mapping. */
static void expect_maps(struct tap *tap, const struct caller *c, const struct bpf_program *prog,
			const struct target *t)
{
	int got = run(c, prog, t);

	if (!tap_check(tap, got > 0, "%s, %s: its mappings are walked", c->name, t->name))
		tap_diag("vma_iter returned %d", got);
}

int main(void)
{
	struct target self = { .name = "own root process" };
	struct target kid = { .name = "a uid 1000 process" };
	struct target grandkid = { .name = "an undumpable child of a uid 1000 process" };
	struct bpf_program *file, *sock, *iter, *vmas, *restore;
	struct crib_access *skel;
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
	vmas = skel->progs.vma_iter;
	restore = skel->progs.restore_alloc;
	self.pid = self.root = getpid();
	self.fd = udp_socket();
	if (self.fd < 0 || start_target(&kid, 1000, false) || start_target(&grandkid, 1000, true)) {
		printf("Bail out! no target processes: %s\n", strerror(errno));
		return 1;
	}

	/* root may do anything, on anyone */
	expect(&t, &root, file, &self, 1, "a file is looked up");
	expect(&t, &root, sock, &kid, 1, "a socket is looked up");
	expect_files(&t, &root, iter, &kid);
	expect_maps(&t, &root, vmas, &kid);
	expect(&t, &root, restore, &kid, 1, "a packet may be restored into its socket");
	expect(&t, &root, file, &grandkid, 1, "a file of an undumpable process");
	expect_maps(&t, &root, vmas, &grandkid);

	/* a run about a process its caller may not ptrace does not start */
	expect(&t, &dumper, file, &self, -EPERM, "no run about a root process");
	expect(&t, &dumper, iter, &self, -EPERM, "no run about a root process, for its file table");
	expect(&t, &other, file, &kid, -EPERM, "no run about another uid");
	expect(&t, &other, sock, &kid, -EPERM, "no run about another uid, for its socket");
	expect(&t, &other, vmas, &kid, -EPERM, "no run about another uid, for its mappings");
	expect(&t, &other, restore, &kid, -EPERM, "no run about another uid, to restore into");

	/* the same dumper may reach a process of its own uid */
	expect(&t, &dumper, file, &kid, 1, "a file of its own uid");
	expect(&t, &dumper, sock, &kid, 1, "a socket of its own uid");
	expect_files(&t, &dumper, iter, &kid);
	expect_maps(&t, &dumper, vmas, &kid);

	/* but not a descendant that it may not ptrace: each kfunc checks */
	expect(&t, &dumper, file, &grandkid, 0, "no file of an undumpable descendant");
	expect(&t, &dumper, sock, &grandkid, 0, "no socket of an undumpable descendant");
	expect(&t, &dumper, iter, &grandkid, -EPERM, "no file table of an undumpable descendant");
	expect(&t, &dumper, vmas, &grandkid, -EPERM, "no mappings of an undumpable descendant");

	/* restoring packets takes CAP_NET_ADMIN over the socket's namespace */
	expect(&t, &dumper, restore, &kid, 0, "no restore without CAP_NET_ADMIN");
	expect(&t, &net_dumper, restore, &kid, 1, "a restore with CAP_NET_ADMIN");

	/* and running a CRIB program at all takes CAP_CHECKPOINT_RESTORE */
	expect(&t, &nobody, file, &kid, -EPERM, "no CRIB program runs without CAP_CHECKPOINT_RESTORE");

	stop_target(&grandkid);
	stop_target(&kid);
	crib_access__destroy(skel);
	return tap_done(&t);
}
