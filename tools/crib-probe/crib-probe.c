// SPDX-License-Identifier: GPL-2.0
/*
 * crib-probe: read the basics of a live process through a CRIB program
 * and print them.  The smallest end-to-end use of the CRIB program type;
 * crib-dump builds on the same pieces.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_probe.h"
#include "crib_probe.skel.h"
#include "probe.h"
#include "version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crib-probe -p PID\n"
		"Read a process's identity, credentials, thread count and address-space\n"
		"size through a CRIB program and print them.\n"
		"\n"
		"  -p, --pid PID   the process to read\n"
		"  -h, --help      this text\n"
		"  -V, --version   the version\n"
		"\n"
		"Exit status (the same table for every CRIB tool):\n"
		"  0  done\n"
		"  1  the process or the kernel could not be read\n"
		"  2  bad usage\n");
}

static void print_basics(const struct crib_task_basics *b)
{
	printf("pid %d tgid %d ppid %d pgid %d sid %d\n",
	       b->pid, b->tgid, b->ppid, b->pgid, b->sid);
	printf("comm %.*s\n", CRIB_COMM_LEN, b->comm);
	printf("uid %u gid %u euid %u egid %u\n", b->uid, b->gid, b->euid, b->egid);
	printf("threads %u\n", b->nr_threads);
	printf("vmas %u total_vm %llu KiB\n", b->map_count,
	       (unsigned long long)b->total_vm_pages * 4);
	printf("start_time %llu ns\n", (unsigned long long)b->start_time_ns);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct crib_task_basics basics;
	char err[256];
	long pid = 0;
	char *end;
	int c, ret;

	while ((c = getopt_long(argc, argv, "p:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > 0x3fffffff) {
				fprintf(stderr, "crib-probe: bad pid '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("crib-probe %s\n", tool_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!pid || optind != argc) {
		usage(stderr);
		return 2;
	}

	ret = crib_probe_task((int)pid, &basics, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "crib-probe: %s\n", err);
		return 1;
	}
	print_basics(&basics);
	return 0;
}
