// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes the golden snapshots of tests/host/golden/ into DIR.  Run by
 * tests/host/update-golden.sh when the format changes on purpose; the
 * golden test then checks that the library still produces the same record
 * stream and that readers still judge each file the same way.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "membuf.h"
#include "rawsnap.h"
#include "sample.h"

static int save(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int write_variant(const char *dir, const char *name, const char *tool_version,
			 uint64_t time_ns, uint64_t uid)
{
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	int ret = -1;

	sample_header(&hdr);
	hdr.tool_version = tool_version;
	hdr.time_ns = time_ns;
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), NULL);
	if (w && !sample_write_uid(w, false, uid) && !crib_writer_close(w, NULL))
		ret = save(dir, name, mb.data, mb.len);
	else if (w)
		crib_writer_abort(w);
	free(mb.data);
	return ret;
}

/*
 * The small sample with a run of 33 pages of the root's heap after it,
 * written with pages stored (1.4): a stored_pages record and its data
 * frame, page-aligned behind a padding frame.
 */
static int write_stored(const char *dir, const char *name)
{
	enum { NPAGES = 33, ADDR = 0x7f0000000000 };
	static uint8_t data[NPAGES * SAMPLE_PAGE_SIZE];
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	int ret = -1;
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = sample_page_byte(ADDR + i / SAMPLE_PAGE_SIZE * SAMPLE_PAGE_SIZE,
					   i % SAMPLE_PAGE_SIZE);
	sample_header(&hdr);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3, .store_bulk = true), NULL);
	if (w && !sample_write(w, false) && !crib_write_pages(w, 101, ADDR, NPAGES, data) &&
	    !crib_writer_close(w, NULL))
		ret = save(dir, name, mb.data, mb.len);
	else if (w)
		crib_writer_abort(w);
	free(mb.data);
	return ret;
}

static int write_raw(const char *dir, const char *name, uint16_t major, uint16_t minor,
		     uint32_t extra_type)
{
	struct crib_buf b;
	struct rawsnap s;
	uint8_t *snap;
	size_t len;
	int ret;

	rawsnap_init(&s, major, minor, true);
	/* A process with a key this version does not know. */
	crib_buf_init(&b, 4096);
	crib_cbor_map(&b, 3);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 42);
	crib_cbor_uint(&b, 6);
	crib_cbor_bytes(&b, "future", 6);
	crib_cbor_uint(&b, 200);
	crib_cbor_text(&b, "new field", 9);
	rawsnap_add(&s, CRIB_REC_PROCESS, &b);
	crib_buf_free(&b);
	if (extra_type) {
		crib_buf_init(&b, 4096);
		crib_cbor_map(&b, 1);
		crib_cbor_uint(&b, 1);
		crib_cbor_bytes(&b, "opaque", 6);
		rawsnap_add(&s, extra_type, &b);
		crib_buf_free(&b);
	}
	snap = rawsnap_finish(&s, 0, 0, &len);
	ret = save(dir, name, snap, len);
	free(snap);
	return ret;
}

int main(int argc, char **argv)
{
	uint8_t *snap;
	size_t len;
	int ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (sample_to_mem(false, 3, &snap, &len))
		return 1;
	ret |= save(argv[1], "sample.crib", snap, len);
	ret |= save(argv[1], "truncated.crib", snap, len / 2);
	snap[len - 6] ^= 0x10;	/* inside the last block or the frame checksum */
	ret |= save(argv[1], "corrupt.crib", snap, len);
	free(snap);
	ret |= write_variant(argv[1], "sample-volatile.crib", "1.0.1", 1700000999000000000ull, 1000);
	ret |= write_variant(argv[1], "sample-changed.crib", "1.0.1", 1700000999000000000ull, 0);
	ret |= write_raw(argv[1], "newer-minor.crib", CRIB_VERSION_MAJOR, CRIB_VERSION_MINOR + 1,
			 0x8abc);
	ret |= write_stored(argv[1], "sample-stored.crib");
	ret |= write_raw(argv[1], "newer-major.crib", 2, 0, 0);
	ret |= write_raw(argv[1], "unknown-critical.crib", 1, 3, 0x0abc);
	return ret ? 1 : 0;
}
