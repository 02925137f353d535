// SPDX-License-Identifier: GPL-2.0
/*
 * The two ends of a shell pipeline, sh -c 'stream produce DIR | stream consume DIR':
 *
 *   stream produce DIR   writes the numbers 1, 2, 3 ... (8 bytes each, native
 *                        order) to standard output as fast as the pipe takes
 *                        them
 *   stream consume DIR   reads them from standard input more slowly than they
 *                        come, so the pipe stays full, and checks that each
 *                        follows the one before
 *
 * Each writes DIR/pid.producer or DIR/pid.consumer; the consumer writes
 * DIR/ready once 10000 numbers came through, keeps the last in
 * DIR/consumed (every 100 ms), and writes DIR/bad and stops at the first
 * number out of order.
 */
#include <stdbool.h>
#include <stdint.h>

#include "tree.h"

static void __attribute__((noreturn)) produce(void)
{
	uint64_t buf[512], next = 1;

	tree_become("producer");
	tree_announce();
	for (;;) {
		size_t done = 0;

		for (size_t i = 0; i < 512; i++)
			buf[i] = next++;
		while (done < sizeof(buf)) {
			ssize_t n = write(STDOUT_FILENO, (char *)buf + done, sizeof(buf) - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				tree_die("write");
			done += (size_t)n;
		}
	}
}

static void note_progress(uint64_t last)
{
	char path[1024], text[32];

	snprintf(path, sizeof(path), "%s/consumed", tree_dir);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)last);
	write_ready(path, text);
}

static void __attribute__((noreturn)) consume(void)
{
	unsigned char buf[4096 + 8];
	size_t have = 0, ticks = 0;
	uint64_t last = 0, v;
	bool ready = false;

	tree_become("consumer");
	tree_announce();
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + have, 4096);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			tree_die("read (after %llu)", (unsigned long long)last);
		have += (size_t)n;
		for (size_t i = 0; i + 8 <= have; i += 8) {
			memcpy(&v, buf + i, 8);
			if (v != last + 1) {
				char path[1024], text[96];

				snprintf(path, sizeof(path), "%s/bad", tree_dir);
				snprintf(text, sizeof(text), "%llu after %llu\n",
					 (unsigned long long)v, (unsigned long long)last);
				write_ready(path, text);
				for (;;)
					pause();
			}
			last = v;
		}
		memmove(buf, buf + (have & ~(size_t)7), have & 7);
		have &= 7;
		if (!ready && last >= 10000 && tree_exists("pid", "producer")) {
			note_progress(last);
			tree_ready();
			ready = true;
		}
		if (++ticks % 5 == 0)
			note_progress(last);
		tree_sleep_ms(20);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "produce") && strcmp(argv[1], "consume"))) {
		fprintf(stderr, "usage: stream produce|consume DIR\n");
		return 2;
	}
	tree_dir = argv[2];
	if (!strcmp(argv[1], "produce"))
		produce();
	consume();
}
