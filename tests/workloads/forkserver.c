// SPDX-License-Identifier: GPL-2.0
/*
 * A forking server: the root listens on TCP 127.0.0.1 (its port in
 * DIR/port), then forks N workers that all accept() on that one listening
 * socket and answer each connection with their pid (the listener is non-blocking,
 * a status flag of the description they all share).  Each worker also has
 * a UNIX socketpair with the root, data queued both ways on it and not
 * read; worker w0 is connected to the root's UNIX listener DIR/ctl.sock as
 * well, data queued both ways there too.
 *
 *   forkserver [--local LDIR] DIR N
 *
 * Each process writes DIR/pid.ROLE (root, w0, w1, ...), the root DIR/ready.
 * SIGUSR1 to the root: it reads what each worker sent, has every worker
 * read what it sent (SIGUSR1 to them: DIR/check.wI), and writes
 * DIR/check.root.  With --local LDIR, ctl.sock is LDIR/ctl.sock.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tree.h"

#define MAX_WORKERS	8
#define MSG_LEN		24

static int listener, ctl_listener, ctl_conn = -1;
static int pair[MAX_WORKERS];	/* the root's end of each worker's pair */
static pid_t workers[MAX_WORKERS];
static int n_workers;

/* A message of MSG_LEN bytes, padded, so each is read whole. */
static void message(char *buf, const char *what, int i)
{
	memset(buf, '.', MSG_LEN);
	snprintf(buf, MSG_LEN, "%s %d", what, i);
}

static void send_message(int fd, const char *what, int i)
{
	char buf[MSG_LEN];

	message(buf, what, i);
	if (send(fd, buf, MSG_LEN, 0) != MSG_LEN)
		tree_die("send");
}

/* The message must be there already: it was queued before the dump. */
static void expect_message(int fd, const char *what, int i)
{
	char want[MSG_LEN], got[MSG_LEN];
	ssize_t n;

	message(want, what, i);
	n = recv(fd, got, MSG_LEN, MSG_DONTWAIT);
	if (n != MSG_LEN || memcmp(got, want, MSG_LEN))
		tree_fail("expected \"%s %d\" on fd %d, got %zd bytes%s", what, i, fd, n,
			  n < 0 ? strerror(errno) : "");
}

static void ctl_path(struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	tree_local_file(sun->sun_path, sizeof(sun->sun_path), "ctl.sock");
}

static void serve_connection(void)
{
	char text[32];
	int c = accept(listener, NULL, NULL);

	if (c < 0)
		return;	/* another worker took it */
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (write(c, text, strlen(text)) < 0)
		tree_fail("answering a connection: %s", strerror(errno));
	close(c);
}

static void __attribute__((noreturn)) worker(int i, int fd)
{
	struct sockaddr_un sun;
	sigset_t block, unblocked;
	char role[16];
	int conn = -1;

	snprintf(role, sizeof(role), "w%d", i);
	tree_become(role);
	send_message(fd, "hi from worker", i);
	if (i == 0) {
		conn = socket(AF_UNIX, SOCK_STREAM, 0);
		ctl_path(&sun);
		if (conn < 0 || connect(conn, (struct sockaddr *)&sun, sizeof(sun)))
			tree_die("connect to ctl.sock");
		send_message(conn, "worker over ctl.sock", 0);
	}
	tree_announce();
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	for (;;) {
		struct pollfd pfd = { .fd = listener, .events = POLLIN };

		/* Signals come only while it waits here: none is missed. */
		if (ppoll(&pfd, 1, NULL, &unblocked) > 0)
			serve_connection();
		if (tree_usr1) {
			tree_usr1 = 0;
			expect_message(fd, "hello worker", i);
			if (conn >= 0)
				expect_message(conn, "root over ctl.sock", 0);
			tree_report_to("check");
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}

static void listen_tcp(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	socklen_t len = sizeof(in);
	char path[1024], text[32];
	int one = 1;

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listener = socket(AF_INET, SOCK_STREAM, 0);
	if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(listener, (struct sockaddr *)&in, sizeof(in)) || listen(listener, 16) ||
	    getsockname(listener, (struct sockaddr *)&in, &len) ||
	    fcntl(listener, F_SETFL, O_NONBLOCK))	/* the workers race for each connection */
		tree_die("TCP listener");
	snprintf(path, sizeof(path), "%s/port", tree_dir);
	snprintf(text, sizeof(text), "%d\n", ntohs(in.sin_port));
	if (write_ready(path, text))
		tree_die("writing %s", path);
}

static void listen_unix(void)
{
	struct sockaddr_un sun;

	ctl_path(&sun);
	ctl_listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ctl_listener < 0 || bind(ctl_listener, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(ctl_listener, 4))
		tree_die("UNIX listener");
}

static void root_check(void)
{
	char role[16];

	for (int i = 0; i < n_workers; i++)
		expect_message(pair[i], "hi from worker", i);
	expect_message(ctl_conn, "worker over ctl.sock", 0);
	for (int i = 0; i < n_workers; i++) {
		snprintf(role, sizeof(role), "w%d", i);
		kill(workers[i], SIGUSR1);
		if (tree_wait_file("check", role, 60))
			tree_fail("%s did not check itself", role);
	}
	tree_report_to("check");
}

int main(int argc, char **argv)
{
	int sv[2];

	tree_take_local(&argc, &argv);
	if (argc != 3 || (n_workers = atoi(argv[2])) < 1 || n_workers > MAX_WORKERS) {
		fprintf(stderr, "usage: forkserver [--local LDIR] DIR N (N from 1 to %d)\n",
			MAX_WORKERS);
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	tree_catch_signals();
	listen_tcp();
	listen_unix();
	for (int i = 0; i < n_workers; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			tree_die("socketpair");
		workers[i] = fork();
		if (workers[i] < 0)
			tree_die("fork");
		if (workers[i] == 0) {
			close(sv[0]);
			close(ctl_listener);
			for (int k = 0; k < i; k++)
				close(pair[k]);
			worker(i, sv[1]);
		}
		close(sv[1]);
		pair[i] = sv[0];
		send_message(pair[i], "hello worker", i);
	}
	ctl_conn = accept(ctl_listener, NULL, NULL);
	if (ctl_conn < 0)
		tree_die("accept on ctl.sock");
	send_message(ctl_conn, "root over ctl.sock", 0);
	tree_announce();
	for (int i = 0; i < n_workers; i++) {
		char role[16];

		snprintf(role, sizeof(role), "w%d", i);
		if (tree_wait_file("pid", role, 120))
			tree_die("%s did not start", role);
	}
	tree_ready();
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			root_check();
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}
