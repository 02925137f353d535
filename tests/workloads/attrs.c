// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with the attributes a snapshot carries beyond the usual ones:
 * oom_score_adj 321, a timer slack of 123456 ns, its CPU affinity cut to
 * the last CPU it may use (when it may use more than one), all set before
 * it starts NTHREADS sleeping threads, which inherit them; and one mapping
 * of 10 pages with advice on every other page: page 0 MADV_RANDOM, 2
 * MADV_SEQUENTIAL, 4 MADV_DONTDUMP, 6 MADV_DONTFORK, 8 MADV_WIPEONFORK;
 * and a socket set for signal-driven I/O: O_ASYNC, its SIGIO given to the
 * process (F_SETOWN_EX) as SIGRTMIN + 1 (F_SETSIG), which it ignores.
 * Writes the mapping's address in hex and the socket's descriptor to
 * READYFILE once set up.
 */
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ready.h"

#define NPAGES	10

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int set_oom_score_adj(void)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "w");

	if (!f)
		return -1;
	fputs("321\n", f);
	return fclose(f);
}

static int narrow_affinity(void)
{
	cpu_set_t cpus;
	int cpu, last = -1;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return -1;
	if (CPU_COUNT(&cpus) < 2)
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &cpus))
			last = cpu;
	CPU_ZERO(&cpus);
	CPU_SET(last, &cpus);
	return sched_setaffinity(0, sizeof(cpus), &cpus);
}

static char *advised_mapping(void)
{
	static const int advice[] = { MADV_RANDOM, MADV_SEQUENTIAL, MADV_DONTDUMP,
				      MADV_DONTFORK, MADV_WIPEONFORK };
	long page = sysconf(_SC_PAGESIZE);
	char *base;
	int i;

	base = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	for (i = 0; i < NPAGES; i++)
		base[i * page] = (char)('a' + i);
	for (i = 0; i < 5; i++)
		if (madvise(base + 2 * i * page, page, advice[i]))
			return NULL;
	return base;
}

static int signal_driven_socket(void)
{
	struct f_owner_ex owner = { .type = F_OWNER_PID, .pid = getpid() };
	int sv[2];

	if (signal(SIGRTMIN + 1, SIG_IGN) == SIG_ERR ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    fcntl(sv[0], F_SETOWN_EX, &owner) || fcntl(sv[0], F_SETSIG, SIGRTMIN + 1) ||
	    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_ASYNC))
		return -1;
	return sv[0];
}

int main(int argc, char **argv)
{
	pthread_t thread;
	char text[48];
	char *base;
	int i, n, sock;

	if (argc != 3) {
		fprintf(stderr, "usage: attrs NTHREADS READYFILE\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (set_oom_score_adj() || narrow_affinity() || prctl(PR_SET_TIMERSLACK, 123456, 0, 0, 0))
		return 1;
	base = advised_mapping();
	sock = signal_driven_socket();
	if (!base || sock < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&thread, NULL, sleeper, NULL))
			return 1;
	snprintf(text, sizeof(text), "%lx %d\n", (unsigned long)base, sock);
	if (write_ready(argv[2], text))
		return 1;
	for (;;)
		pause();
}
