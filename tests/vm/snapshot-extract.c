// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: contents of a snapshot that crib-inspect --json only
 * summarises.
 *
 *   snapshot-extract memsum SNAPSHOT ADDR LEN   memsum.h checksum of the
 *       dumped memory [ADDR, ADDR + LEN), pages not dumped counting as zero
 *   snapshot-extract pipe SNAPSHOT PIPE_ID      the queued bytes, raw
 *   snapshot-extract ghost SNAPSHOT GHOST_ID    the ghost's contents, raw, what
 *       no chunk covers as zeros, up to its size
 *   snapshot-extract xstate-len SNAPSHOT TID    size of the thread's xstate
 *   snapshot-extract socket-queues SNAPSHOT     every socket_queue chunk, one
 *       line each: SOCK_ID QUEUE SEQ DATA-HEX SRC-FAMILY SRC-ADDR-HEX SRC-PORT
 *       SRC-SCOPE-ID (empty hex as "-")
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crib/format.h>

#include "memsum.h"

static struct crib_reader *open_snapshot(const char *path)
{
	struct crib_error err;
	struct crib_reader *r;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	r = crib_reader_open(fd, NULL, &err);
	if (!r) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		exit(1);
	}
	return r;
}

static int finish(struct crib_reader *r, int ret)
{
	if (ret < 0) {
		fprintf(stderr, "snapshot-extract: %s\n", crib_reader_error(r)->msg);
		crib_reader_close(r);
		return 1;
	}
	crib_reader_close(r);
	return 0;
}

static int memsum(const char *path, uint64_t addr, uint64_t len)
{
	struct crib_reader *r = open_snapshot(path);
	uint64_t *mem = calloc(1, len), page_size = 0, lo, hi, i;
	struct crib_record rec;
	int ret;

	if (!mem)
		return 1;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (rec.type == CRIB_REC_HEADER)
			page_size = rec.u.header.page_size;
		if (rec.type != CRIB_REC_PAGES || !rec.u.pages.data.data)
			continue;
		for (i = 0; i < rec.u.pages.npages; i++) {
			lo = rec.u.pages.addr + i * page_size;
			hi = lo + page_size;
			if (lo >= addr && hi <= addr + len)
				memcpy((char *)mem + (lo - addr),
				       (const char *)rec.u.pages.data.data + i * page_size,
				       page_size);
		}
	}
	if (!ret)
		printf("%016llx\n", (unsigned long long)memsum_words(MEMSUM_INIT, mem, len / 8));
	free(mem);
	return finish(r, ret);
}

static int pipe_data(const char *path, uint64_t pipe_id)
{
	struct crib_reader *r = open_snapshot(path);
	struct crib_record rec;
	int ret;

	while ((ret = crib_reader_next(r, &rec)) > 0)
		if (rec.type == CRIB_REC_PIPE_DATA && rec.u.pipe_data.pipe_id == pipe_id)
			fwrite(rec.u.pipe_data.data.data, 1, rec.u.pipe_data.data.len, stdout);
	return finish(r, ret);
}

static int ghost_data(const char *path, uint64_t ghost_id)
{
	struct crib_reader *r = open_snapshot(path);
	uint64_t size = 0, at = 0;
	struct crib_record rec;
	int ret;

	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (rec.type == CRIB_REC_GHOST && rec.u.ghost.ghost_id == ghost_id)
			size = rec.u.ghost.size;
		if (rec.type != CRIB_REC_GHOST_DATA || rec.u.ghost_data.ghost_id != ghost_id)
			continue;
		for (; at < rec.u.ghost_data.offset; at++)
			putchar(0);
		fwrite(rec.u.ghost_data.data.data, 1, rec.u.ghost_data.data.len, stdout);
		at += rec.u.ghost_data.data.len;
	}
	for (; at < size; at++)
		putchar(0);
	return finish(r, ret);
}

static int xstate_len(const char *path, uint64_t tid)
{
	struct crib_reader *r = open_snapshot(path);
	struct crib_record rec;
	int ret;

	while ((ret = crib_reader_next(r, &rec)) > 0)
		if (rec.type == CRIB_REC_THREAD && rec.u.thread.tid == tid)
			printf("%zu\n", rec.u.thread.xstate.len);
	return finish(r, ret);
}

static void print_hex(const void *data, size_t len)
{
	const unsigned char *p = data;

	if (!len)
		putchar('-');
	for (size_t i = 0; i < len; i++)
		printf("%02x", p[i]);
}

static int socket_queues(const char *path)
{
	struct crib_reader *r = open_snapshot(path);
	const struct crib_socket_queue *q;
	struct crib_record rec;
	int ret;

	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (rec.type != CRIB_REC_SOCKET_QUEUE)
			continue;
		q = &rec.u.socket_queue;
		for (size_t i = 0; i < q->n_chunks; i++) {
			const struct crib_sock_chunk *c = &q->chunks[i];

			printf("%llu %llu %llu ", (unsigned long long)q->sock_id,
			       (unsigned long long)q->queue, (unsigned long long)q->seq);
			print_hex(c->data.data, c->data.len);
			printf(" %llu ", (unsigned long long)c->src.family);
			print_hex(c->src.addr.data, c->src.addr.len);
			printf(" %llu %llu\n", (unsigned long long)c->src.port,
			       (unsigned long long)c->src.scope_id);
		}
	}
	return finish(r, ret);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "memsum"))
		return memsum(argv[2], strtoull(argv[3], NULL, 16), strtoull(argv[4], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "pipe"))
		return pipe_data(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "ghost"))
		return ghost_data(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "xstate-len"))
		return xstate_len(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "socket-queues"))
		return socket_queues(argv[2]);
	fprintf(stderr, "usage: snapshot-extract memsum SNAPSHOT ADDR LEN\n"
		"       snapshot-extract pipe SNAPSHOT PIPE_ID\n"
		"       snapshot-extract ghost SNAPSHOT GHOST_ID\n"
		"       snapshot-extract xstate-len SNAPSHOT TID\n"
		"       snapshot-extract socket-queues SNAPSHOT\n");
	return 2;
}
