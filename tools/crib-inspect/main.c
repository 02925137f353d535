// SPDX-License-Identifier: GPL-2.0-only
/*
 * crib-inspect: read a CRIB snapshot offline, without privileges or BPF.
 * This file reads the options and runs the subcommand, each in its own
 * file: the summary (default, summary.c), --json (json.c), --verify
 * (verify.c), --hexdump (hexdump.c), --diff (diff.c), and the views, text
 * or --json (view.c runs them): --ps-tree (pstree.c), --files (files.c),
 * --sockets (sockets.c), --memory (memory.c), --stats (stats.c);
 * inspect.c holds what they share.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "size.h"
#include "version.h"

static const char usage_text[] =
	"Usage: crib-inspect [OPTIONS] SNAPSHOT\n"
	"       crib-inspect --diff [--ignore-volatile] SNAPSHOT_A SNAPSHOT_B\n"
	"Show a CRIB snapshot.  SNAPSHOT may be - for standard input.\n"
	"\n"
	"  (default)            readable summary: header, processes, threads, memory\n"
	"                       map, files, sockets, signals, unknown records\n"
	"  --json               every record as JSON (format in spec/format.md); with\n"
	"                       a view, the view as JSON\n"
	"  --verify             check the whole stream (framing, limits, schema,\n"
	"                       trailer counts and checksum); print only the verdict\n"
	"  --section=LIST       only these sections: meta,proc,mm,files,net,signals,other\n"
	"  --hexdump=ADDR[:LEN] hexdump LEN bytes (default 256) of dumped memory at ADDR\n"
	"  --ps-tree            the process tree: pids, states, threads, commands\n"
	"  --files              one line per descriptor: pid, fd, kind, flags, offset,\n"
	"                       path; shared descriptions marked\n"
	"  --sockets            one line per socket: pid, fd, protocol, state,\n"
	"                       addresses, queues, flags; shared descriptions marked\n"
	"  --memory             per process: mapped, dumped, zero, stored, compressed\n"
	"  --search=STRING      with --memory: the addresses where STRING is\n"
	"  --extract=ADDR[:LEN] with --memory, --pid and -o: write LEN bytes (default a\n"
	"                       page) of the process's memory at ADDR to FILE\n"
	"  -o, --output=FILE    with --extract: a new file, or - for standard output\n"
	"  --stats              how long each phase of the dump took, and how long the\n"
	"                       processes were frozen (format 1.8)\n"
	"  --pid=PID            only this process: with the summary, --json, --hexdump,\n"
	"                       --ps-tree (it and its descendants), --files, --sockets\n"
	"                       and --memory\n"
	"  --diff A B           show what differs between two snapshots\n"
	"  --ignore-volatile    with --diff: ignore volatile fields (spec/format.md)\n"
	"  --max-size=SIZE      refuse a snapshot whose records inflate past SIZE bytes\n"
	"                       (suffix K, M, G or T: powers of 1024; default 1T)\n"
	"  -h, --help           this text\n"
	"  -V, --version        the version, and the newest snapshot format it reads\n"
	"\n"
	"Exit status (the same table for every CRIB tool):\n"
	"  0  success; snapshot verified; --diff: no differences\n"
	"  1  a negative answer: --diff: the snapshots differ; --hexdump, --extract:\n"
	"     nothing dumped there; --search: not found; --pid: no such process;\n"
	"     --stats: no statistics in the snapshot; --extract: FILE exists or\n"
	"     cannot be written\n"
	"  2  usage error\n"
	"  3  cannot open or read the input\n"
	"  4  not a snapshot, a newer major version, or an unknown critical record\n"
	"  5  truncated, corrupt or otherwise invalid snapshot\n";

/* The long options without a short one; a mode is named by its option. */
enum { OPT_JSON = 256, OPT_VERIFY, OPT_SECTION, OPT_HEXDUMP, OPT_PID, OPT_DIFF, OPT_IGNORE,
       OPT_MAX_SIZE, OPT_PS_TREE, OPT_FILES, OPT_SOCKETS, OPT_MEMORY, OPT_STATS, OPT_SEARCH,
       OPT_EXTRACT };

static const char modes_exclusive[] = "--verify, --hexdump, --diff, --ps-tree, --files, "
				      "--sockets, --memory and --stats exclude each other";

/* A usage error: what was wrong, in one line, then the usage. */
static int usage_error(const char *what)
{
	fprintf(stderr, "crib-inspect: %s\n", what);
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

/* The options that apply only in some modes, refused in the others. */
static const char *misplaced_option(int mode, const struct options *o)
{
	if (o->have_pid && (mode == OPT_VERIFY || mode == OPT_DIFF || mode == OPT_STATS))
		return "--pid does not apply to --verify, --diff or --stats";
	if (o->ignore_volatile && mode != OPT_DIFF)
		return "--ignore-volatile applies only to --diff";
	if (o->sections && mode)
		return "--section applies only to the summary and --json";
	if (o->json && (mode == OPT_VERIFY || mode == OPT_HEXDUMP || mode == OPT_DIFF))
		return "--json applies to the records and the views, not to --verify, "
		       "--hexdump or --diff";
	if ((o->search || o->extract) && mode != OPT_MEMORY)
		return "--search and --extract apply only to --memory";
	if (o->search && o->extract)
		return "--search and --extract exclude each other";
	if (o->search && (!*o->search || strlen(o->search) > SEARCH_MAX))
		return "--search takes 1 to 256 bytes";
	if (o->extract && (!o->have_pid || !o->output))
		return "--extract needs --pid (whose memory) and -o FILE (where to)";
	if (o->extract && o->json)
		return "--extract writes bytes, not JSON";
	if (o->output && !o->extract)
		return "-o applies only to --extract";
	return NULL;
}

/* --extract's range, checked before the snapshot is read. */
static const char *bad_extract(const struct options *o)
{
	uint64_t addr, len;

	if (!o->extract)
		return NULL;
	if (parse_range(o->extract, 1, &addr, &len))
		return "bad --extract argument: ADDR[:LEN] expected";
	if (len > EXTRACT_MAX)
		return "--extract takes at most 1G at a time";
	return NULL;
}

static int set_mode(int *mode, int c)
{
	if (*mode && *mode != c)
		return usage_error(modes_exclusive);
	*mode = c;
	return 0;
}

static int run(int mode, const char *path, const char *hexdump, const struct options *o)
{
	switch (mode) {
	case OPT_VERIFY:
		return run_verify(path, o);
	case OPT_HEXDUMP:
		return run_hexdump(path, hexdump, o);
	case OPT_PS_TREE:
		return run_view(path, o, &ps_tree_view);
	case OPT_FILES:
		return run_view(path, o, &files_view);
	case OPT_SOCKETS:
		return run_view(path, o, &sockets_view);
	case OPT_MEMORY:
		return run_view(path, o, o->search ? &memory_search_view :
				o->extract ? &memory_extract_view : &memory_view);
	case OPT_STATS:
		return run_view(path, o, &stats_view);
	default:
		return o->json ? run_json(path, o) : run_summary(path, o);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "section", required_argument, NULL, OPT_SECTION },
		{ "hexdump", required_argument, NULL, OPT_HEXDUMP },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "ignore-volatile", no_argument, NULL, OPT_IGNORE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "ps-tree", no_argument, NULL, OPT_PS_TREE },
		{ "files", no_argument, NULL, OPT_FILES },
		{ "sockets", no_argument, NULL, OPT_SOCKETS },
		{ "memory", no_argument, NULL, OPT_MEMORY },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "search", required_argument, NULL, OPT_SEARCH },
		{ "extract", required_argument, NULL, OPT_EXTRACT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .max_size = CRIB_MAX_SIZE_DEFAULT };
	const char *hexdump = NULL, *why;
	int mode = 0, c;
	char *end;

	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_HEXDUMP:
			hexdump = optarg;
			/* fall through */
		case OPT_VERIFY:
		case OPT_DIFF:
		case OPT_PS_TREE:
		case OPT_FILES:
		case OPT_SOCKETS:
		case OPT_MEMORY:
		case OPT_STATS:
			if (set_mode(&mode, c))
				return EXIT_USAGE;
			break;
		case OPT_SECTION:
			o.sections = optarg;
			break;
		case OPT_PID:
			o.have_pid = true;
			o.pid = strtoull(optarg, &end, 0);
			if (end == optarg || *end)
				return usage_error("--pid takes a number");
			break;
		case OPT_SEARCH:
			o.search = optarg;
			break;
		case OPT_EXTRACT:
			o.extract = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case OPT_IGNORE:
			o.ignore_volatile = true;
			break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o.max_size) || !o.max_size) {
				fprintf(stderr, "crib-inspect: bad size '%s' for --max-size\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'V':
			tool_print_version("crib-inspect");
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	why = misplaced_option(mode, &o);
	if (!why)
		why = bad_extract(&o);
	if (why)
		return usage_error(why);
	if (mode == OPT_DIFF) {
		if (argc - optind != 2)
			return usage_error("--diff compares two snapshots: give both");
		return run_diff(argv[optind], argv[optind + 1], &o);
	}
	if (argc - optind != 1)
		return usage_error(argc == optind ? "no snapshot given (- for standard input)" :
				   "one snapshot at a time (--diff compares two)");
	return run(mode, argv[optind], hexdump, &o);
usage:
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}
