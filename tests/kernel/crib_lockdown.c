// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel lockdown and the CRIB kfuncs, in a guest booted with lockdown=
 * on its command line (lockdown is one-way: the runner boots once per
 * mode).  In integrity mode restoring packets into a socket is refused,
 * reading packets is not; in confidentiality mode both are refused.  Even
 * root's programs are.  A boot without lockdown fails the test: it would
 * check nothing.  TAP output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "access.h"
#include "crib_access.skel.h"
#include "crib_libbpf.h"
#include "tap.h"

#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"

/* The lockdown mode in force, from "none [integrity] confidentiality". */
static const char *lockdown_mode(void)
{
	static char line[128];
	char *open, *close;
	FILE *f;

	f = fopen(LOCKDOWN_FILE, "r");
	if (!f && !mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL))
		f = fopen(LOCKDOWN_FILE, "r");
	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return NULL;
	*close = 0;
	return open + 1;
}

/* A UDP socket of ours with one datagram queued. */
static int queued_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);

	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &len) ||
	    sendto(tx, "crib", 4, 0, (struct sockaddr *)&a, sizeof(a)) != 4)
		return -1;
	close(tx);
	return rx;
}

static int run(const struct bpf_program *prog, int fd)
{
	static const struct caller root = { "root", 0, 0 };
	struct access_args args = { .pid = getpid(), .fd = fd };
	int ret, retval = 0;

	ret = run_as(&root, bpf_program__fd(prog), getpid(), &args, &retval);
	return ret ? ret : retval;
}

int main(void)
{
	struct crib_access *skel;
	bool confidential;
	const char *mode;
	struct tap t = {};
	char err[256];
	int fd, got;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mode = lockdown_mode();
	if (!tap_check(&t, mode && (!strcmp(mode, "integrity") || !strcmp(mode, "confidentiality")),
		       "the kernel is locked down (%s)", mode ? mode : "cannot tell"))
		return tap_done(&t);
	confidential = !strcmp(mode, "confidentiality");
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	skel = crib_access__open_and_load();
	fd = queued_socket();
	if (!skel || fd < 0) {
		printf("Bail out! crib_access or its socket: %s\n", strerror(errno));
		return 1;
	}

	got = run(skel->progs.sock_lookup, fd);
	tap_check(&t, got == 1, "a socket is looked up (%d)", got);
	got = run(skel->progs.restore_alloc, fd);
	tap_check(&t, got == 0, "no packet may be restored into it (%d)", got);
	if (confidential) {
		got = run(skel->progs.queue_read, fd);
		tap_check(&t, got == -EPERM, "its queue may not be read (%d)", got);
		got = run(skel->progs.peek_tail, fd);
		tap_check(&t, got == 0, "no copy of its last packet may be had (%d)", got);
	} else {
		got = run(skel->progs.queue_read, fd);
		tap_check(&t, got == 1, "its queue is read (%d)", got);
		got = run(skel->progs.peek_tail, fd);
		tap_check(&t, got == 1, "a copy of its last packet is had (%d)", got);
	}
	crib_access__destroy(skel);
	return tap_done(&t);
}
