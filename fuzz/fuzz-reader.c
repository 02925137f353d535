// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a whole snapshot (preamble, zstd, records) through the
 * streaming reader, each record also printed as JSON, then again with
 * its frames decoded ahead in two threads, which must read the same
 * records to the same end.  Any crash, leak, hang, difference or
 * allocation over -malloc_limit_mb is a bug.  The stream is bounded at
 * FUZZ_MAX_SIZE, so that a bomb (hostile-bomb.crib) costs little and the
 * bound is refused at the same record both ways.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <crib/format.h>

#define FUZZ_MAX_SIZE (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	uint64_t records;
	uint64_t bytes;		/* of the records' encodings and page data */
	enum crib_err code;
};

static void read_all(const uint8_t *data, size_t size, int threads, FILE *sink,
		     struct outcome *o)
{
	CRIB_OPTS(crib_reader_opts, opts, .mem = data, .mem_len = size, .threads = threads,
		  .max_size = FUZZ_MAX_SIZE);
	struct crib_record rec;
	struct crib_reader *r;
	struct crib_error err;
	int ret;

	*o = (struct outcome){ 0 };
	r = crib_reader_open(-1, &opts, &err);
	if (!r) {
		o->code = err.code;
		return;
	}
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		o->records++;
		o->bytes += rec.raw_len;
		if (rec.type == CRIB_REC_PAGES)
			o->bytes += rec.u.pages.data.len;
		if (sink)
			crib_json_print_record(sink, &rec);
	}
	o->code = ret ? crib_reader_error(r)->code : CRIB_OK;
	crib_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct outcome one, ahead;

	if (!sink)
		sink = fopen("/dev/null", "w");
	read_all(data, size, 0, sink, &one);
	read_all(data, size, 2, NULL, &ahead);
	if (one.records != ahead.records || one.bytes != ahead.bytes || one.code != ahead.code)
		abort();
	return 0;
}
