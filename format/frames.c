// SPDX-License-Identifier: GPL-2.0-only
/*
 * Zstd frames of a snapshot in memory, decoded ahead of the reader by
 * worker threads: while the reader parses and checks the records of one
 * frame, the workers decode the next ones, each frame at once into a
 * buffer of its own.  Frames are independent (spec §3), so any number can
 * be decoded at a time; the reader takes them in order.
 *
 * A worker claims the next frame of the walk: it skips skippable frames,
 * finds the frame's extent, and bounds its content by its blocks (RFC
 * 8878: at most 128 KiB each).  A frame it cannot walk or bound within
 * FRAME_DECODE_MAX (damaged, truncated, or one large frame as 1.3 writers
 * wrote) stops the walk there: the reader decodes from that frame on as
 * it always did, so errors read the same either way.
 */
#include <pthread.h>
#include <stdlib.h>

#include <zstd.h>

#include "internal.h"

#define FRAME_DECODE_MAX	(24u << 20)	/* content of a frame decoded ahead */
#define FRAMES_AHEAD_MAX	8		/* frames claimed and not yet taken */

struct ahead_frame {
	size_t off, size;		/* in the input */
	size_t bound;			/* on its content */
	uint8_t *out;			/* its content, once decoded */
	size_t out_len;
	bool done;
	bool failed;			/* it did not decode: the reader's zstd will say why */
};

struct crib_frames {
	const uint8_t *in;
	size_t in_len;
	size_t walk;			/* where the next frame to claim starts */
	bool walk_stopped;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct ahead_frame ring[FRAMES_AHEAD_MAX];
	uint64_t head, tail;		/* ring[head % MAX] is the reader's next */
	size_t ahead;			/* frames the ring may hold */
	int n_threads;
	pthread_t threads[CRIB_THREADS_MAX];
};

#define BLOCK_MAX	(128u << 10)	/* RFC 8878 Block_Maximum_Size */

/*
 * The window a frame header declares (RFC 8878 §3.1.1.1.2): the content
 * size for a single segment, else from the window descriptor at @wd.
 */
static uint64_t window_size(const uint8_t *fcs, size_t fcs_len, const uint8_t *wd)
{
	uint64_t v = 0;
	size_t i;

	if (wd) {
		v = 1ull << (10 + (*wd >> 3));
		return v + (v / 8) * (*wd & 7);
	}
	for (i = fcs_len; i-- > 0;)
		v = v << 8 | fcs[i];
	return fcs_len == 2 ? v + 256 : v;
}

/*
 * The extent of the zstd frame at @p (RFC 8878 §3.1.1) and a bound on its
 * content: raw and RLE blocks give their size, a compressed block at most
 * the block maximum.  False when @len ends inside it, or when it is one a
 * streaming decoder limited to the format's window refuses (a larger
 * window, a dictionary, a reserved bit, a block over the maximum), so
 * that the reader's own decoder reports it as it would without workers.
 */
static bool frame_extent(const uint8_t *p, size_t len, size_t *size, uint64_t *bound)
{
	static const uint8_t fcs_len[4] = { 0, 2, 4, 8 };
	uint64_t window, block_max;
	size_t at, n, fcs_n;
	uint32_t bh;
	uint8_t fhd;

	if (len < 6)
		return false;
	fhd = p[4];
	if ((fhd & 0x08) || (fhd & 3))		/* reserved bit, dictionary */
		return false;
	fcs_n = fcs_len[fhd >> 6] + (fhd >> 6 == 0 && (fhd & 0x20));
	at = 5 + !(fhd & 0x20);
	if (len < at + fcs_n)
		return false;
	window = window_size(p + at, fcs_n, (fhd & 0x20) ? NULL : p + 5);
	if (window > 1ull << CRIB_LIMIT_WINDOW_LOG)
		return false;
	block_max = window < BLOCK_MAX ? window : BLOCK_MAX;
	at += fcs_n;
	for (*bound = 0;; at += n) {
		if (at > len || len - at < 3)
			return false;
		bh = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16;
		at += 3;
		if ((bh >> 3) > block_max)
			return false;
		switch ((bh >> 1) & 3) {
		case 0:				/* Raw_Block */
			n = bh >> 3;
			*bound += n;
			break;
		case 1:				/* RLE_Block */
			n = 1;
			*bound += bh >> 3;
			break;
		case 2:				/* Compressed_Block */
			n = bh >> 3;
			*bound += block_max;
			break;
		default:
			return false;
		}
		if (n > len - at)
			return false;
		if (bh & 1)
			break;
	}
	at += n + ((fhd & 4) ? 4 : 0);		/* the content checksum */
	if (at > len)
		return false;
	*size = at;
	return true;
}

/*
 * Under the lock: the next zstd frame of the walk into @fr, past
 * skippable frames.  False when the walk stops there.
 */
static bool walk_next(struct crib_frames *f, struct ahead_frame *fr)
{
	uint64_t bound;
	size_t size;
	uint32_t magic;

	for (;;) {
		if (f->in_len - f->walk < 8)
			return false;
		magic = crib_get_le32(f->in + f->walk);
		if ((magic & ZSTD_MAGIC_SKIPPABLE_MASK) != ZSTD_MAGIC_SKIPPABLE_START)
			break;
		size = crib_get_le32(f->in + f->walk + 4);
		if (size > f->in_len - f->walk - 8)
			return false;
		f->walk += 8 + size;
	}
	if (magic != ZSTD_MAGICNUMBER)
		return false;
	if (!frame_extent(f->in + f->walk, f->in_len - f->walk, &size, &bound) ||
	    bound > FRAME_DECODE_MAX)
		return false;
	*fr = (struct ahead_frame){ .off = f->walk, .size = size, .bound = (size_t)bound };
	f->walk += size;
	return true;
}

/* Decode @fr into a buffer of its own, of its bound: at most FRAME_DECODE_MAX. */
static void decode(ZSTD_DCtx *dctx, const uint8_t *in, struct ahead_frame *fr)
{
	size_t n;

	fr->out = malloc(fr->bound ? fr->bound : 1);
	if (!fr->out) {
		fr->failed = true;
		return;
	}
	n = ZSTD_decompressDCtx(dctx, fr->out, fr->bound, in + fr->off, fr->size);
	if (ZSTD_isError(n)) {
		fr->failed = true;
		return;
	}
	fr->out_len = n;
}

static void *worker_main(void *arg)
{
	struct crib_frames *f = arg;
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	struct ahead_frame fr, *slot;
	uint64_t at;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->stop && !f->walk_stopped && f->tail - f->head == f->ahead)
			pthread_cond_wait(&f->changed, &f->lock);
		if (f->stop || f->walk_stopped)
			break;
		if (!dctx || !walk_next(f, &fr)) {
			f->walk_stopped = true;
			pthread_cond_broadcast(&f->changed);
			break;
		}
		at = f->tail++;
		f->ring[at % FRAMES_AHEAD_MAX] = fr;
		pthread_mutex_unlock(&f->lock);
		decode(dctx, f->in, &fr);
		pthread_mutex_lock(&f->lock);
		slot = &f->ring[at % FRAMES_AHEAD_MAX];
		slot->out = fr.out;
		slot->out_len = fr.out_len;
		slot->failed = fr.failed;
		slot->done = true;
		pthread_cond_broadcast(&f->changed);
	}
	pthread_mutex_unlock(&f->lock);
	ZSTD_freeDCtx(dctx);
	return NULL;
}

struct crib_frames *crib_frames_start(const uint8_t *in, size_t len, int threads)
{
	struct crib_frames *f;
	int i;

	if (threads < 1)
		return NULL;
	if (threads > CRIB_THREADS_MAX)
		threads = CRIB_THREADS_MAX;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->in = in;
	f->in_len = len;
	f->ahead = (size_t)threads + 1 < FRAMES_AHEAD_MAX ? (size_t)threads + 1 : FRAMES_AHEAD_MAX;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->changed, NULL);
	for (i = 0; i < threads; i++)
		if (pthread_create(&f->threads[f->n_threads], NULL, worker_main, f) == 0)
			f->n_threads++;
	if (!f->n_threads) {
		crib_frames_stop(f);
		return NULL;
	}
	return f;
}

int crib_frames_get(struct crib_frames *f, size_t off, const uint8_t **out, size_t *out_len,
		    size_t *next)
{
	struct ahead_frame *fr;
	int ret = 0;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		if (f->head != f->tail) {
			fr = &f->ring[f->head % FRAMES_AHEAD_MAX];
			if (fr->off != off)
				break;		/* the reader went another way: stop */
			if (!fr->done) {
				pthread_cond_wait(&f->changed, &f->lock);
				continue;
			}
			if (fr->failed)
				break;
			*out = fr->out;
			*out_len = fr->out_len;
			*next = fr->off + fr->size;
			ret = 1;
			break;
		}
		if (f->walk_stopped)
			break;
		pthread_cond_wait(&f->changed, &f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

void crib_frames_release(struct crib_frames *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->head != f->tail) {
		free(f->ring[f->head % FRAMES_AHEAD_MAX].out);
		f->head++;
		pthread_cond_broadcast(&f->changed);
	}
	pthread_mutex_unlock(&f->lock);
}

void crib_frames_stop(struct crib_frames *f)
{
	int i;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
	for (i = 0; i < f->n_threads; i++)
		pthread_join(f->threads[i], NULL);
	/* every worker is gone: what they decoded is freed here */
	for (; f->head != f->tail; f->head++)
		free(f->ring[f->head % FRAMES_AHEAD_MAX].out);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
