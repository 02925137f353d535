// SPDX-License-Identifier: GPL-2.0
/*
 * The dump programs against targets that do not hold still: a process
 * that opens and closes its descriptors while its file table is iterated,
 * processes that exit while they are dumped, and socket queues that
 * packets arrive on and leave while they are walked.  On the debug kernel
 * (KASAN, lockdep) any use of freed memory or lock misuse is a splat,
 * which fails the boot; here every run must end with a result the tools
 * know, and nothing may stay referenced: the ports the targets bound are
 * free again once they are gone.  The rounds are counted, not timed.
 * TAP output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "dump.h"
#include "dump_files.skel.h"
#include "dump_sockets.h"
#include "dump_sockets.skel.h"
#include "tap.h"

#define ROUNDS		200
#define CHURN_FDS	64
#define EXIT_FDS	256
#define BASE_PORT	42000

static int drop_record(void *ctx, void *data, size_t size)
{
	(void)ctx, (void)data, (void)size;
	return 0;
}

/*
 * Run @prog with @ctx, scoped to the target its head names, as the tools
 * run it, emptying @rb after; its result, or -errno.
 */
static int run(const struct bpf_program *prog, void *ctx, size_t size, struct ring_buffer *rb)
{
	int retval, ret = crib_prog_run_target(prog, ctx, size, &retval);

	ring_buffer__consume(rb);
	return ret ? ret : retval;
}

static int pidfd_of(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int udp_bound(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether ports BASE_PORT.. BASE_PORT + @n - 1 can all be bound again. */
static bool ports_free(int n)
{
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = udp_bound(BASE_PORT + i);
		if (fd < 0)
			return false;
		close(fd);
	}
	return true;
}

/*
 * A child that binds CHURN_FDS UDP sockets to known ports, then closes and
 * opens them again, and replaces some with pipes, until killed.
 */
static pid_t start_churner(void)
{
	pid_t pid = fork();
	int fds[CHURN_FDS], p[2], i;

	if (pid)
		return pid;
	for (i = 0; i < CHURN_FDS; i++)
		fds[i] = udp_bound(BASE_PORT + i);
	for (unsigned int n = 0;; n++) {
		i = n % CHURN_FDS;
		close(fds[i]);
		if (n & 1) {
			fds[i] = udp_bound(BASE_PORT + i);
		} else if (!pipe(p)) {
			close(p[1]);
			fds[i] = p[0];
		}
	}
}

static bool result_known(int ret)
{
	return ret == DUMP_OK || ret == DUMP_NO_ROOM || ret == DUMP_NO_TASK ||
	       ret == DUMP_BUSY;
}

static void test_churning_files(struct tap *t, struct dump_files *files,
				struct dump_sockets *sockets)
{
	struct ring_buffer *frb, *srb;
	pid_t pid = start_churner();
	int i, ret, bad = 0, target;

	frb = ring_buffer__new(bpf_map__fd(files->maps.file_records), drop_record, NULL, NULL);
	srb = ring_buffer__new(bpf_map__fd(sockets->maps.socket_records), drop_record, NULL, NULL);
	if (!tap_check(t, pid > 0 && frb && srb, "a process churning its descriptors"))
		return;
	target = pidfd_of(pid);
	for (i = 0; i < ROUNDS; i++) {
		struct dump_ctx fctx = { .target.pidfd = target, .pid = pid, .tgid = pid };
		struct dump_socket_ctx sctx = { .target.pidfd = target, .pid = pid, .fd = -1 };

		ret = run(files->progs.dump_files, &fctx, sizeof(fctx), frb);
		if (!result_known(ret) && !bad++)
			tap_diag("dump_files returned %d", ret);
		ret = run(sockets->progs.dump_sockets, &sctx, sizeof(sctx), srb);
		if (!result_known(ret) && !bad++)
			tap_diag("dump_sockets returned %d", ret);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(target);
	tap_check(t, !bad, "%d dumps of its files and sockets while it churns", 2 * ROUNDS);
	tap_check(t, ports_free(CHURN_FDS), "no socket of it is left referenced once it is gone");
	ring_buffer__free(frb);
	ring_buffer__free(srb);
}

/* A child with EXIT_FDS sockets that exits as soon as it is told to. */
static pid_t start_exiter(int *go)
{
	int p[2], fds[EXIT_FDS], i;
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid) {
		close(p[0]);
		*go = p[1];
		return pid;
	}
	close(p[1]);
	for (i = 0; i < EXIT_FDS; i++)
		fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
	(void)fds;
	_exit(read(p[0], &c, 1) < 0);
}

static void test_exiting_targets(struct tap *t, struct dump_sockets *sockets)
{
	struct ring_buffer *rb;
	int i, go, ret, bad = 0, gone = 0;
	pid_t pid;

	rb = ring_buffer__new(bpf_map__fd(sockets->maps.socket_records), drop_record, NULL, NULL);
	if (!tap_check(t, rb != NULL, "a ring buffer for the exit test"))
		return;
	for (i = 0; i < ROUNDS / 4; i++) {
		struct dump_socket_ctx ctx = { .fd = -1 };

		pid = start_exiter(&go);
		if (pid < 0)
			break;
		ctx.pid = pid;
		ctx.target.pidfd = pidfd_of(pid);
		/* let it go, and dump it while it exits, until it is reaped */
		ret = run(sockets->progs.dump_sockets, &ctx, sizeof(ctx), rb);
		close(go);
		while (waitpid(pid, NULL, WNOHANG) == 0) {
			ret = run(sockets->progs.dump_sockets, &ctx, sizeof(ctx), rb);
			if (!result_known(ret) && !bad++)
				tap_diag("dump_sockets returned %d", ret);
		}
		ret = run(sockets->progs.dump_sockets, &ctx, sizeof(ctx), rb);
		gone += ret == DUMP_NO_TASK;
		close(ctx.target.pidfd);
	}
	tap_check(t, i == ROUNDS / 4 && !bad, "%d processes dumped while they exit", i);
	tap_check(t, gone == i, "each is reported gone once reaped (%d of %d)", gone, i);
	ring_buffer__free(rb);
}

struct traffic {
	int rx, tx;
	struct sockaddr_in to;
	atomic_bool stop;
};

static void *send_loop(void *arg)
{
	struct traffic *tr = arg;
	char buf[512] = { 0 };

	while (!atomic_load(&tr->stop))
		sendto(tr->tx, buf, 1 + rand() % sizeof(buf), MSG_DONTWAIT,
		       (struct sockaddr *)&tr->to, sizeof(tr->to));
	return NULL;
}

static void *recv_loop(void *arg)
{
	struct traffic *tr = arg;
	char buf[512];

	while (!atomic_load(&tr->stop))
		recv(tr->rx, buf, sizeof(buf), MSG_DONTWAIT);
	return NULL;
}

static void test_busy_queues(struct tap *t, struct dump_sockets *sockets)
{
	static const unsigned int queues[] = { DUMP_QUEUE_RECEIVE, DUMP_QUEUE_READER };
	struct traffic tr = { .rx = udp_bound(0), .tx = socket(AF_INET, SOCK_DGRAM, 0) };
	socklen_t len = sizeof(tr.to);
	pthread_t snd, rcv;
	struct ring_buffer *rb;
	int i, ret, bad = 0, self = pidfd_of(getpid());

	rb = ring_buffer__new(bpf_map__fd(sockets->maps.queue_records), drop_record, NULL, NULL);
	if (!tap_check(t, rb && tr.rx >= 0 && tr.tx >= 0 &&
		       !getsockname(tr.rx, (struct sockaddr *)&tr.to, &len) &&
		       !pthread_create(&snd, NULL, send_loop, &tr) &&
		       !pthread_create(&rcv, NULL, recv_loop, &tr),
		       "a UDP socket receiving and read from"))
		return;
	for (i = 0; i < ROUNDS; i++) {
		struct dump_queue_ctx ctx = { .target.pidfd = self, .pid = getpid(), .fd = tr.rx,
					      .queue = queues[i % 2] };

		ret = run(sockets->progs.dump_socket_queue, &ctx, sizeof(ctx), rb);
		if (ret != DUMP_OK && ret != DUMP_NO_ROOM && !bad++)
			tap_diag("dump_socket_queue returned %d", ret);
	}
	atomic_store(&tr.stop, true);
	pthread_join(snd, NULL);
	pthread_join(rcv, NULL);
	tap_check(t, !bad, "%d walks of its queues while packets come and go", ROUNDS);
	close(self);
	close(tr.rx);
	close(tr.tx);
	ring_buffer__free(rb);
}

int main(void)
{
	struct dump_sockets *sockets;
	struct dump_files *files;
	struct tap t = {};
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	files = dump_files__open_and_load();
	sockets = dump_sockets__open_and_load();
	if (!files || !sockets) {
		printf("Bail out! the dump programs do not load: %s\n", strerror(errno));
		return 1;
	}
	if (!tap_check(&t, ports_free(CHURN_FDS), "ports %d to %d are free to start with",
		       BASE_PORT, BASE_PORT + CHURN_FDS - 1))
		return tap_done(&t);
	test_churning_files(&t, files, sockets);
	test_exiting_targets(&t, sockets);
	test_busy_queues(&t, sockets);
	dump_sockets__destroy(sockets);
	dump_files__destroy(files);
	return tap_done(&t);
}
