// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that counts: every 100 ms it increments a counter in memory
 * and rewrites FILE with it; with LOG, it also appends the number to LOG
 * through its own file offset (no O_APPEND).  Checkpointed and restored,
 * it must go on from the number it had, never back and never skipping,
 * and LOG must go on where it was: a wrong offset leaves a hole or
 * overwrites a line.
 *
 *   counter FILE [LOG]
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
	unsigned long count = 0;
	char buf[32];
	int fd, log = -1, len;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: counter FILE [LOG]\n");
		return 2;
	}
	if (argc == 3) {
		log = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (log < 0) {
			perror(argv[2]);
			return 1;
		}
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		count++;
		len = snprintf(buf, sizeof(buf), "%lu\n", count);
		if (log >= 0 && write(log, buf, len) != len)
			return 1;
		if (pwrite(fd, buf, len, 0) != len || ftruncate(fd, len))
			return 1;
		nanosleep(&tick, NULL);
	}
}
