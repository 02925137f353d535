// SPDX-License-Identifier: GPL-2.0-only
/*
 * --hexdump=ADDR[:LEN]: the dumped memory at ADDR, from the pages records
 * that hold it (a zero run as zeros), in hexdump -C's layout.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "inspect.h"

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

int run_hexdump(const char *path, const char *spec, const struct options *o)
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
	r = open_snapshot(path, o, &fd, &code, NULL);
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
