/* SPDX-License-Identifier: GPL-2.0-only */
/* An in-memory sink for the writer, and the open calls' options the tests pass. */
#ifndef CRIB_TEST_MEMBUF_H
#define CRIB_TEST_MEMBUF_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <crib/format.h>

struct membuf {
	uint8_t *data;
	size_t len, cap;
};

static inline ssize_t membuf_write(void *ctx, const void *buf, size_t len)
{
	struct membuf *mb = ctx;

	if (mb->len + len > mb->cap) {
		size_t cap = mb->cap ? mb->cap : 4096;
		uint8_t *p;

		while (cap < mb->len + len)
			cap *= 2;
		p = realloc(mb->data, cap);
		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		mb->data = p;
		mb->cap = cap;
	}
	memcpy(mb->data + mb->len, buf, len);
	mb->len += len;
	return (ssize_t)len;
}

/* Sized options (CRIB_OPTS()) as an expression, for an argument. */
#define WRITER_OPTS(...) \
	(&(struct crib_writer_opts){ .sz = sizeof(struct crib_writer_opts), __VA_ARGS__ })
#define READER_OPTS(...) \
	(&(struct crib_reader_opts){ .sz = sizeof(struct crib_reader_opts), __VA_ARGS__ })
/* Writing into @mb at zstd level @lvl; reading the @len bytes at @buf. */
#define MEMBUF_OPTS(mb, lvl, ...) \
	WRITER_OPTS(.write_fn = membuf_write, .write_ctx = (mb), .level = (lvl), ##__VA_ARGS__)
#define MEM_READER(buf, len, ...) READER_OPTS(.mem = (buf), .mem_len = (len), ##__VA_ARGS__)

#endif
