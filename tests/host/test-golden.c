// SPDX-License-Identifier: GPL-2.0-only
/*
 * Golden files: the committed snapshots in tests/host/golden/ must decode
 * to exactly the record stream the library writes today (byte for byte,
 * after decompression: the compressed bytes may change with zstd), and
 * each must get the same verdict from the reader.
 *
 * Usage: test-golden GOLDEN_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "membuf.h"
#include "sample.h"
#include "tap.h"

static struct tap t;

static uint8_t *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	struct membuf mb = { 0 };
	uint8_t buf[65536];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		membuf_write(&mb, buf, n);
	fclose(f);
	*len = mb.len;
	return mb.data ? mb.data : malloc(1);
}

/* The preamble and every record's raw bytes, concatenated; error code in *code. */
static struct membuf record_stream(const uint8_t *snap, size_t len, enum crib_err *code,
				   uint64_t *records)
{
	struct membuf mb = { 0 };
	struct crib_record rec;
	struct crib_error err;
	struct crib_reader *r = crib_reader_open(-1, MEM_READER(snap, len), &err);
	int ret;

	*records = 0;
	if (!r) {
		*code = err.code;
		return mb;
	}
	membuf_write(&mb, snap, CRIB_PREAMBLE_LEN);
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		membuf_write(&mb, rec.raw, rec.raw_len);
		(*records)++;
	}
	*code = ret ? crib_reader_error(r)->code : CRIB_OK;
	crib_reader_close(r);
	return mb;
}

static void expect(const char *dir, const char *name, enum crib_err want)
{
	enum crib_err code = CRIB_OK;
	uint64_t records;
	struct membuf mb;
	uint8_t *snap;
	size_t len;

	snap = slurp(dir, name, &len);
	if (!tap_check(&t, snap != NULL, "golden %s present", name))
		return;
	mb = record_stream(snap, len, &code, &records);
	tap_check(&t, code == want, "golden %s: %s (got %s)", name, crib_err_name(want),
		  crib_err_name(code));
	free(mb.data);
	free(snap);
}

int main(int argc, char **argv)
{
	enum crib_err code_golden, code_fresh;
	uint64_t rec_golden, rec_fresh;
	struct membuf golden, fresh;
	uint8_t *g, *f;
	size_t glen, flen;

	if (argc != 2) {
		fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
		return 2;
	}
	g = slurp(argv[1], "sample.crib", &glen);
	if (!tap_check(&t, g && sample_to_mem(false, 3, &f, &flen) == 0, "golden sample loaded"))
		return tap_done(&t);
	golden = record_stream(g, glen, &code_golden, &rec_golden);
	fresh = record_stream(f, flen, &code_fresh, &rec_fresh);
	tap_check(&t, code_golden == CRIB_OK && rec_golden == 80,
		  "golden sample.crib reads cleanly, 80 records");
	tap_check(&t, golden.len == fresh.len && !memcmp(golden.data, fresh.data, golden.len),
		  "golden sample.crib: record stream identical to what the writer produces now");
	if (glen == flen && !memcmp(g, f, glen))
		tap_diag("compressed bytes identical too");
	free(golden.data);
	free(fresh.data);
	free(g);
	free(f);

	/* written by the 1.1 writer, before event files: still read */
	expect(argv[1], "sample-1.1.crib", CRIB_OK);
	/* written by the 1.2 writer, before inotify watches: still read */
	expect(argv[1], "sample-1.2.crib", CRIB_OK);
	/* written by the 1.3 writer, before stored pages: still read */
	expect(argv[1], "sample-1.3.crib", CRIB_OK);
	/* written by the 1.4 writer, before time namespace offsets: still read */
	expect(argv[1], "sample-1.4.crib", CRIB_OK);
	/* written by the 1.5 writer, before affinity, timer slack and advice: still read */
	expect(argv[1], "sample-1.5.crib", CRIB_OK);
	/* written by the 1.6 writer, before the 1.7 socket options: still read */
	expect(argv[1], "sample-1.6.crib", CRIB_OK);
	/* written by the 1.7 writer, before seccomp, socket filters, file locks and dump_stats: still read */
	expect(argv[1], "sample-1.7.crib", CRIB_OK);
	/* written by the 1.8 writer, before pidfds and pseudo-terminals: still read */
	expect(argv[1], "sample-1.8.crib", CRIB_OK);
	/* written by the 1.9 writer, before netlink sockets: still read */
	expect(argv[1], "sample-1.9.crib", CRIB_OK);
	/* pages stored in a data frame (1.4) */
	expect(argv[1], "sample-stored.crib", CRIB_OK);
	expect(argv[1], "sample-volatile.crib", CRIB_OK);
	expect(argv[1], "sample-changed.crib", CRIB_OK);
	expect(argv[1], "newer-minor.crib", CRIB_OK);
	expect(argv[1], "newer-major.crib", CRIB_E_VERSION);
	expect(argv[1], "unknown-critical.crib", CRIB_E_CRITICAL);
	expect(argv[1], "truncated.crib", CRIB_E_TRUNCATED);
	expect(argv[1], "corrupt.crib", CRIB_E_ZSTD);
	return tap_done(&t);
}
