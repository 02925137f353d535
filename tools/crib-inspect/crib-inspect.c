// SPDX-License-Identifier: GPL-2.0-only
/*
 * crib-inspect: read a CRIB snapshot offline, without privileges or BPF.
 * Summary (default), --json, --verify, --hexdump, --diff.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inspect.h"

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
	"  -h, --help           this text\n"
	"\n"
	"Exit status:\n"
	"  0  success; snapshot verified; --diff: no differences\n"
	"  1  --diff: the snapshots differ; --hexdump: nothing dumped at ADDR\n"
	"  2  usage error\n"
	"  3  cannot open or read the input\n"
	"  4  not a snapshot, a newer major version, or an unknown critical record\n"
	"  5  truncated, corrupt or otherwise invalid snapshot\n";

int exit_code_for(enum crib_err code)
{
	switch (code) {
	case CRIB_OK:
		return EXIT_OK;
	case CRIB_E_IO:
	case CRIB_E_NOMEM:
		return EXIT_IO;
	case CRIB_E_MAGIC:
	case CRIB_E_VERSION:
	case CRIB_E_CRITICAL:
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_CORRUPT;
	}
}

void report_error(const char *path, const struct crib_error *err)
{
	fprintf(stderr, "crib-inspect: %s: %s: %s (file offset %" PRIu64, path,
		crib_err_name(err->code), err->msg, err->file_offset);
	if (err->stream_offset != CRIB_OFFSET_NONE)
		fprintf(stderr, ", record stream offset %" PRIu64, err->stream_offset);
	fputs(")\n", stderr);
}

struct crib_reader *open_snapshot(const char *path, int *fd_out, int *exit_code)
{
	struct crib_reader *r;
	struct crib_error err;
	int fd = 0;

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "crib-inspect: %s: %s\n", path, strerror(errno));
			*exit_code = EXIT_IO;
			return NULL;
		}
	}
	r = crib_reader_open(fd, &err);
	if (!r) {
		report_error(path, &err);
		*exit_code = exit_code_for(err.code);
		if (fd)
			close(fd);
		return NULL;
	}
	*fd_out = fd;
	return r;
}

void close_snapshot(struct crib_reader *r, int fd)
{
	crib_reader_close(r);
	if (fd > 0)
		close(fd);
}

bool section_selected(const struct options *o, const struct crib_record *rec)
{
	return section_name_selected(o, rec->info ? rec->info->section : "other");
}

bool section_name_selected(const struct options *o, const char *name)
{
	size_t len = strlen(name);
	const char *p = o->sections;

	if (!p)
		return true;
	while (*p) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == len && !strncmp(p, name, len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

static int run_verify(const char *path)
{
	struct crib_record rec;
	struct crib_reader *r;
	uint64_t records = 0;
	int fd, code, ret;

	r = open_snapshot(path, &fd, &code);
	if (!r)
		return code;
	while ((ret = crib_reader_next(r, &rec)) > 0)
		records++;
	if (ret < 0) {
		report_error(path, crib_reader_error(r));
		code = exit_code_for(crib_reader_error(r)->code);
	} else {
		printf("%s: OK, format %u.%u, %" PRIu64 " records, checksum verified\n", path,
		       crib_reader_header(r)->version_major, crib_reader_header(r)->version_minor,
		       records);
		code = EXIT_OK;
	}
	close_snapshot(r, fd);
	return code;
}

static int run_json(const char *path, const struct options *o)
{
	const struct crib_error *err;
	struct crib_record rec;
	struct crib_reader *r;
	bool first = true;
	int fd, code, ret;

	r = open_snapshot(path, &fd, &code);
	if (!r)
		return code;
	printf("{\"format\":\"crib-snapshot\",\"records\":[");
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (!section_selected(o, &rec))
			continue;
		printf("%s\n", first ? "" : ",");
		crib_json_print_record(stdout, &rec);
		first = false;
	}
	printf("\n],\"status\":");
	if (ret < 0) {
		err = crib_reader_error(r);
		printf("{\"ok\":false,\"error\":");
		crib_json_print_string(stdout, crib_err_name(err->code), strlen(crib_err_name(err->code)));
		printf(",\"message\":");
		crib_json_print_string(stdout, err->msg, strlen(err->msg));
		printf(",\"file_offset\":%" PRIu64 "}}\n", err->file_offset);
		report_error(path, err);
		code = exit_code_for(err->code);
	} else {
		printf("{\"ok\":true}}\n");
		code = EXIT_OK;
	}
	close_snapshot(r, fd);
	return code;
}

static void hexdump_line(uint64_t addr, const uint8_t *p, size_t n)
{
	printf("%016" PRIx64 " ", addr);
	for (size_t i = 0; i < 16; i++) {
		if (i == 8)
			putchar(' ');
		if (i < n)
			printf(" %02x", p[i]);
		else
			printf("   ");
	}
	printf("  |");
	for (size_t i = 0; i < n; i++)
		putchar(p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '.');
	printf("|\n");
}

static int run_hexdump(const char *path, const char *spec, const struct options *o)
{
	static const uint8_t zeros[16];
	unsigned long long addr, len = 256;
	struct crib_record rec;
	struct crib_reader *r;
	uint64_t page_size, shown = 0;
	char *end;
	int fd, code, ret;

	errno = 0;
	addr = strtoull(spec, &end, 0);
	if (*end == ':')
		len = strtoull(end + 1, &end, 0);
	if (errno || *end || !len || addr + len < addr) {
		fprintf(stderr, "crib-inspect: bad --hexdump argument '%s'\n", spec);
		return EXIT_USAGE;
	}
	r = open_snapshot(path, &fd, &code);
	if (!r)
		return code;
	page_size = crib_reader_header(r)->page_size;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		const struct crib_pages *p = &rec.u.pages;
		uint64_t run_end, from, to;

		if (rec.type != CRIB_REC_PAGES || (o->have_pid && p->pid != o->pid))
			continue;
		run_end = p->addr + p->npages * page_size;
		from = addr > p->addr ? addr : p->addr;
		to = addr + len < run_end ? addr + len : run_end;
		if (from >= to)
			continue;
		printf("pid %" PRIu64 ", %s pages at 0x%" PRIx64 ":\n", p->pid,
		       p->data.len ? "dumped" : "zero", p->addr);
		for (uint64_t a = from; a < to; a += 16 - a % 16) {
			size_t n = 16 - a % 16 < to - a ? 16 - a % 16 : to - a;
			const uint8_t *src = p->data.len
				? (const uint8_t *)p->data.data + (a - p->addr) : zeros;

			hexdump_line(a, src, n);
		}
		shown += to - from;
	}
	if (ret < 0) {
		report_error(path, crib_reader_error(r));
		code = exit_code_for(crib_reader_error(r)->code);
	} else if (!shown) {
		fprintf(stderr, "crib-inspect: no dumped memory at 0x%llx\n", addr);
		code = EXIT_NEGATIVE;
	} else {
		code = EXIT_OK;
	}
	close_snapshot(r, fd);
	return code;
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_VERIFY, OPT_SECTION, OPT_HEXDUMP, OPT_PID, OPT_DIFF, OPT_IGNORE };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "section", required_argument, NULL, OPT_SECTION },
		{ "hexdump", required_argument, NULL, OPT_HEXDUMP },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "ignore-volatile", no_argument, NULL, OPT_IGNORE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 0 };
	const char *hexdump = NULL;
	int mode = 0, c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
		case OPT_VERIFY:
		case OPT_DIFF:
			if (mode && mode != c)
				goto usage;
			mode = c;
			break;
		case OPT_HEXDUMP:
			if (mode)
				goto usage;
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
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	if (mode == OPT_DIFF) {
		if (argc - optind != 2)
			goto usage;
		return run_diff(argv[optind], argv[optind + 1], &o);
	}
	if (argc - optind != 1)
		goto usage;
	switch (mode) {
	case OPT_JSON:
		return run_json(argv[optind], &o);
	case OPT_VERIFY:
		return run_verify(argv[optind]);
	case OPT_HEXDUMP:
		return run_hexdump(argv[optind], hexdump, &o);
	default:
		return run_summary(argv[optind], &o);
	}
usage:
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}
