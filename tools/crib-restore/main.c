// SPDX-License-Identifier: GPL-2.0
/*
 * crib-restore: bring a process back from a CRIB snapshot.
 *
 *   crib-restore [-i FILE] [--wait] [--verify] [-v]
 *   crib-restore --unlock-network [-i FILE]
 *
 * The snapshot is read and checked whole before anything is created; the
 * process comes back with its PID, TIDs, memory, registers, descriptors
 * and signal state, and runs on detached (a child of whoever adopts
 * orphans) unless --wait is given.  If anything fails, nothing of it is
 * left running.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "crib-restore.h"
#include "exit.h"
#include "fault.h"
#include "files.h"
#include "netlock.h"
#include "plan.h"
#include "size.h"
#include "snapshot.h"
#include "tracer.h"
#include "tree.h"
#include "udp_queue.h"
#include "verify.h"
#include "version.h"

struct options {
	const char *input;	/* NULL: stdin */
	bool verify;
	bool check;		/* --check: only say whether it could be restored */
	struct restore_options restore;
	bool unlock_network;	/* only release the snapshot's network lock */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crib-restore [-i FILE | FILE] [--wait] [--verify] [--max-size SIZE] [-q] [-v]\n"
		"       crib-restore --check [-i FILE | FILE]\n"
		"       crib-restore --unlock-network [-i FILE | FILE]\n"
		"Restore a process and its descendants from a CRIB snapshot taken by\n"
		"crib-dump on this kernel.  Each gets back its PID and thread IDs, which\n"
		"must be free, its parent, session and process group, and what it shared\n"
		"with the others (open files, pipes, sockets, shared memory).  Files are\n"
		"found again by path; a regular file must have the size it had at the dump.\n"
		"Sockets come back with their addresses, options and queued data: UDP\n"
		"(IPv4, IPv6), UNIX stream, datagram and seqpacket sockets and listeners,\n"
		"TCP listeners and established TCP connections (through TCP_REPAIR).\n"
		"\n"
		"  -i, --input FILE  read the snapshot from FILE, as FILE alone does (default,\n"
		"                    and with -: standard input, which must not be a terminal)\n"
		"      --wait        wait for the restored process (the root of the tree) and\n"
		"                    exit with its status\n"
		"      --verify      dump the restored tree again (crib-dump --leave-running,\n"
		"                    from this program's directory or PATH) and compare with\n"
		"                    the snapshot, volatile fields and the root's parent aside;\n"
		"                    print what differs and kill the tree if anything\n"
		"                    does (what it changes of itself once running does)\n"
		"      --check       restore nothing: say whether the snapshot can be restored\n"
		"                    here (kernel, architecture, PIDs free, files and\n"
		"                    directories present, sockets and event files makeable)\n"
		"      --max-size SIZE\n"
		"                    refuse a snapshot whose records inflate past SIZE bytes\n"
		"                    (suffix K, M, G or T: powers of 1024; default 1T)\n"
		"  -q, --quiet       no progress meter (nor one of the --verify dump)\n"
		"  -v, --verbose     say what is restored, on standard error\n"
		"      --unlock-network\n"
		"                    restore nothing: let the packets of the snapshot's TCP\n"
		"                    connections through again (crib-dump locked them in the\n"
		"                    nftables table inet crib when it killed the process)\n"
		"  -h, --help        this text\n"
		"  -V, --version     the version, and the snapshot format it reads\n"
		"\n"
		"On a terminal, a restore that takes more than a second shows its progress\n"
		"on standard error: the process, the MiB of the snapshot read of its size,\n"
		"and the rate.\n"
		"\n"
		"Exit status (the same table for every CRIB tool):\n"
		"  0  restored (it runs on, detached); --check: it can be restored here\n"
		"  1  the restore failed or was refused, or --verify found a difference:\n"
		"     nothing of the tree is left\n"
		"  2  bad usage, or standard input is a terminal\n"
		"  3  the snapshot cannot be opened or read\n"
		"  4  not a snapshot, a newer major version, or an unknown critical record\n"
		"  5  a truncated, corrupt or otherwise invalid snapshot\n"
		"With --wait, the process's exit status (128 + N when it was killed by signal N).\n"
		"\n"
		"Testing aid: CRIB_RESTORE_FAULT=STEP in the environment makes the restore\n"
		"fail at STEP, as a real failure there would: ghosts (crib-restore, the\n"
		"unlinked files made again, before any process), fork session files\n"
		"attributes (a new process before the restorer), start rseq unmap vdso map\n"
		"fill protect mm sigaction itimer thread posix-timer sigqueue rlimit\n"
		"thread-state creds done (the restorer), pidfds registers seals resume unlock\n"
		"detach (crib-restore), or a step's number in that list, from 1.  The steps\n"
		"of a new process or its restorer fail in the root, or with STEP@PID in\n"
		"process PID.\n");
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_WAIT = 0x100, OPT_UNLOCK_NETWORK, OPT_VERIFY, OPT_MAX_SIZE, OPT_CHECK };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ "unlock-network", no_argument, NULL, OPT_UNLOCK_NETWORK },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:qvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case OPT_WAIT:
			o->restore.wait = true;
			break;
		case OPT_UNLOCK_NETWORK:
			o->unlock_network = true;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o->restore.max_size) || !o->restore.max_size) {
				fprintf(stderr, "crib-restore: bad size '%s' for --max-size\n",
					optarg);
				return 2;
			}
			break;
		case 'q':
			o->restore.quiet = true;
			break;
		case 'v':
			o->restore.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			tool_print_version("crib-restore");
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	/* the snapshot as an operand too, as crib-inspect takes it */
	if (optind < argc && !o->input)
		o->input = argv[optind++];
	if (optind != argc) {
		fprintf(stderr, "crib-restore: unexpected argument '%s': one snapshot, given "
			"as FILE or -i FILE\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (o->check && (o->verify || o->restore.wait || o->unlock_network)) {
		fprintf(stderr, "crib-restore: --check makes nothing: it takes no --verify, "
			"--wait or --unlock-network\n");
		usage(stderr);
		return 2;
	}
	if (o->input && !strcmp(o->input, "-"))
		o->input = NULL;	/* standard input */
	return 0;
}

/* --unlock-network: release the lock on the snapshot's connections, nothing else. */
static int unlock_network(int fd)
{
	struct tool_error err = { 0 };
	size_t released;

	if (netlock_release_snapshot(fd, &released, &err)) {
		fprintf(stderr, "crib-restore: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "crib-restore: released %zu locked TCP connection%s\n", released,
		released == 1 ? "" : "s");
	return 0;
}

/* The snapshot's descriptor, or -1 with the exit status in *@status. */
static int open_input(const struct options *o, int *status)
{
	int fd;

	if (!o->input) {
		if (isatty(STDIN_FILENO)) {
			fprintf(stderr, "crib-restore: standard input is a terminal; "
				"give a snapshot with -i FILE or < FILE\n");
			*status = TOOL_EXIT_USAGE;
			return -1;
		}
		return STDIN_FILENO;
	}
	fd = open(o->input, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "crib-restore: %s: %s\n", o->input, strerror(errno));
		*status = TOOL_EXIT_IO;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct options o = { .restore.max_size = CRIB_MAX_SIZE_DEFAULT };
	struct tool_error err = { 0 };
	struct udp_refill refill = { .prog_fd = -1 };
	struct verify_input vin = { .fd = -1 };
	struct progress progress;
	struct restore_tree plan;
	int fd, ret;
	pid_t pid;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret;
	progress_init(&progress, "crib-restore", o.restore.quiet);
	o.restore.progress = &progress;
	if (fault_from_env(&o.restore.fault, &err)) {
		fprintf(stderr, "crib-restore: %s\n", err.msg);
		return 2;
	}
	fd = open_input(&o, &ret);
	if (fd < 0)
		return ret;
	if (o.unlock_network) {
		ret = unlock_network(fd);
		if (fd != STDIN_FILENO)
			close(fd);
		return ret;
	}
	if (o.verify && verify_keep_input(fd, &vin, &err)) {
		fprintf(stderr, "crib-restore: %s\n", err.msg);
		if (fd != STDIN_FILENO)
			close(fd);
		return 1;
	}
	progress_begin(&progress, 1);
	ret = plan_read(&plan, o.verify ? vin.fd : fd, o.restore.max_size, &progress, &err);
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret || tree_link(&plan, &err) || files_link(&plan, &err) || plan_check(&plan, &err)) {
		progress_end(&progress);
		/* a snapshot that cannot be read is named, as crib-inspect names it */
		if (plan.snapshot_exit)
			fprintf(stderr, "crib-restore: %s: %s\n", o.input ? o.input : "standard input",
				err.msg);
		else
			fprintf(stderr, "crib-restore: %s\n", err.msg);
		ret = plan.snapshot_exit ? plan.snapshot_exit : TOOL_EXIT_FAILED;
		plan_free(&plan);
		verify_input_close(&vin);
		return ret;
	}
	for (size_t i = 0; i < plan.procs.n; i++) {
		const struct restore_plan *p = plan.procs.items[i];

		restore_verbose(&o.restore, "process %llu (%s)%s: %zu threads, %zu VMAs, %llu "
				"bytes to copy in, %llu in shadows, %zu fds\n",
				(unsigned long long)p->proc.pid, p->proc.comm,
				p->proc.zombie ? ", a zombie" : "", p->threads.n, p->vmas.n,
				(unsigned long long)p->direct_bytes,
				(unsigned long long)p->shadow_bytes, p->files.n);
	}
	restore_verbose(&o.restore, "%zu open file descriptions, %zu sockets, %llu bytes in "
			"the page store\n", plan.descs.n, plan.sockets.n,
			(unsigned long long)plan.page_store_len);
	/* Loaded before the process exists, so a kernel that refuses it stops nothing. */
	ret = udp_refill_open(&refill, &plan, &err);
	if (!ret && o.check) {
		udp_refill_close(&refill);
		progress_end(&progress);
		printf("%s can be restored here: %zu process%s, every PID free, every file "
		       "and directory present\n", o.input ? o.input : "the snapshot",
		       plan.procs.n, plan.procs.n == 1 ? "" : "es");
		plan_free(&plan);
		return 0;
	}
	pid = ret ? -1 : restore_tree(&plan, &refill, &o.restore, &err);
	udp_refill_close(&refill);
	progress_end(&progress);
	/*
	 * A process that differs is killed.  Its connections left the lock
	 * when they left repair mode, so their peers see them closed.
	 */
	if (pid >= 0 && o.verify && verify_restored(&plan, &vin, &o.restore, &err))
		pid = -1;
	verify_input_close(&vin);
	if (pid < 0) {
		fprintf(stderr, "crib-restore: %s\n", err.msg);
		plan_free(&plan);
		return 1;
	}
	plan_free(&plan);
	return o.restore.wait ? restore_wait(pid) : 0;
}
