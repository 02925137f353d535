// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a whole snapshot (preamble, zstd, records) through the
 * streaming reader, each record also printed as JSON.  Any crash, leak,
 * hang or allocation over -malloc_limit_mb is a bug.
 */
#include <stdint.h>
#include <stdio.h>

#include <crib/format.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct crib_record rec;
	struct crib_reader *r;
	struct crib_error err;

	if (!sink)
		sink = fopen("/dev/null", "w");
	r = crib_reader_open_mem(data, size, &err);
	if (!r)
		return 0;
	while (crib_reader_next(r, &rec) > 0)
		if (sink)
			crib_json_print_record(sink, &rec);
	crib_reader_close(r);
	return 0;
}
