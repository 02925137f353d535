// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: checkpoint a live process and its descendants into a CRIB
 * snapshot.
 *
 *   crib-dump -p PID [-o FILE] [--leave-running] [--pre-copy] [--ghost-limit SIZE] [-v]
 *
 * The processes are frozen for the whole dump and, once the snapshot is
 * complete, killed (or, with --leave-running, let go), all together.
 * With --pre-copy their memory is copied while they still run, and those
 * left running are let go before the pages are written out.  If
 * anything fails they are let go as they were, and a partial FILE is
 * removed.  Processes that are killed leave their TCP connections locked
 * (network.c) for crib-restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crib-dump.h"
#include "exit.h"
#include "output.h"
#include "size.h"
#include "version.h"

struct options {
	pid_t pid;
	const char *output;	/* NULL: stdout */
	bool force;		/* replace an existing output file */
	bool leave_running;
	bool preload;		/* only load and pin the programs */
	bool verbose;
	bool quiet;
	int level;		/* zstd compression level */
	bool fast;		/* pages stored, not compressed */
	bool pre_copy;		/* memory copied before the freeze */
	uint64_t ghost_limit;	/* bytes */
};

#define GHOST_LIMIT_DEFAULT	(1ull << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crib-dump -p PID [-o FILE [-f]] [--leave-running] [--pre-copy]\n"
		"                 [--ghost-limit SIZE] [--fast | --compact [-l N]] [-q] [-v]\n"
		"       crib-dump --preload [-v]\n"
		"Checkpoint a running process and all its descendants into a CRIB\n"
		"snapshot.  They are stopped for the whole dump and killed once the\n"
		"snapshot is complete.\n"
		"\n"
		"  -p, --pid PID       the process to dump (a thread group leader), with its\n"
		"                      children, their children, and so on\n"
		"  -o, --output FILE   write the snapshot to FILE (default: standard output,\n"
		"                      which must not be a terminal); FILE is put in place\n"
		"                      only once the snapshot is complete and on disk\n"
		"  -f, --force         replace FILE if it exists\n"
		"      --leave-running let the processes run on after the dump\n"
		"      --pre-copy      copy their memory while they still run, then only\n"
		"                      what they wrote since once they are stopped; with\n"
		"                      --leave-running they run on before the memory is\n"
		"                      written out.  Holds a copy of it in memory\n"
		"      --ghost-limit SIZE\n"
		"                      carry a file unlinked while open or mapped up to SIZE\n"
		"                      bytes (a suffix K, M or G multiplies by 1024s; default\n"
		"                      1M); a larger one stops the dump.  memfds are carried\n"
		"                      whatever their size\n"
		"      --fast          store memory pages as they are, not compressed: the\n"
		"                      fastest dump where the output is fast (a tmpfs, a\n"
		"                      local disk), as large as the memory\n"
		"      --compact       compress memory pages with zstd too (the default)\n"
		"  -l, --level N       zstd level, -131072 to 19 (default 1): lower is faster,\n"
		"                      higher is smaller\n"
		"      --preload       only load the dump programs and pin them in bpffs\n"
		"                      (" PINS_ROOT "), for the dumps that follow;\n"
		"                      the first dump does the same if they are not there\n"
		"  -q, --quiet         no progress meter\n"
		"  -v, --verbose       say what is dumped, on standard error\n"
		"  -h, --help          this text\n"
		"  -V, --version       the version, and the snapshot format it writes\n"
		"\n"
		"On a terminal, a dump that takes more than a second shows its progress on\n"
		"standard error: the process, the MiB of memory dumped of those to dump,\n"
		"and the rate.\n"
		"\n"
		"Unless the processes are left running, their connected TCP sockets are locked\n"
		"before they are read: nftables (table inet crib) drops their packets both\n"
		"ways, and the lock stays after the process is killed, until crib-restore\n"
		"restores them or 'crib-restore --unlock-network -i FILE' releases it.\n"
		"\n"
		"Exit status (the same table for every CRIB tool):\n"
		"  0  dumped\n"
		"  1  the dump failed (the processes are left running, stopped ones stopped),\n"
		"     or FILE exists (without --force) or cannot be made\n"
		"  2  bad usage, or standard output is a terminal\n");
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_LEAVE_RUNNING = 0x100, OPT_GHOST_LIMIT, OPT_PRELOAD, OPT_FAST, OPT_COMPACT,
	       OPT_PRE_COPY };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "leave-running", no_argument, NULL, OPT_LEAVE_RUNNING },
		{ "ghost-limit", required_argument, NULL, OPT_GHOST_LIMIT },
		{ "preload", no_argument, NULL, OPT_PRELOAD },
		{ "level", required_argument, NULL, 'l' },
		{ "fast", no_argument, NULL, OPT_FAST },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "pre-copy", no_argument, NULL, OPT_PRE_COPY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	char *end;
	long pid, level;
	int c;

	while ((c = getopt_long(argc, argv, "p:o:fl:qvhV", longopts, NULL)) != -1) {
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
		case 'f':
			o->force = true;
			break;
		case OPT_LEAVE_RUNNING:
			o->leave_running = true;
			break;
		case OPT_FAST:
			o->fast = true;
			break;
		case OPT_COMPACT:
			o->fast = false;
			break;
		case OPT_PRE_COPY:
			o->pre_copy = true;
			break;
		case OPT_PRELOAD:
			o->preload = true;
			break;
		case OPT_GHOST_LIMIT:
			if (parse_size(optarg, &o->ghost_limit)) {
				fprintf(stderr, "crib-dump: bad size '%s' for --ghost-limit\n", optarg);
				return 2;
			}
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
		case 'V':
			tool_print_version("crib-dump");
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (o->preload ? o->pid || o->output : !o->pid) {
		fprintf(stderr, "crib-dump: %s\n", o->preload ? "--preload dumps nothing: no -p or -o" :
			"which process? -p PID is required");
		usage(stderr);
		return 2;
	}
	if (optind != argc) {
		fprintf(stderr, "crib-dump: unexpected argument '%s' (the snapshot goes to -o FILE "
			"or standard output)\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

/* Everything read of one process before anything is written. */
static int read_one(struct dump_job *job)
{
	return threads_read(job) || seccomp_read(job) || mm_read(job) || files_read(job) || sockets_read(job) ||
	       signals_read(job) || timers_read(job) ? -1 : 0;
}

/*
 * One process's records, in the order the format lists them; with
 * --pre-copy its pages are kept, to be written after every process.
 */
static int write_one(struct dump_job *job)
{
	if (task_write(job))
		return -1;
	if (job->zombie)
		return 0;
	return threads_write(job) || seccomp_write(job) || mm_write(job) ||
	       (job->kept ? pages_keep(job) : pages_write(job)) || files_write(job) ||
	       sockets_write(job) || signals_write(job) || timers_write(job) ? -1 : 0;
}

/*
 * The pages kept by --pre-copy, process by process, in pre-order: the
 * processes left running were let go before.
 */
static int write_kept(struct dump_tree *tree, bool let_go, struct dump_stats *stats)
{
	struct dump_job *job;
	size_t i;

	if (let_go) {
		tree_release(tree);
		stats_let_go(stats);
		dump_verbose(tree_root(tree), "let go, writing the memory\n");
	}
	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		if (job->kept && pages_write_kept(job))
			return tree_fail_in(tree, job);
	}
	return 0;
}

/*
 * Everything is read and checked before the first record goes out where
 * that is cheap (tasks, VMAs, files), so that an unsupported resource
 * stops the dump before megabytes of memory have been written.  The
 * processes come in pre-order, after what they share.
 */
static int dump_frozen(struct dump_tree *tree, const struct dump_output *out)
{
	struct dump_job *root = tree_root(tree);
	struct dump_clocks clocks;
	size_t i;

	if (task_check(tree) || namespaces_check(tree) || tree_each(tree, read_one) || files_share(tree) ||
	    pidfd_check(tree) || events_share(tree, files_find_desc) || mm_share(tree) ||
	    clocks_read(tree, &clocks))
		return -1;
	stats_phase_done(out->stats, "read");
	stats_count(out->stats, tree);
	if (snapshot_open(root, out, &clocks))
		return tree_fail_in(tree, root);
	for (i = 0; i < tree->procs.n; i++)
		tree->procs.items[i]->writer = root->writer;
	if (mm_write_shared(tree, root->writer) || ghosts_write(tree, root->writer))
		return -1;
	for (i = 0; i < tree->procs.n; i++)
		if (write_one(tree->procs.items[i]))
			return tree_fail_in(tree, tree->procs.items[i]);
	if (out->pre_copy && write_kept(tree, out->let_go_early, out->stats))
		return -1;
	if (stats_write(out->stats, tree, root->writer))
		return -1;
	if (snapshot_close(root))
		return tree_fail_in(tree, root);
	return 0;
}

static int repair_all(struct dump_job *job)
{
	return network_repair(job);
}

static int unlock_all(struct dump_job *job)
{
	network_unlock(job);
	return 0;
}

static int copy_before_freeze(struct precopy *pc, const struct dump_job *model, pid_t root,
			      struct tool_error *err)
{
	if (precopy_tree(pc, root, err))
		return -1;
	dump_verbose(model, "pre-copied %llu KiB of %zu processes\n",
		     (unsigned long long)(pc->bytes >> 10), pc->stores.n);
	return 0;
}

/* Each frozen process gets its store of the pre-copy. */
static int hand_out_stores(struct dump_tree *tree, struct precopy *pc)
{
	struct dump_job *job;
	size_t i;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		if (job->zombie)
			continue;
		job->kept = precopy_take(pc, job->pid);
		if (!job->kept)
			return tool_fail(&tree->err, 0, "out of memory");
	}
	return 0;
}

/* --preload: the programs loaded and pinned, or found pinned already. */
static int preload(const struct options *o)
{
	struct dump_programs progs;
	struct tool_error err = { 0 };
	char origin[256];

	if (programs_load(&progs, &err)) {
		fprintf(stderr, "crib-dump: %s\n", err.msg);
		return 1;
	}
	if (o->verbose)
		fprintf(stderr, "crib-dump: programs %s\n",
			programs_origin(&progs, origin, sizeof(origin)));
	programs_unload(&progs);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .level = CRIB_LEVEL_DEFAULT, .ghost_limit = GHOST_LIMIT_DEFAULT };
	struct dump_tree tree = { 0 };
	struct dump_job model = { 0 };
	struct precopy precopy = { 0 };
	struct dump_stats stats;
	struct progress progress;
	struct dump_file out;
	char origin[256];
	int ret;

	stats_start(&stats);
	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret;
	if (o.preload)
		return preload(&o);
	if (output_open(&out, o.output, o.force, &tree.err)) {
		fprintf(stderr, "crib-dump: %s\n", tree.err.msg);
		return o.output ? TOOL_EXIT_FAILED : TOOL_EXIT_USAGE;
	}
	model.verbose = o.verbose;
	model.lock_network = !o.leave_running;
	model.progress = &progress;
	tree.ghost_limit = o.ghost_limit;
	progress_init(&progress, "crib-dump", o.quiet);

	/* Load the programs first: it is slow, and the processes run meanwhile. */
	ret = programs_load(&model.progs, &tree.err);
	stats_phase_done(&stats, "load");
	if (!ret)
		ret = programs_scope(&model.progs, o.pid, &tree.err);
	if (!ret)
		dump_verbose(&model, "programs %s\n",
			     programs_origin(&model.progs, origin, sizeof(origin)));
	if (!ret && o.pre_copy) {
		ret = copy_before_freeze(&precopy, &model, o.pid, &tree.err);
		stats_phase_done(&stats, "pre-copy");
	}
	stats_frozen(&stats);
	if (!ret)
		ret = tree_freeze(&tree, &model, o.pid);
	if (!ret && o.pre_copy)
		ret = hand_out_stores(&tree, &precopy);
	stats_phase_done(&stats, "freeze");
	precopy_free(&precopy);
	if (!ret) {
		dump_verbose(&model, "stopped %zu processes, from %d down\n", tree.procs.n,
			     (int)o.pid);
		progress_begin(&progress, (unsigned int)tree.procs.n);
		ret = dump_frozen(&tree, &(struct dump_output){
			out.fd, o.level, o.fast, o.pre_copy, o.pre_copy && o.leave_running, &stats });
		progress_end(&progress);
		if (!ret && !o.leave_running)
			ret = tree_each(&tree, repair_all);
		/* On disk before anything is killed. */
		if (!ret)
			ret = output_commit(&out, &tree.err);
		if (ret)
			tree_each(&tree, unlock_all);
		if (ret && tree_gone(&tree)) {
			fprintf(stderr, "crib-dump: a process exited during the dump (%s)\n",
				tree.err.msg);
			tool_error_clear(&tree.err);
		}
	}
	if (!ret && !o.leave_running)
		tree_kill(&tree);
	else
		tree_release(&tree);
	if (tree.procs.n)
		snapshot_abort(tree_root(&tree));
	tree_free(&tree);
	programs_unload(&model.progs);
	if (ret && tool_failed(&tree.err))
		fprintf(stderr, "crib-dump: %s\n", tree.err.msg);
	if (ret)
		output_abort(&out);
	if (!ret)
		dump_verbose(&model, "done; %d and its descendants %s\n", (int)o.pid,
			     o.leave_running ? "left running" : "killed");
	return ret ? 1 : 0;
}
