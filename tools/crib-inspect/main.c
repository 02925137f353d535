// SPDX-License-Identifier: GPL-2.0-only
/*
 * crib-inspect: read a CRIB snapshot offline, without privileges or BPF.
 * This file reads the options and runs the subcommand, each in its own
 * file: the summary (default, summary.c), --json (json.c), --verify
 * (verify.c), --hexdump (hexdump.c), --diff (diff.c); inspect.c holds
 * what they share.
 */
#include <getopt.h>
#include <stdlib.h>

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
	"  --json               every record as JSON (format in spec/format.md)\n"
	"  --verify             check the whole stream (framing, limits, schema,\n"
	"                       trailer counts and checksum); print only the verdict\n"
	"  --section=LIST       only these sections: meta,proc,mm,files,net,signals,other\n"
	"  --hexdump=ADDR[:LEN] hexdump LEN bytes (default 256) of dumped memory at ADDR\n"
	"  --pid=PID            with --hexdump: only this process\n"
	"  --diff A B           show what differs between two snapshots\n"
	"  --ignore-volatile    with --diff: ignore volatile fields (spec/format.md)\n"
	"  --max-size=SIZE      refuse a snapshot whose records inflate past SIZE bytes\n"
	"                       (suffix K, M, G or T: powers of 1024; default 1T)\n"
	"  -h, --help           this text\n"
	"  -V, --version        the version, and the newest snapshot format it reads\n"
	"\n"
	"Exit status:\n"
	"  0  success; snapshot verified; --diff: no differences\n"
	"  1  --diff: the snapshots differ; --hexdump: nothing dumped at ADDR\n"
	"  2  usage error\n"
	"  3  cannot open or read the input\n"
	"  4  not a snapshot, a newer major version, or an unknown critical record\n"
	"  5  truncated, corrupt or otherwise invalid snapshot\n";

/* The long options without a short one; a mode is named by its option. */
enum { OPT_JSON = 256, OPT_VERIFY, OPT_SECTION, OPT_HEXDUMP, OPT_PID, OPT_DIFF, OPT_IGNORE,
       OPT_MAX_SIZE };

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
	if (o->have_pid && mode != OPT_HEXDUMP)
		return "--pid applies only to --hexdump";
	if (o->ignore_volatile && mode != OPT_DIFF)
		return "--ignore-volatile applies only to --diff";
	if (o->sections && mode && mode != OPT_JSON)
		return "--section applies only to the summary and --json";
	return NULL;
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .max_size = CRIB_MAX_SIZE_DEFAULT };
	const char *hexdump = NULL, *why;
	int mode = 0, c;

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
		case OPT_VERIFY:
		case OPT_DIFF:
			if (mode && mode != c)
				return usage_error("--json, --verify, --hexdump and --diff exclude each other");
			mode = c;
			break;
		case OPT_HEXDUMP:
			if (mode)
				return usage_error("--json, --verify, --hexdump and --diff exclude each other");
			mode = c;
			hexdump = optarg;
			break;
		case OPT_SECTION:
			o.sections = optarg;
			break;
		case OPT_PID:
			o.have_pid = true;
			o.pid = strtoull(optarg, NULL, 0);
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
	switch (mode) {
	case OPT_JSON:
		return run_json(argv[optind], &o);
	case OPT_VERIFY:
		return run_verify(argv[optind], &o);
	case OPT_HEXDUMP:
		return run_hexdump(argv[optind], hexdump, &o);
	default:
		return run_summary(argv[optind], &o);
	}
usage:
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}
