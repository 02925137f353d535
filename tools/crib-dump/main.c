// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: checkpoint a live process into a CRIB snapshot.
 *
 *   crib-dump -p PID [-o FILE] [--leave-running] [-v]
 *
 * The process is frozen for the whole dump and, once the snapshot is
 * complete, killed (or, with --leave-running, let go).  If anything fails
 * it is let go as it was, and a partial FILE is removed.  A process that
 * is killed leaves its TCP connections locked (network.c) for
 * crib-restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crib-dump.h"

struct options {
	pid_t pid;
	const char *output;	/* NULL: stdout */
	bool leave_running;
	bool verbose;
	bool quiet;
	int level;		/* zstd compression level */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crib-dump -p PID [-o FILE] [--leave-running] [-l N] [-q] [-v]\n"
		"Checkpoint a running process into a CRIB snapshot.  The process is\n"
		"stopped for the whole dump and killed once the snapshot is complete.\n"
		"\n"
		"  -p, --pid PID       the process to dump (a thread group leader)\n"
		"  -o, --output FILE   write the snapshot to FILE (default: standard output,\n"
		"                      which must not be a terminal)\n"
		"      --leave-running let the process run on after the dump\n"
		"  -l, --level N       zstd level, -131072 to 19 (default 3): lower is faster,\n"
		"                      higher is smaller\n"
		"  -q, --quiet         no progress meter\n"
		"  -v, --verbose       say what is dumped, on standard error\n"
		"  -h, --help          this text\n"
		"\n"
		"On a terminal, a dump that takes more than a second shows its progress on\n"
		"standard error: the process, the MiB of memory dumped of those to dump,\n"
		"and the rate.\n"
		"\n"
		"Unless the process is left running, its connected TCP sockets are locked\n"
		"before they are read: nftables (table inet crib) drops their packets both\n"
		"ways, and the lock stays after the process is killed, until crib-restore\n"
		"restores them or 'crib-restore --unlock-network -i FILE' releases it.\n"
		"\n"
		"Exit status: 0 dumped, 1 the dump failed (the process is left running),\n"
		"2 bad usage.\n");
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_LEAVE_RUNNING = 0x100 };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "leave-running", no_argument, NULL, OPT_LEAVE_RUNNING },
		{ "level", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	long pid, level;
	int c;

	while ((c = getopt_long(argc, argv, "p:o:l:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > 0x3fffffff) {
				fprintf(stderr, "crib-dump: bad pid '%s'\n", optarg);
				return 2;
			}
			o->pid = (pid_t)pid;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_LEAVE_RUNNING:
			o->leave_running = true;
			break;
		case 'l':
			errno = 0;
			level = strtol(optarg, &end, 10);
			if (errno || *end || level < -131072 || level > CRIB_LEVEL_MAX) {
				fprintf(stderr, "crib-dump: bad level '%s' (-131072 to %d)\n", optarg,
					CRIB_LEVEL_MAX);
				return 2;
			}
			o->level = (int)level;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o->pid || optind != argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

static int open_output(const struct options *o)
{
	int fd;

	if (!o->output) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "crib-dump: refusing to write a snapshot to a terminal; use -o FILE or a redirection\n");
			return -1;
		}
		return STDOUT_FILENO;
	}
	fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		fprintf(stderr, "crib-dump: cannot create %s: %s\n", o->output, strerror(errno));
	return fd;
}

/*
 * Everything is read and checked before the first record goes out where
 * that is cheap (task, VMAs, files), so that an unsupported resource stops
 * the dump before megabytes of memory have been written.
 */
static int dump_frozen(struct dump_job *job, int out_fd, int level)
{
	if (task_read(job) || mm_read(job) || files_read(job) || sockets_read(job) ||
	    signals_read(job) || timers_read(job))
		return -1;
	if (snapshot_open(job, out_fd, level))
		return -1;
	if (task_write(job) || threads_write(job) || mm_write(job) || pages_write(job) ||
	    files_write(job) || sockets_write(job) || signals_write(job) || timers_write(job))
		return -1;
	return snapshot_close(job);
}

int main(int argc, char **argv)
{
	struct options o = { .level = CRIB_LEVEL_DEFAULT };
	struct dump_job job = { 0 };
	int out_fd, ret;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret;
	out_fd = open_output(&o);
	if (out_fd < 0)
		return o.output ? 1 : 2;
	job.pid = o.pid;
	job.verbose = o.verbose;
	job.lock_network = !o.leave_running;
	progress_init(&job.progress, "crib-dump", o.quiet);

	/* Load the programs first: it is slow, and the process runs meanwhile. */
	ret = programs_load(&job.progs, &job.err);
	if (!ret)
		ret = freeze_process(&job.freezer, job.pid, &job.err);
	if (!ret) {
		dump_verbose(&job, "stopped %zu threads of %d\n", job.freezer.threads.n,
			     (int)job.pid);
		progress_begin(&job.progress, 1);
		progress_process(&job.progress, 1, 0);
		ret = dump_frozen(&job, out_fd, o.level);
		progress_end(&job.progress);
		if (!ret && !o.leave_running)
			ret = network_repair(&job);
		if (ret)
			network_unlock(&job);
		if (ret && freeze_process_gone(&job.freezer)) {
			fprintf(stderr, "crib-dump: process %d exited during the dump (%s)\n",
				(int)job.pid, job.err.msg);
			tool_error_clear(&job.err);
		}
		if (!ret && !o.leave_running)
			freeze_kill(&job.freezer);
		else
			freeze_release(&job.freezer);
	}
	snapshot_abort(&job);
	network_free(&job);
	sockets_free(&job);
	timers_free(&job);
	signals_free(&job);
	files_free(&job);
	mm_free(&job);
	programs_unload(&job.progs);
	if (ret && tool_failed(&job.err))
		fprintf(stderr, "crib-dump: %s\n", job.err.msg);
	if (o.output) {
		if (close(out_fd) && !ret) {
			fprintf(stderr, "crib-dump: closing %s: %s\n", o.output, strerror(errno));
			ret = -1;
		}
		if (ret)
			unlink(o.output);
	}
	if (!ret)
		dump_verbose(&job, "done; process %d %s\n", (int)job.pid,
			     o.leave_running ? "left running" : "killed");
	return ret ? 1 : 0;
}
