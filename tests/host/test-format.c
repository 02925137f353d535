// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit and round-trip tests of the format library: checksum, CBOR plumbing,
 * writer and reader, every record type, and hand-built hostile records that
 * must each be refused with the right error.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <zstd.h>

#include "membuf.h"
#include "rawsnap.h"
#include "sample.h"
#include "tap.h"

static struct tap t;

/* ---- xxh64 ---- */

static void test_xxh64(void)
{
	static uint8_t data[1000];
	bool all_ok = true;

	tap_check(&t, crib_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull, "xxh64 of the empty string");
	tap_check(&t, crib_xxh64("a", 1, 0) == 0xD24EC4F1A98C6E5Bull, "xxh64 of \"a\"");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 31 + 7);
	/* zstd's frame checksum is the low 32 bits of XXH64 (seed 0) of the content. */
	for (size_t len = 0; len < sizeof(data); len += 37) {
		uint8_t frame[2048];
		size_t n = 0;
		ZSTD_CCtx *c = ZSTD_createCCtx();
		uint32_t want;
		struct crib_xxh64 s;

		ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
		n = ZSTD_compress2(c, frame, sizeof(frame), data, len);
		ZSTD_freeCCtx(c);
		want = (uint32_t)frame[n - 4] | (uint32_t)frame[n - 3] << 8 |
		       (uint32_t)frame[n - 2] << 16 | (uint32_t)frame[n - 1] << 24;
		if ((uint32_t)crib_xxh64(data, len, 0) != want)
			all_ok = false;
		/* Streaming in odd pieces gives the same digest. */
		crib_xxh64_init(&s, 0);
		for (size_t i = 0; i < len; i += 5)
			crib_xxh64_update(&s, data + i, len - i < 5 ? len - i : 5);
		if (crib_xxh64_digest(&s) != crib_xxh64(data, len, 0))
			all_ok = false;
	}
	tap_check(&t, all_ok, "xxh64 matches zstd frame checksums, streamed and one-shot");
}

/* ---- CBOR plumbing ---- */

static void test_utf8(void)
{
	tap_check(&t, crib_utf8_valid((const uint8_t *)"h\xc3\xa9llo \xe2\x82\xac", 10),
		  "utf8: valid text accepted");
	tap_check(&t, !crib_utf8_valid((const uint8_t *)"\xff", 1), "utf8: 0xff refused");
	tap_check(&t, !crib_utf8_valid((const uint8_t *)"\xc0\x80", 2), "utf8: overlong refused");
	tap_check(&t, !crib_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3),
		  "utf8: surrogate refused");
	tap_check(&t, !crib_utf8_valid((const uint8_t *)"\xe2\x82", 2), "utf8: truncated refused");
}

static enum crib_skim_status skim(const uint8_t *buf, size_t len, struct crib_error *err)
{
	struct crib_skim s;
	size_t need;

	crib_skim_reset(&s);
	return crib_skim_step(&s, buf, len, &need, err, 0);
}

static void test_skim(void)
{
	struct crib_error err;
	uint8_t deep[32];
	size_t n = 0;

	/* [1, {1: 2}] */
	static const uint8_t good[] = { 0x82, 0x01, 0xa1, 0x01, 0x02 };
	static const uint8_t keys_down[] = { 0x82, 0x01, 0xa2, 0x02, 0x00, 0x01, 0x00 };
	static const uint8_t dup_keys[] = { 0x82, 0x01, 0xa2, 0x01, 0x00, 0x01, 0x00 };
	static const uint8_t text_key[] = { 0x82, 0x01, 0xa1, 0x61, 'a', 0x00 };
	static const uint8_t indef[] = { 0x82, 0x01, 0xbf, 0xff };
	static const uint8_t tag[] = { 0x82, 0x01, 0xa1, 0x01, 0xc1, 0x00 };
	static const uint8_t flt[] = { 0x82, 0x01, 0xa1, 0x01, 0xf9, 0x3c, 0x00 };
	static const uint8_t simple[] = { 0x82, 0x01, 0xa1, 0x01, 0xf8, 0x20 };
	static const uint8_t big_map[] = { 0x82, 0x01, 0xba, 0x7f, 0xff, 0xff, 0xff };
	static const uint8_t big_bytes[] = { 0x82, 0x01, 0xa1, 0x01, 0x5b,
					     0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfa };
	static const uint8_t wrap_bytes[] = { 0x82, 0x01, 0xa1, 0x01, 0x5b,
					      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfa };
	static const uint8_t not_array[] = { 0xa0 };
	static const uint8_t three[] = { 0x83, 0x01, 0xa0, 0x00 };

	tap_check(&t, skim(good, sizeof(good), &err) == CRIB_SKIM_DONE, "skim: plain record");
	tap_check(&t, skim(good, 3, &err) == CRIB_SKIM_NEED, "skim: short record needs more");
	tap_check(&t, skim(keys_down, sizeof(keys_down), &err) == CRIB_SKIM_ERROR &&
		  err.code == CRIB_E_CBOR, "skim: descending keys refused");
	tap_check(&t, skim(dup_keys, sizeof(dup_keys), &err) == CRIB_SKIM_ERROR,
		  "skim: duplicate keys refused");
	tap_check(&t, skim(text_key, sizeof(text_key), &err) == CRIB_SKIM_ERROR,
		  "skim: text key refused");
	tap_check(&t, skim(indef, sizeof(indef), &err) == CRIB_SKIM_ERROR,
		  "skim: indefinite-length map refused");
	tap_check(&t, skim(tag, sizeof(tag), &err) == CRIB_SKIM_ERROR, "skim: tag refused");
	tap_check(&t, skim(flt, sizeof(flt), &err) == CRIB_SKIM_ERROR, "skim: float refused");
	tap_check(&t, skim(simple, sizeof(simple), &err) == CRIB_SKIM_ERROR,
		  "skim: simple value refused");
	tap_check(&t, skim(big_map, sizeof(big_map), &err) == CRIB_SKIM_ERROR &&
		  err.code == CRIB_E_LIMIT, "skim: 2^31-entry map refused before any allocation");
	tap_check(&t, skim(big_bytes, sizeof(big_bytes), &err) == CRIB_SKIM_ERROR &&
		  err.code == CRIB_E_LIMIT, "skim: 2^63-byte string refused");
	tap_check(&t, skim(wrap_bytes, sizeof(wrap_bytes), &err) == CRIB_SKIM_ERROR,
		  "skim: byte string length that wraps size_t refused");
	tap_check(&t, skim(not_array, sizeof(not_array), &err) == CRIB_SKIM_ERROR,
		  "skim: record that is not an array refused");
	tap_check(&t, skim(three, sizeof(three), &err) == CRIB_SKIM_ERROR,
		  "skim: record array of three refused");

	deep[n++] = 0x82;
	deep[n++] = 0x01;
	for (int i = 0; i < 10; i++)
		deep[n++] = 0x81;
	deep[n++] = 0x00;
	tap_check(&t, skim(deep, n, &err) == CRIB_SKIM_ERROR && err.code == CRIB_E_LIMIT,
		  "skim: nesting over the depth limit refused");
}

static void test_arena(void)
{
	struct crib_arena a = { 0 };
	bool ok = true;

	for (int i = 0; i < 100; i++)
		ok &= crib_arena_alloc(&a, 1000) != NULL;
	tap_check(&t, ok, "arena: small allocations");
	tap_check(&t, crib_arena_alloc(&a, CRIB_LIMIT_DECODED) == NULL,
		  "arena: refuses to exceed the decoded-record limit");
	crib_arena_reset(&a);
	tap_check(&t, crib_arena_alloc(&a, CRIB_LIMIT_DECODED / 2) != NULL,
		  "arena: usable again after reset");
	crib_arena_free(&a);
}

static void test_schema_tables(void)
{
	size_t n;
	const struct crib_record_info *types = crib_record_types(&n);
	bool sorted = true, fields_ok = true;

	for (size_t i = 0; i < n; i++) {
		const struct crib_struct_desc *d = types[i].body;

		if (i && types[i - 1].type >= types[i].type)
			sorted = false;
		if (d->nfields > 64)
			fields_ok = false;
		for (size_t k = 1; k < d->nfields; k++)
			if (d->fields[k - 1].key >= d->fields[k].key)
				fields_ok = false;
	}
	tap_check(&t, sorted, "registry: sorted by type, no duplicates");
	tap_check(&t, fields_ok, "registry: fields ascending by key, at most 64 per struct");
	tap_check(&t, crib_record_info_by_type(CRIB_REC_PAGES) &&
		  !strcmp(crib_record_info_by_type(CRIB_REC_PAGES)->name, "pages"),
		  "registry: lookup by type");
	tap_check(&t, crib_record_is_critical(CRIB_REC_PROCESS) &&
		  !crib_record_is_critical(CRIB_REC_NOTE), "registry: critical bit");
}

/* ---- round trip ---- */

/* Re-encode a decoded record: canonical encoding makes it byte-identical. */
static bool reencodes(const struct crib_record *rec)
{
	struct crib_buf b;
	bool same;

	crib_buf_init(&b, CRIB_LIMIT_RECORD);
	crib_cbor_array(&b, 2);
	crib_cbor_uint(&b, rec->type);
	crib_encode_struct(&b, rec->info->body, &rec->u, NULL);
	same = b.len == rec->raw_len && !memcmp(b.data, rec->raw, b.len);
	crib_buf_free(&b);
	return same;
}

static void test_roundtrip(bool big)
{
	uint64_t seen[0x10000] = { 0 };
	bool reenc = true, pages_ok = true, counts_ok = true;
	struct crib_record rec;
	struct crib_reader *r;
	struct crib_error err;
	uint8_t *snap;
	size_t len, n;
	int ret;
	const struct crib_record_info *types = crib_record_types(&n);

	if (!tap_check(&t, sample_to_mem(big, 3, &snap, &len) == 0, "roundtrip%s: write sample",
		       big ? " (big)" : ""))
		return;
	r = crib_reader_open(-1, MEM_READER(snap, len), &err);
	tap_check(&t, r != NULL, "roundtrip: open");
	if (!r)
		goto out;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		seen[rec.type]++;
		if (rec.info && rec.type != CRIB_REC_HEADER && rec.type != CRIB_REC_TRAILER &&
		    !reencodes(&rec)) {
			reenc = false;
			tap_diag("record %s at %" PRIu64 " does not re-encode", rec.info->name,
				 rec.offset);
		}
		if (rec.type == CRIB_REC_PAGES && rec.u.pages.data.len) {
			const uint8_t *d = rec.u.pages.data.data;

			for (size_t i = 0; i < rec.u.pages.data.len; i++) {
				uint64_t page = rec.u.pages.addr + (i / SAMPLE_PAGE_SIZE) * SAMPLE_PAGE_SIZE;

				if (d[i] != sample_page_byte(page, i % SAMPLE_PAGE_SIZE)) {
					pages_ok = false;
					break;
				}
			}
		}
		if (rec.type == CRIB_REC_PROCESS && rec.u.process.pid == 100) {
			const struct crib_process *p = &rec.u.process;

			tap_check(&t, !strcmp(p->comm, "sample") && p->nice == -5 &&
				  p->n_groups == 4 && p->groups[3] == 1000 && p->n_rlimits == 2 &&
				  p->rlimits[0].max == UINT64_MAX && p->no_new_privs &&
				  !strcmp(p->cwd, "/home/user"), "roundtrip: process fields");
		}
		if (rec.type == CRIB_REC_FILE && rec.u.file.fd == 3)
			tap_check(&t, !strcmp(rec.u.file.path, "/tmp/data \xff.bin") &&
				  rec.u.file.cloexec && rec.u.file.pos == 4096,
				  "roundtrip: non-UTF-8 path kept as bytes");
		if (rec.type == CRIB_REC_SOCKET_QUEUE && rec.u.socket_queue.sock_id == 6161)
			tap_check(&t, rec.u.socket_queue.n_chunks == 2 &&
				  rec.u.socket_queue.chunks[0].src.addr.len == 7 &&
				  !memcmp(rec.u.socket_queue.chunks[1].data.data, "hello", 5),
				  "roundtrip: datagrams with source addresses");
		if (rec.type == SAMPLE_UNKNOWN_ANCILLARY)
			tap_check(&t, rec.info == NULL && rec.raw_len > 0,
				  "roundtrip: unknown ancillary record returned opaque");
		if (rec.type == CRIB_REC_THREAD && rec.u.thread.tid == 102)
			tap_check(&t, rec.u.thread.own_creds && rec.u.thread.creds.euid == 2000 &&
				  rec.u.thread.creds.cap_bnd == 0x1ffffffffffull,
				  "roundtrip: a thread's own credentials");
		if (rec.type == CRIB_REC_THREAD && rec.u.thread.tid == 102)
			tap_check(&t, rec.u.thread.securebits == 0x30 &&
				  rec.u.thread.ioprio == (2 << 13 | 7) &&
				  rec.u.thread.spec_store_bypass == 16 &&
				  rec.u.thread.spec_indirect_branch == 8,
				  "roundtrip: a thread's securebits, I/O priority and speculation "
				  "controls");
		if (rec.type == CRIB_REC_PROCESS && rec.u.process.pid == 100)
			tap_check(&t, rec.u.process.sched_reset_on_fork &&
				  rec.u.process.membarrier == 16,
				  "roundtrip: SCHED_RESET_ON_FORK and membarrier registrations");
		if (rec.type == CRIB_REC_PROCESS && rec.u.process.pid == 103)
			tap_check(&t, rec.u.process.zombie && rec.u.process.exit_status == 0x300 &&
				  rec.u.process.ppid == 101, "roundtrip: a zombie and its status");
		if (rec.type == CRIB_REC_INOTIFY_WATCH && rec.u.inotify_watch.wd == 3)
			tap_check(&t, rec.u.inotify_watch.fd == 14 &&
				  rec.u.inotify_watch.mask == 0x80000002 &&
				  !strcmp(rec.u.inotify_watch.path, "/etc/sample.conf") &&
				  rec.u.inotify_watch.inode == 881, "roundtrip: an inotify watch");
		if (rec.type == CRIB_REC_SECCOMP && rec.u.seccomp.tid == 102)
			tap_check(&t, rec.u.seccomp.mode == CRIB_SECCOMP_FILTER &&
				  rec.u.seccomp.n_filters == 2 && rec.u.seccomp.filters[0] == 1 &&
				  rec.u.seccomp.filters[1] == 2, "roundtrip: a thread's seccomp filters");
		if (rec.type == CRIB_REC_SECCOMP_FILTER && rec.u.seccomp_filter.filter_id == 2)
			tap_check(&t, !rec.u.seccomp_filter.log && rec.u.seccomp_filter.insns.len == 32,
				  "roundtrip: a seccomp filter");
		if (rec.type == CRIB_REC_FILE_LOCK && rec.u.file_lock.kind == CRIB_LOCK_OFD)
			tap_check(&t, rec.u.file_lock.pid == 100 && rec.u.file_lock.fd == 13 &&
				  rec.u.file_lock.type == CRIB_LOCK_WRITE &&
				  rec.u.file_lock.start == 10 && rec.u.file_lock.len == 20,
				  "roundtrip: an OFD lock");
		if (rec.type == CRIB_REC_PIDFD && rec.u.pidfd.fd == 15)
			tap_check(&t, rec.u.pidfd.pid == 100 && rec.u.pidfd.target == 101 &&
				  !rec.u.pidfd.dead && !rec.u.pidfd.thread, "roundtrip: a pidfd of a child");
		if (rec.type == CRIB_REC_PIDFD && rec.u.pidfd.fd == 16)
			tap_check(&t, rec.u.pidfd.dead && !rec.u.pidfd.target,
				  "roundtrip: a pidfd of a reaped process");
		if (rec.type == CRIB_REC_TTY && rec.u.tty.end == CRIB_TTY_SLAVE)
			tap_check(&t, rec.u.tty.pid == 101 && rec.u.tty.fd == 6 &&
				  rec.u.tty.tty_id == 1 && rec.u.tty.cc.len == CRIB_TTY_NCCS &&
				  ((const uint8_t *)rec.u.tty.cc.data)[2] == 127 && rec.u.tty.rows == 40 &&
				  rec.u.tty.cols == 132 && rec.u.tty.packet && !rec.u.tty.locked &&
				  rec.u.tty.sid == 100 && rec.u.tty.fg_pgrp == 101,
				  "roundtrip: a pseudo-terminal slave");
		if (rec.type == CRIB_REC_SOCKET && rec.u.socket.family == 16)
			tap_check(&t, rec.u.socket.fd == 18 && rec.u.socket.local.port == 4242 &&
				  rec.u.socket.peer.family == 16 && rec.u.socket.peer.group == 1 &&
				  rec.u.socket.n_options == 2 && rec.u.socket.options[0].level == 270,
				  "roundtrip: a netlink socket, its port id, group and options");
		if (rec.type == CRIB_REC_SHMEM)
			tap_check(&t, rec.u.shmem.shmem_id == 1 &&
				  rec.u.shmem.size == 2 * SAMPLE_PAGE_SIZE, "roundtrip: shmem record");
		if (rec.type == CRIB_REC_TRAILER)
			tap_check(&t, rec.u.trailer.n_counts == 29, "roundtrip: trailer lists 29 types");
	}
	tap_check(&t, ret == 0, "roundtrip: stream ends cleanly (%s)",
		  ret ? crib_reader_error(r)->msg : "ok");
	tap_check(&t, reenc, "roundtrip: every record re-encodes byte for byte");
	tap_check(&t, pages_ok, "roundtrip: page contents intact");
	for (size_t i = 0; i < n; i++) {
		uint64_t want = types[i].type == CRIB_REC_TRAILER ? 1 : sample_count(types[i].type, big);

		if (types[i].type == CRIB_REC_STORED_PAGES)
			continue;	/* read as pages: see test_stored() */

		if (seen[types[i].type] != want || !want) {
			counts_ok = false;
			tap_diag("type %s: %" PRIu64 " records, expected %" PRIu64, types[i].name,
				 seen[types[i].type], want);
		}
	}
	tap_check(&t, counts_ok, "roundtrip: every record type present, with the right count");
	tap_check(&t, crib_reader_mem_peak(r) < 4u * CRIB_LIMIT_RECORD,
		  "roundtrip: reader memory %zu bytes", crib_reader_mem_peak(r));
	crib_reader_close(r);
out:
	free(snap);
}

/* Writer -> pipe -> reader in another thread: nothing seeks. */
struct pipe_reader {
	int fd;
	uint64_t records;
	int ret;
	char msg[256];
};

static void *pipe_reader_main(void *arg)
{
	struct pipe_reader *pr = arg;
	struct crib_record rec;
	struct crib_error err;
	struct crib_reader *r = crib_reader_open(pr->fd, NULL, &err);

	if (!r) {
		pr->ret = -1;
		snprintf(pr->msg, sizeof(pr->msg), "%s", err.msg);
		return NULL;
	}
	while ((pr->ret = crib_reader_next(r, &rec)) > 0)
		pr->records++;
	if (pr->ret < 0)
		snprintf(pr->msg, sizeof(pr->msg), "%s", crib_reader_error(r)->msg);
	crib_reader_close(r);
	return NULL;
}

/* The big sample's pages read back from @snap are the ones written; -1: unreadable. */
static int stored_pages_check(const uint8_t *snap, size_t len, uint64_t *records)
{
	struct crib_record rec;
	struct crib_reader *r = crib_reader_open(-1, MEM_READER(snap, len), NULL);
	const uint8_t *d;
	uint64_t page;
	int ret, bad = 0;
	size_t i;

	if (!r)
		return -1;
	*records = 0;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		(*records)++;
		if (rec.type != CRIB_REC_PAGES)
			continue;
		d = rec.u.pages.data.data;
		for (i = 0; i < rec.u.pages.data.len; i++) {
			page = rec.u.pages.addr + (i / SAMPLE_PAGE_SIZE) * SAMPLE_PAGE_SIZE;
			bad |= d[i] != sample_page_byte(page, i % SAMPLE_PAGE_SIZE);
		}
	}
	crib_reader_close(r);
	return ret < 0 ? -1 : bad;
}

/*
 * Frames of the compressed section; of those the data frames, and how
 * many of them start their data on a page boundary of the snapshot.
 */
static void count_frames(const uint8_t *snap, size_t len, int *frames, int *stored,
			 int *aligned)
{
	size_t off = 16, n;
	uint32_t magic;

	*frames = *stored = *aligned = 0;
	while (off + 4 <= len) {
		n = ZSTD_findFrameCompressedSize(snap + off, len - off);
		if (ZSTD_isError(n))
			break;
		memcpy(&magic, snap + off, 4);
		(*frames)++;
		if (magic == CRIB_FRAME_DATA_MAGIC) {
			(*stored)++;
			*aligned += (off + CRIB_FRAME_HEADER_LEN) % SAMPLE_PAGE_SIZE == 0;
		}
		off += n;
	}
}

/* 0 when the file @fd holds the very bytes of @expect, else -1. */
static int file_differs(int fd, const struct membuf *expect)
{
	off_t len = lseek(fd, 0, SEEK_END);
	uint8_t *got = len > 0 ? malloc((size_t)len) : NULL;
	int ret = -1;

	if (got && pread(fd, got, (size_t)len, 0) == len && (size_t)len == expect->len &&
	    !memcmp(got, expect->data, expect->len))
		ret = 0;
	free(got);
	return ret;
}

/* Into a regular file (the splice() path): the very bytes of @expect. */
static void test_stored_file(const struct membuf *expect)
{
	char path[] = "/tmp/crib-test-stored-XXXXXX";
	struct crib_header hdr;
	struct crib_writer *w;
	int fd = mkstemp(path), ret = -1;

	if (fd < 0)
		goto out;
	unlink(path);
	sample_header(&hdr);
	w = crib_writer_open(fd, &hdr, WRITER_OPTS(.level = 1, .store_bulk = true), NULL);
	ret = w ? sample_write(w, true) : -1;
	ret |= crib_writer_close(w, NULL);
	ret |= file_differs(fd, expect);
out:
	tap_check(&t, ret == 0, "stored: into a regular file, through splice(), the very bytes "
		  "written to a memory sink");
	if (fd >= 0)
		close(fd);
}

/* Two runs of 64 pages, stored: as the writer should write them, and their data. */
#define GAP_PAGES	64

static int write_two_runs(struct crib_writer *w, uint8_t *const data[2])
{
	return crib_write_pages(w, 1, 0x100000, GAP_PAGES, data[0]) ||
	       crib_write_pages(w, 1, 0x200000, GAP_PAGES, data[1]);
}

/*
 * Gaps left to the caller (crib_writer_leave_gaps()): the file has holes
 * where the data goes, and the caller takes them in order; written there
 * afterwards, last first, it is the very bytes a memory sink gets.  A
 * memory sink cannot leave gaps.
 */
static void test_stored_gaps(void)
{
	char path[] = "/tmp/crib-test-gaps-XXXXXX";
	struct membuf mb = { 0 }, expect = { 0 };
	struct crib_gap gaps[4];
	uint8_t *data[2];
	struct crib_header hdr;
	struct crib_writer *w;
	int fd = mkstemp(path), ret = -1, i;
	size_t n = 0, k;

	sample_header(&hdr);
	for (i = 0; i < 2; i++) {
		data[i] = malloc(GAP_PAGES * SAMPLE_PAGE_SIZE);
		for (k = 0; data[i] && k < GAP_PAGES * SAMPLE_PAGE_SIZE; k++)
			data[i][k] = (uint8_t)(k * 7 + (size_t)i * 13 + k / 4096);
	}
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 1, .store_bulk = true), NULL);
	tap_check(&t, w && crib_writer_leave_gaps(w, true) == -1,
		  "stored, gaps: refused for a memory sink");
	crib_writer_abort(w);
	free(mb.data);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&expect, 1, .store_bulk = true), NULL);
	if (fd < 0 || !data[0] || !data[1] || !w || write_two_runs(w, data) ||
	    crib_writer_close(w, NULL))
		goto out;
	unlink(path);
	w = crib_writer_open(fd, &hdr, WRITER_OPTS(.level = 1, .store_bulk = true), NULL);
	ret = w ? crib_writer_leave_gaps(w, true) : -1;
	ret |= w ? write_two_runs(w, data) : -1;
	n = w ? crib_writer_take_gaps(w, gaps, 4) : 0;
	ret |= n != 2 || (w && crib_writer_take_gaps(w, gaps + n, 4 - n));
	for (k = n; !ret && k-- > 0;)
		ret |= crib_writer_write_at(w, gaps[k].data, gaps[k].len, gaps[k].offset);
	ret |= crib_writer_close(w, NULL);
	ret |= file_differs(fd, &expect);
out:
	tap_check(&t, ret == 0 && n == 2 && gaps[0].data == data[0] && gaps[1].data == data[1],
		  "stored, gaps: %zu data frames taken in order and written at their offsets "
		  "afterwards, the very bytes written to a memory sink", n);
	free(expect.data);
	free(data[0]);
	free(data[1]);
	if (fd >= 0)
		close(fd);
}

/*
 * Bulk records stored (crib_writer_opts.store_bulk): the big sample's pages
 * records in frames of raw blocks, through a memory sink and a pipe (the
 * writev() path); the reader reads them as any frame, and a byte changed
 * in stored data is caught.
 */
static void test_stored(void)
{
	struct membuf mb = { 0 }, plain = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	uint64_t records = 0, plain_records = 0;
	int frames, stored, aligned, ret;

	sample_header(&hdr);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 1, .store_bulk = true), NULL);
	ret = w ? sample_write(w, true) : -1;
	ret |= crib_writer_close(w, NULL);
	if (!tap_check(&t, ret == 0, "stored: the big sample written with stored pages"))
		return;
	count_frames(mb.data, mb.len, &frames, &stored, &aligned);
	tap_check(&t, stored == 2 && frames >= 6, "stored: the data of its two pages records "
		  "over 128 KiB in data frames (%d of %d frames)", stored, frames);
	tap_check(&t, aligned == 2, "stored: the data starts on a page boundary (%d of %d)",
		  aligned, stored);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&plain, 1), NULL);
	ret = w ? sample_write(w, true) : -1;
	ret |= crib_writer_close(w, NULL);
	ret |= stored_pages_check(mb.data, mb.len, &records);
	ret |= stored_pages_check(plain.data, plain.len, &plain_records);
	tap_check(&t, ret == 0 && records > 0 && records == plain_records && mb.len > plain.len,
		  "stored: read back record for record as the compressed sample (%" PRIu64
		  " records; %zu bytes stored, %zu compressed)", records, mb.len, plain.len);
	test_stored_file(&mb);
	/* a byte of page data, well inside the first stored frame */
	mb.data[mb.len / 3] ^= 0x40;
	tap_check(&t, stored_pages_check(mb.data, mb.len, &records) < 0,
		  "stored: a changed byte of stored data is refused");
	free(mb.data);
	free(plain.data);
}

/*
 * With pages stored, a record too small to store (96 KiB, compressed) and
 * one stored (160 KiB) read back byte for byte, and the caller's buffer
 * may change once the call returns.
 */
static void test_stored_caller_buffer(void)
{
	enum { SMALL = 24, LARGE = 40 };
	static uint8_t data[SMALL + LARGE][SAMPLE_PAGE_SIZE];
	static const uint64_t at[2] = { 0x100000, 0x400000 };
	static const uint64_t npages[2] = { SMALL, LARGE };
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	struct crib_reader *r;
	struct crib_record rec;
	int ret, found = 0, bad = 0;
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		((uint8_t *)data)[i] = (uint8_t)(i * 131 + (i >> 12));
	sample_header(&hdr);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 1, .store_bulk = true), NULL);
	ret = w ? crib_write_pages(w, 1, at[0], SMALL, data[0]) : -1;
	memset(data[0], 0xee, SAMPLE_PAGE_SIZE);	/* after the call: not in the snapshot */
	ret |= w ? crib_write_pages(w, 1, at[1], LARGE, data[SMALL]) : -1;
	ret |= crib_writer_close(w, NULL);
	for (i = 0; i < SAMPLE_PAGE_SIZE; i++)
		data[0][i] = (uint8_t)(i * 131);
	r = ret ? NULL : crib_reader_open(-1, MEM_READER(mb.data, mb.len), NULL);
	while (r && (ret = crib_reader_next(r, &rec)) > 0) {
		if (rec.type != CRIB_REC_PAGES)
			continue;
		for (i = 0; i < 2; i++) {
			if (rec.u.pages.addr != at[i])
				continue;
			found++;
			bad |= rec.u.pages.npages != npages[i] ||
			       memcmp(rec.u.pages.data.data, data[i ? SMALL : 0],
				      npages[i] * SAMPLE_PAGE_SIZE);
		}
	}
	if (r)
		crib_reader_close(r);
	tap_check(&t, ret == 0 && found == 2 && !bad,
		  "stored: page data compressed (96 KiB) and stored (160 KiB), the caller's "
		  "buffer changed after the call, reads back as written");
	free(mb.data);
}

/* The sample through a pipe, compressed in @threads worker threads (0: none), pages stored or not. */
static void test_pipe(int threads, bool store)
{
	struct pipe_reader pr = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	pthread_t th;
	int fds[2];
	int ret;

	if (pipe(fds))
		abort();
	pr.fd = fds[0];
	pthread_create(&th, NULL, pipe_reader_main, &pr);
	sample_header(&hdr);
	w = crib_writer_open(fds[1], &hdr,
			     WRITER_OPTS(.level = 1, .threads = threads, .store_bulk = store), NULL);
	ret = w ? sample_write(w, true) : -1;
	ret |= crib_writer_close(w, NULL);
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
	tap_check(&t, ret == 0 && pr.ret == 0 && pr.records == 81,
		  "pipe: streamed through a pipe, compressed in %d worker threads%s, %" PRIu64
		  " records (%s)", threads, store ? ", pages stored" : "", pr.records,
		  pr.ret ? pr.msg : "ok");
}

static void test_writer_errors(void)
{
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	struct crib_error err;
	uint8_t page[SAMPLE_PAGE_SIZE] = { 0 };
	struct crib_pages bad = { .pid = 1, .addr = 0x1000, .npages = 2,
				  .data = { page, SAMPLE_PAGE_SIZE } };
	char long_comm[40];

	sample_header(&hdr);
	tap_check(&t, !crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 22), &err) &&
		  err.code == CRIB_E_INVAL, "writer: level over the window limit refused");
	tap_check(&t, !crib_writer_open(-1, &hdr,
					WRITER_OPTS(.level = 1, .threads = CRIB_THREADS_MAX + 1),
					&err) &&
		  err.code == CRIB_E_INVAL, "writer: more worker threads than it takes refused");
	hdr.page_size = 3000;
	tap_check(&t, !crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err),
		  "writer: page size that is not a power of two refused");
	sample_header(&hdr);
	hdr.arch = "\xff";
	tap_check(&t, !crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err),
		  "writer: non-UTF-8 text refused");
	sample_header(&hdr);

	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err);
	tap_check(&t, crib_writer_record(w, CRIB_REC_PAGES, &bad) == -1,
		  "writer: pages data not matching npages refused");
	crib_writer_abort(w);

	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err);
	tap_check(&t, crib_write_vma(w, &(struct crib_vma){ .pid = 1, .start = 0x2000, .end = 0x1000 }) == -1,
		  "writer: vma ending before it starts refused");
	crib_writer_abort(w);

	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err);
	tap_check(&t, crib_write_pages(w, 1, 0xfffffffffff00000ull, 1000, NULL) == -1,
		  "writer: zero run past the end of the address space refused");
	crib_writer_abort(w);

	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err);
	memset(long_comm, 'x', sizeof(long_comm) - 1);
	long_comm[sizeof(long_comm) - 1] = 0;
	tap_check(&t, crib_write_process(w, &(struct crib_process){ .pid = 1, .comm = long_comm }) == -1 &&
		  crib_writer_error(w)->code == CRIB_E_LIMIT, "writer: comm over 16 bytes refused");
	crib_writer_abort(w);

	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 3), &err);
	crib_writer_begin(w, 0x8200);
	crib_writer_put_uint(w, 5, 1);
	tap_check(&t, crib_writer_put_uint(w, 4, 1) == -1, "writer: descending keys refused");
	tap_check(&t, crib_writer_close(w, &err) == -1, "writer: close reports the earlier error");
	free(mb.data);
}

/* ---- hand-built snapshots ---- */

static enum crib_err read_all(const uint8_t *buf, size_t len, uint64_t *records)
{
	struct crib_record rec;
	struct crib_error err;
	struct crib_reader *r = crib_reader_open(-1, MEM_READER(buf, len), &err);
	enum crib_err code;
	int ret;

	if (records)
		*records = 0;
	if (!r)
		return err.code;
	while ((ret = crib_reader_next(r, &rec)) > 0)
		if (records)
			(*records)++;
	code = ret ? crib_reader_error(r)->code : CRIB_OK;
	crib_reader_close(r);
	return code;
}

/* One snapshot: header, the given body under type, trailer. */
static void expect_body(uint32_t type, struct crib_buf *body, enum crib_err want,
			const char *what)
{
	struct rawsnap s;
	uint8_t *snap;
	size_t len;
	enum crib_err got;

	rawsnap_init(&s, 1, 0, true);
	rawsnap_add(&s, type, body);
	snap = rawsnap_finish(&s, 0, 0, &len);
	got = read_all(snap, len, NULL);
	tap_check(&t, got == want, "hostile: %s -> %s (got %s)", what, crib_err_name(want),
		  crib_err_name(got));
	free(snap);
	crib_buf_free(body);
}

static void expect_raw(const void *rec, size_t rec_len, enum crib_err want, const char *what)
{
	struct rawsnap s;
	uint8_t *snap;
	size_t len;
	enum crib_err got;

	rawsnap_init(&s, 1, 0, true);
	rawsnap_add_raw(&s, 0x8888, rec, rec_len);
	snap = rawsnap_finish(&s, 0, 0, &len);
	got = read_all(snap, len, NULL);
	tap_check(&t, got == want, "hostile: %s -> %s (got %s)", what, crib_err_name(want),
		  crib_err_name(got));
	free(snap);
}

static struct crib_buf *body_init(struct crib_buf *b)
{
	crib_buf_init(b, 16u << 20);
	return b;
}

/*
 * The bound on the inflated stream: the big sample (1.2 MB of pages) is
 * refused under 1 MiB at the record that crosses it, the same with
 * frames decoded ahead, and read whole under the default.
 */
static void read_bounded(const uint8_t *snap, size_t len, int threads, uint64_t max,
			 enum crib_err *code, uint64_t *records)
{
	struct crib_reader *r = crib_reader_open(-1, MEM_READER(snap, len, .threads = threads,
							       .max_size = max), NULL);
	struct crib_record rec;
	int ret;

	*records = 0;
	*code = CRIB_E_NOMEM;
	if (!r)
		return;
	while ((ret = crib_reader_next(r, &rec)) > 0)
		(*records)++;
	*code = ret < 0 ? crib_reader_error(r)->code : CRIB_OK;
	crib_reader_close(r);
}

/*
 * Sized options (CRIB_OPTS()): a size too small to hold the size, and
 * bytes set past the fields this library knows, are refused; a longer
 * struct whose unknown tail is zero, and a shorter one, are read as far
 * as they go.  A reader is given exactly one source.
 */
static void test_open_opts(void)
{
	struct membuf mb = { 0 };
	struct {
		struct crib_writer_opts o;
		uint64_t newer;
	} longer = { .o = { .sz = sizeof(longer), .write_fn = membuf_write, .write_ctx = &mb } };
	struct crib_writer_opts shorter = { .sz = offsetof(struct crib_writer_opts, level),
					    .write_fn = membuf_write, .write_ctx = &mb,
					    .level = 99 };
	struct crib_writer_opts tiny = { .sz = 1 };
	struct crib_header hdr;
	struct crib_writer *ow;
	struct crib_error err;

	sample_header(&hdr);

	tap_check(&t, !crib_writer_open(-1, &hdr, &tiny, &err) && err.code == CRIB_E_INVAL,
		  "writer: options too small to hold their size refused");
	ow = crib_writer_open(-1, &hdr, &longer.o, &err);
	tap_check(&t, ow != NULL, "writer: newer options with their unknown tail zero taken");
	crib_writer_abort(ow);
	longer.newer = 1;
	tap_check(&t, !crib_writer_open(-1, &hdr, &longer.o, &err) && err.code == CRIB_E_INVAL,
		  "writer: newer options with an unknown field set refused");
	/* level lies past the size given: read as 0, not 99 */
	ow = crib_writer_open(-1, &hdr, &shorter, &err);
	tap_check(&t, ow != NULL, "writer: older options read as far as they go");
	crib_writer_abort(ow);
	tap_check(&t, !crib_writer_open(1, &hdr, MEMBUF_OPTS(&mb, 3), &err) &&
		  err.code == CRIB_E_INVAL, "writer: a descriptor and a function refused");
	tap_check(&t, !crib_reader_open(0, MEM_READER("x", 1), &err) &&
		  err.code == CRIB_E_INVAL, "reader: two sources refused");
	tap_check(&t, !crib_reader_open(-1, NULL, &err) && err.code == CRIB_E_INVAL,
		  "reader: no source refused");
	free(mb.data);
}

/* The predicates over the format's own values that the tools share. */
static void test_predicates(void)
{
	struct crib_socket s = { .family = AF_INET6, .type = SOCK_STREAM,
				 .protocol = IPPROTO_TCP };

	tap_check(&t, crib_file_is_pipe(CRIB_FILE_PIPE) && crib_file_is_pipe(CRIB_FILE_FIFO) &&
		  !crib_file_is_pipe(CRIB_FILE_SOCKET) && !crib_file_is_pipe(CRIB_FILE_REGULAR),
		  "a pipe's end: an unnamed pipe or a FIFO, nothing else");
	tap_check(&t, crib_file_is_event(CRIB_FILE_EVENTFD) &&
		  crib_file_is_event(CRIB_FILE_TIMERFD) && crib_file_is_event(CRIB_FILE_SIGNALFD) &&
		  crib_file_is_event(CRIB_FILE_EVENTPOLL) && crib_file_is_event(CRIB_FILE_INOTIFY) &&
		  !crib_file_is_event(CRIB_FILE_FANOTIFY) &&
		  !crib_file_is_event(CRIB_FILE_ANON_INODE) && !crib_file_is_event(CRIB_FILE_PIPE),
		  "event files: eventfd, timerfd, signalfd, epoll, inotify, not other anon inodes");
	tap_check(&t, crib_socket_is_tcp(&s), "TCP over IPv6 is TCP");
	s.family = AF_INET;
	tap_check(&t, crib_socket_is_tcp(&s), "TCP over IPv4 is TCP");
	s.protocol = 262;	/* IPPROTO_MPTCP */
	tap_check(&t, !crib_socket_is_tcp(&s), "another stream protocol over IPv4 is not");
	s = (struct crib_socket){ .family = AF_UNIX, .type = SOCK_STREAM };
	tap_check(&t, !crib_socket_is_tcp(&s), "a UNIX stream socket is not");
	s = (struct crib_socket){ .family = AF_INET, .type = SOCK_DGRAM, .protocol = IPPROTO_UDP };
	tap_check(&t, !crib_socket_is_tcp(&s), "a UDP socket is not");
	tap_check(&t, crib_page_size_valid(4096) && crib_page_size_valid(CRIB_PAGE_SIZE_MIN) &&
		  crib_page_size_valid(CRIB_PAGE_SIZE_MAX) && !crib_page_size_valid(0) &&
		  !crib_page_size_valid(256) && !crib_page_size_valid(3000) &&
		  !crib_page_size_valid(2 * CRIB_PAGE_SIZE_MAX),
		  "page sizes: powers of two from 512 to 65536");
}

static void test_max_size(void)
{
	uint64_t n_plain, n_ahead, n_whole;
	enum crib_err plain, ahead, whole;
	uint8_t *snap;
	size_t len;

	if (sample_to_mem(true, 3, &snap, &len)) {
		tap_check(&t, false, "max size: the big sample is written");
		return;
	}
	read_bounded(snap, len, 0, 1 << 20, &plain, &n_plain);
	read_bounded(snap, len, 2, 1 << 20, &ahead, &n_ahead);
	read_bounded(snap, len, 0, 0, &whole, &n_whole);
	tap_check(&t, plain == CRIB_E_LIMIT && n_plain < n_whole,
		  "max size: a stream inflating past the bound is refused");
	tap_check(&t, ahead == plain && n_ahead == n_plain,
		  "max size: refused at the same record with frames decoded ahead");
	tap_check(&t, whole == CRIB_OK, "max size: the default bound takes the stream");
	free(snap);
}

/*
 * A diff side holds an entry per record and compares the contents of
 * bulk records by digest: 64 chunks of 60 KiB of a ghost's contents
 * (under the size up to which encodings are kept) take a few KiB.
 */
static void test_diff_memory(void)
{
	enum { CHUNK = 60 << 10, CHUNKS = 64 };
	struct crib_ghost g = { .ghost_id = 1, .path = "/g", .size = CHUNK * CHUNKS };
	struct crib_diff_side *side = NULL;
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_error err;
	struct crib_reader *r = NULL;
	struct crib_writer *w;
	uint8_t *data = calloc(1, CHUNK);
	int ret = -1;

	sample_header(&hdr);
	w = data ? crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 1), NULL) : NULL;
	if (w) {
		ret = crib_write_ghost(w, &g);
		for (uint64_t i = 0; !ret && i < CHUNKS; i++)
			ret = crib_write_ghost_data(w, 1, i * CHUNK, data, CHUNK);
		ret = crib_writer_close(w, NULL) || ret;
	}
	if (!ret)
		r = crib_reader_open(-1, MEM_READER(mb.data, mb.len), &err);
	if (r)
		side = crib_diff_side_read(r, 0, &err);
	tap_check(&t, side && crib_diff_side_mem(side) < 64 << 10,
		  "diff memory: a side of 3.75 MiB of ghost contents holds under 64 KiB");
	crib_diff_side_free(side);
	crib_reader_close(r);
	free(mb.data);
	free(data);
}

static void test_hostile(void)
{
	struct crib_buf b;
	struct rawsnap s;
	uint8_t *snap, *big;
	size_t len;
	uint64_t records;

	/* process without its required pid */
	body_init(&b);
	crib_cbor_map(&b, 1);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 5);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_E_SCHEMA, "process without pid");

	/* comm as a text string instead of bytes */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 6);
	crib_cbor_text(&b, "x", 1);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_E_SCHEMA, "process comm of the wrong type");

	/* a path with a NUL byte */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 27);
	crib_cbor_bytes(&b, "/a\0b", 4);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_E_SCHEMA, "path with a NUL byte");

	/* a negative pid */
	body_init(&b);
	crib_cbor_map(&b, 1);
	crib_cbor_uint(&b, 1);
	crib_cbor_int(&b, -5);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_E_SCHEMA, "negative pid");

	/* groups array over the items limit */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 15);
	crib_cbor_array(&b, 70000);
	for (int i = 0; i < 70000; i++)
		crib_cbor_uint(&b, 1);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_E_LIMIT, "70000 groups");

	/* rlimits array over the field's own limit (64) */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 26);
	crib_cbor_array(&b, 65);
	for (int i = 0; i < 65; i++)
		crib_cbor_map(&b, 0);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_E_SCHEMA, "65 rlimits");

	/* pages with data shorter than npages */
	body_init(&b);
	crib_cbor_map(&b, 4);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 0x10000);
	crib_cbor_uint(&b, 3);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 4);
	crib_cbor_bytes(&b, "abcd", 4);
	expect_body(CRIB_REC_PAGES, &b, CRIB_E_SCHEMA, "pages data length mismatch");

	/* pages with an address that wraps */
	body_init(&b);
	crib_cbor_map(&b, 3);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 0xfffffffffffff000ull);
	crib_cbor_uint(&b, 3);
	crib_cbor_uint(&b, 1000);
	expect_body(CRIB_REC_PAGES, &b, CRIB_E_SCHEMA, "pages run past the address space");

	/* a vma with end before start */
	body_init(&b);
	crib_cbor_map(&b, 3);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 0x2000);
	crib_cbor_uint(&b, 3);
	crib_cbor_uint(&b, 0x1000);
	expect_body(CRIB_REC_VMA, &b, CRIB_E_SCHEMA, "vma end before start");

	/* a shmem object whose size is not a whole number of pages */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 0x1800);
	expect_body(CRIB_REC_SHMEM, &b, CRIB_E_SCHEMA, "shmem size not page-aligned");

	/* a shmem object without an id */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 0);
	crib_cbor_uint(&b, 2);
	crib_cbor_uint(&b, 0x1000);
	expect_body(CRIB_REC_SHMEM, &b, CRIB_E_SCHEMA, "shmem id 0");

	/* unknown critical record */
	body_init(&b);
	crib_cbor_map(&b, 0);
	expect_body(0x0777, &b, CRIB_E_CRITICAL, "unknown critical record");

	/* unknown ancillary record with nested content: skipped */
	body_init(&b);
	crib_cbor_map(&b, 1);
	crib_cbor_uint(&b, 1);
	crib_cbor_array(&b, 2);
	crib_cbor_map(&b, 0);
	crib_cbor_bytes(&b, "zz", 2);
	expect_body(0x8777, &b, CRIB_OK, "unknown ancillary record");

	/* unknown keys in a known record: ignored (a newer minor may add them) */
	body_init(&b);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_uint(&b, 5);
	crib_cbor_uint(&b, 1000);
	crib_cbor_array(&b, 1);
	crib_cbor_text(&b, "new", 3);
	expect_body(CRIB_REC_PROCESS, &b, CRIB_OK, "unknown key in a known record");

	/* ancillary body that is not a map */
	body_init(&b);
	crib_cbor_array(&b, 0);
	expect_body(0x8777, &b, CRIB_E_SCHEMA, "record body that is not a map");

	/* a string in a record bigger than the record limit */
	body_init(&b);
	big = calloc(1, CRIB_LIMIT_BYTES);
	crib_cbor_map(&b, 2);
	crib_cbor_uint(&b, 1);
	crib_cbor_bytes(&b, big, CRIB_LIMIT_BYTES);
	crib_cbor_uint(&b, 2);
	crib_cbor_bytes(&b, big, CRIB_LIMIT_BYTES);
	free(big);
	expect_body(0x8777, &b, CRIB_E_LIMIT, "record over 2 MiB");

	{
		static const uint8_t type0[] = { 0x82, 0x00, 0xa0 };
		static const uint8_t type_big[] = { 0x82, 0x1a, 0x00, 0x01, 0x00, 0x00, 0xa0 };
		static const uint8_t type_neg[] = { 0x82, 0x20, 0xa0 };
		static const uint8_t second_header[] = { 0x82, 0x01, 0xa0 };
		static const uint8_t bare_uint[] = { 0x05 };

		expect_raw(type0, sizeof(type0), CRIB_E_SCHEMA, "record type 0");
		expect_raw(type_big, sizeof(type_big), CRIB_E_SCHEMA, "record type 65536");
		expect_raw(type_neg, sizeof(type_neg), CRIB_E_SCHEMA, "negative record type");
		expect_raw(second_header, sizeof(second_header), CRIB_E_SCHEMA, "second header");
		expect_raw(bare_uint, sizeof(bare_uint), CRIB_E_CBOR, "record that is an integer");
	}

	/* framing */
	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, RAWSNAP_NO_TRAILER, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_TRUNCATED, "framing: no trailer");
	free(snap);

	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, RAWSNAP_BAD_CHECKSUM, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_CHECKSUM, "framing: wrong checksum");
	free(snap);

	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, RAWSNAP_BAD_COUNT, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_COUNT,
		  "framing: a wrong record count is a count mismatch, not a checksum one");
	free(snap);

	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, RAWSNAP_RECORD_AFTER, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_TRAILING,
		  "framing: record after the trailer");
	free(snap);

	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, RAWSNAP_JUNK_AFTER, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_TRAILING,
		  "framing: junk after the zstd frame");
	free(snap);

	rawsnap_init(&s, 1, 0, false);
	snap = rawsnap_finish(&s, 0, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_SCHEMA, "framing: no header record");
	free(snap);

	rawsnap_init(&s, 2, 0, true);
	snap = rawsnap_finish(&s, 0, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_VERSION, "version: newer major refused");
	free(snap);

	rawsnap_init(&s, 0, 9, true);
	snap = rawsnap_finish(&s, 0, 0, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_VERSION, "version: major 0 refused");
	free(snap);

	rawsnap_init(&s, 1, 7, true);
	snap = rawsnap_finish(&s, 0, 0, &len);
	tap_check(&t, read_all(snap, len, &records) == CRIB_OK && records == 2,
		  "version: newer minor read");
	free(snap);

	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, 0, 27, &len);
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_ZSTD,
		  "zstd: frame asking for a 128 MiB window refused");
	free(snap);

	rawsnap_init(&s, 1, 0, true);
	snap = rawsnap_finish(&s, 0, 0, &len);
	snap[1] = 'X';
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_MAGIC, "magic: bad magic refused");
	tap_check(&t, read_all(snap, 3, NULL) == CRIB_E_MAGIC, "magic: 3-byte file refused");
	snap[1] = 'C';
	tap_check(&t, read_all(snap, 12, NULL) == CRIB_E_TRUNCATED, "preamble: cut short");
	tap_check(&t, read_all(snap, 16, NULL) == CRIB_E_TRUNCATED, "preamble only");
	snap[12] = 0x80;	/* preamble flags are covered by the checksum */
	tap_check(&t, read_all(snap, len, NULL) == CRIB_E_CHECKSUM,
		  "preamble: flipped flag bit caught by the checksum");
	free(snap);
}

/* Read a whole snapshot from a file descriptor (read(), not the memory path). */
static enum crib_err read_all_fd(const uint8_t *buf, size_t len)
{
	struct crib_record rec;
	struct crib_error err;
	struct crib_reader *r;
	enum crib_err code;
	int fd = memfd_create("crib-test", MFD_CLOEXEC), ret;

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET))
		abort();
	r = crib_reader_open(fd, NULL, &err);
	if (!r) {
		close(fd);
		return err.code;
	}
	while ((ret = crib_reader_next(r, &rec)) > 0)
		;
	code = ret ? crib_reader_error(r)->code : CRIB_OK;
	crib_reader_close(r);
	close(fd);
	return code;
}

/* Both ways of reading give @want. */
static void expect_stored(const uint8_t *snap, size_t len, enum crib_err want, const char *what)
{
	enum crib_err mem = read_all(snap, len, NULL), fd = read_all_fd(snap, len);

	tap_check(&t, mem == want && fd == want, "stored, hostile: %s -> %s (got %s in memory, "
		  "%s from a file)", what, crib_err_name(want), crib_err_name(mem),
		  crib_err_name(fd));
}

/* One stored pages record of 160 KiB; *@frame gets the offset of its data frame. */
static uint8_t *stored_one(size_t *len, size_t *frame)
{
	static uint8_t data[40][SAMPLE_PAGE_SIZE];
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	size_t off = CRIB_PREAMBLE_LEN, n;
	uint32_t magic;

	memset(data, 0x5a, sizeof(data));
	sample_header(&hdr);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 1, .store_bulk = true), NULL);
	if (!w)
		abort();
	if (crib_write_pages(w, 1, 0x400000, 40, data) || crib_writer_close(w, NULL))
		abort();
	for (*frame = 0; !*frame && off + 4 <= mb.len; off += n) {
		n = ZSTD_findFrameCompressedSize(mb.data + off, mb.len - off);
		if (ZSTD_isError(n))
			abort();
		memcpy(&magic, mb.data + off, 4);
		if (magic == CRIB_FRAME_DATA_MAGIC)
			*frame = off;
	}
	if (!*frame)
		abort();
	*len = mb.len;
	return mb.data;
}

/* The body of a stored_pages record of pid 1 at 0x400000, into @b. */
static struct crib_buf *stored_pages_body(struct crib_buf *b, uint64_t npages)
{
	body_init(b);
	crib_cbor_map(b, 3);
	crib_cbor_uint(b, 1);
	crib_cbor_uint(b, 1);
	crib_cbor_uint(b, 2);
	crib_cbor_uint(b, 0x400000);
	crib_cbor_uint(b, 3);
	crib_cbor_uint(b, npages);
	return b;
}

/*
 * Data frames (1.4) from a hostile or damaged input: each refused with
 * its reason, reading from memory and from a file alike; padding frames
 * before the data are skipped.
 */
static void test_stored_hostile(void)
{
	const size_t data_len = 40 * SAMPLE_PAGE_SIZE;
	size_t len, frame;
	uint8_t *snap = stored_one(&len, &frame), *copy = malloc(len + 108);
	static const uint8_t pad[8] = { 0x51, 0x2a, 0x4d, 0x18, 100, 0, 0, 0 };
	struct crib_buf b;
	struct rawsnap s;
	uint8_t *raw;
	size_t raw_len;

	if (!copy)
		abort();
	expect_stored(snap, len, CRIB_OK, "one stored pages record reads");
	memcpy(copy, snap, len);
	copy[frame + 4] ^= 0x10;	/* its size, one page off */
	expect_stored(copy, len, CRIB_E_SCHEMA, "a data frame of the wrong size");
	memcpy(copy, snap, len);
	copy[frame] = 0x50;		/* padding, not data */
	expect_stored(copy, len, CRIB_E_SCHEMA, "a record whose data frame is missing");
	memcpy(copy, snap, frame);
	memcpy(copy + frame, snap + frame + 8 + data_len, len - frame - 8 - data_len);
	expect_stored(copy, len - 8 - data_len, CRIB_E_SCHEMA, "a record without its data frame");
	expect_stored(snap, frame + 8 + data_len / 2, CRIB_E_TRUNCATED, "input ends inside the data");
	expect_stored(snap, frame + 4, CRIB_E_TRUNCATED, "input ends inside the frame header");
	memcpy(copy, snap, frame);
	memcpy(copy + frame, pad, sizeof(pad));
	memset(copy + frame + 8, 0, 100);
	memcpy(copy + frame + 108, snap + frame, len - frame);
	expect_stored(copy, len + 108, CRIB_OK, "a padding frame before the data is skipped");
	memcpy(copy, snap, len);
	copy[frame + 8 + data_len - 1] ^= 1;
	expect_stored(copy, len, CRIB_E_CHECKSUM, "the last byte of the data changed");

	/* a stored_pages record with a record after it in its zstd frame */
	rawsnap_init(&s, 1, 4, true);
	rawsnap_add(&s, CRIB_REC_STORED_PAGES, stored_pages_body(&b, 1));
	crib_buf_free(&b);
	body_init(&b);
	crib_cbor_map(&b, 0);
	rawsnap_add(&s, 0x8888, &b);
	raw = rawsnap_finish(&s, 0, 0, &raw_len);
	expect_stored(raw, raw_len, CRIB_E_SCHEMA, "a stored_pages record not last in its frame");
	free(raw);
	crib_buf_free(&b);

	expect_body(CRIB_REC_STORED_PAGES, stored_pages_body(&b, CRIB_CHUNK_MAX / SAMPLE_PAGE_SIZE + 1),
		    CRIB_E_SCHEMA, "stored_pages over one chunk");
	free(copy);
	free(snap);
}

/* Every record's bytes and page data, hashed: reading @snap with @threads decoding ahead. */
static enum crib_err digest_read(const uint8_t *snap, size_t len, int threads, uint64_t *digest,
				 uint64_t *records)
{
	struct crib_xxh64 h;
	struct crib_record rec;
	struct crib_error err;
	struct crib_reader *r = crib_reader_open(-1, MEM_READER(snap, len, .threads = threads),
						 &err);
	enum crib_err code;
	int ret;

	*records = 0;
	*digest = 0;
	crib_xxh64_init(&h, 0);
	if (!r)
		return err.code;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		(*records)++;
		crib_xxh64_update(&h, rec.raw, rec.raw_len);
		if (rec.type == CRIB_REC_PAGES && rec.u.pages.data.len)
			crib_xxh64_update(&h, rec.u.pages.data.data, rec.u.pages.data.len);
	}
	code = ret ? crib_reader_error(r)->code : CRIB_OK;
	*digest = crib_xxh64_digest(&h);
	crib_reader_close(r);
	return code;
}

/* @snap read with frames decoded ahead in 1 and 3 threads as without: @what. */
static void expect_same_ahead(const uint8_t *snap, size_t len, const char *what)
{
	uint64_t d0, d1, d3, n0, n1, n3;
	enum crib_err c0 = digest_read(snap, len, 0, &d0, &n0);
	enum crib_err c1 = digest_read(snap, len, 1, &d1, &n1);
	enum crib_err c3 = digest_read(snap, len, 3, &d3, &n3);

	tap_check(&t, c0 == c1 && c0 == c3 && d0 == d1 && d0 == d3 && n0 == n1 && n0 == n3,
		  "decode ahead: %s: the same records and outcome (%s, %" PRIu64 " records; "
		  "%s/%s with 1/3 threads)", what, crib_err_name(c0), n0, crib_err_name(c1),
		  crib_err_name(c3));
}

/*
 * A compressed snapshot of 40 MiB of pages comes in zstd frames of about
 * 8 MiB, which readers decode ahead in worker threads to the same records;
 * damage anywhere reads the same with and without them.
 */
static void test_decode_ahead(void)
{
	enum { NPAGES = 40 * 256 };
	uint8_t *data = malloc((size_t)NPAGES * SAMPLE_PAGE_SIZE), *copy;
	struct membuf mb = { 0 }, fast = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;
	size_t off, n, biggest = 0, i;
	int frames = 0, ret;

	if (!data)
		abort();
	for (i = 0; i < (size_t)NPAGES * SAMPLE_PAGE_SIZE; i++)
		data[i] = (uint8_t)((i >> 3) * 2654435761u >> 24);	/* compresses about 2:1 */
	sample_header(&hdr);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, 1), NULL);
	ret = w ? sample_write(w, false) : -1;
	ret |= w ? crib_write_pages(w, 101, 0x7f0000000000ull, NPAGES, data) : -1;
	ret |= crib_writer_close(w, NULL);
	copy = malloc(32u << 20);
	for (off = CRIB_PREAMBLE_LEN; copy && !ret && off < mb.len; off += n, frames++) {
		size_t content;

		n = ZSTD_findFrameCompressedSize(mb.data + off, mb.len - off);
		if (ZSTD_isError(n))
			break;
		content = ZSTD_decompress(copy, 32u << 20, mb.data + off, n);
		if (!ZSTD_isError(content) && content > biggest)
			biggest = content;
	}
	free(copy);
	tap_check(&t, ret == 0 && frames >= 5 && biggest <= 12u << 20,
		  "decode ahead: 40 MiB compressed in %d frames, none over 12 MiB of content "
		  "(%zu)", frames, biggest);
	expect_same_ahead(mb.data, mb.len, "40 MiB compressed");
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&fast, 1, .store_bulk = true), NULL);
	ret = w ? sample_write(w, true) : -1;
	ret |= w ? crib_write_pages(w, 101, 0x7f0000000000ull, NPAGES, data) : -1;
	ret |= crib_writer_close(w, NULL);
	if (!ret)
		expect_same_ahead(fast.data, fast.len, "pages stored, with data frames");
	copy = malloc(mb.len);
	if (!copy)
		abort();
	for (i = 1; i < 8; i++) {
		char what[64];

		memcpy(copy, mb.data, mb.len);
		copy[mb.len * i / 8] ^= 0x21;
		snprintf(what, sizeof(what), "a byte changed at %zu/8 of the file", i);
		expect_same_ahead(copy, mb.len, what);
		snprintf(what, sizeof(what), "truncated at %zu/8 of the file", i);
		expect_same_ahead(mb.data, mb.len * i / 8, what);
	}
	free(copy);
	free(fast.data);
	free(mb.data);
	free(data);
}

static void test_decoder(void)
{
	static const uint8_t rec[] = { 0x82, 0x19, 0x01, 0x00, 0xa1, 0x01, 0x07 };
	struct crib_decoder *d = crib_decoder_new();
	struct crib_record out;
	struct crib_error err;

	tap_check(&t, crib_decoder_decode(d, rec, sizeof(rec), 4096, &out, &err) == 0 &&
		  out.type == CRIB_REC_PROCESS && out.u.process.pid == 7,
		  "decoder: standalone record decode");
	tap_check(&t, crib_decoder_decode(d, rec, sizeof(rec) - 1, 4096, &out, &err) == -1 &&
		  err.code == CRIB_E_TRUNCATED, "decoder: short record refused");
	crib_decoder_free(d);
}

int main(void)
{
	test_xxh64();
	test_utf8();
	test_skim();
	test_arena();
	test_schema_tables();
	test_roundtrip(false);
	test_roundtrip(true);
	test_pipe(0, false);
	test_pipe(2, false);
	test_pipe(2, true);
	test_stored();
	test_stored_gaps();
	test_stored_caller_buffer();
	test_stored_hostile();
	test_decode_ahead();
	test_writer_errors();
	test_open_opts();
	test_predicates();
	test_hostile();
	test_max_size();
	test_diff_memory();
	test_decoder();
	return tap_done(&t);
}
