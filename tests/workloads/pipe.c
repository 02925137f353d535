// SPDX-License-Identifier: GPL-2.0
/*
 * A workload holding both ends of a pipe with BYTES bytes queued in it,
 * byte i being (i * 7 + 3) & 0xff.  Writes "READFD WRITEFD" to READYFILE,
 * then sleeps without ever reading the pipe.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ready.h"

int main(int argc, char **argv)
{
	unsigned char buf[65536];
	char text[64];
	int fds[2], i, bytes;

	if (argc != 3 || (bytes = atoi(argv[1])) < 0 || bytes > (int)sizeof(buf)) {
		fprintf(stderr, "usage: pipe BYTES READYFILE (BYTES at most 65536)\n");
		return 2;
	}
	if (pipe(fds))
		return 1;
	for (i = 0; i < bytes; i++)
		buf[i] = (unsigned char)((i * 7 + 3) & 0xff);
	if (bytes && write(fds[1], buf, bytes) != bytes)
		return 1;
	snprintf(text, sizeof(text), "%d %d\n", fds[0], fds[1]);
	if (write_ready(argv[2], text))
		return 1;
	for (;;)
		pause();
}
