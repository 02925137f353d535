// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that sets distinctive process attributes and then sleeps:
 * umask 027, nice 7, RLIMIT_NOFILE 300/current max, cwd /tmp, FILE open
 * read-write at offset 5 and /dev/null open O_APPEND with FD_CLOEXEC.
 * Writes "ready" to READYFILE once set up.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ready.h"

int main(int argc, char **argv)
{
	struct rlimit rl;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: idle READYFILE FILE\n");
		return 2;
	}
	umask(027);
	if (nice(7) < 0 || getrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	rl.rlim_cur = 300;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	fd = open(argv[2], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || write(fd, "0123456789", 10) != 10 || lseek(fd, 5, SEEK_SET) != 5)
		return 1;
	if (open("/dev/null", O_WRONLY | O_APPEND | O_CLOEXEC) < 0)
		return 1;
	if (write_ready(argv[1], "ready\n") || chdir("/tmp"))
		return 1;
	for (;;)
		pause();
}
