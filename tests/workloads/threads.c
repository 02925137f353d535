// SPDX-License-Identifier: GPL-2.0
/*
 * A multi-threaded workload: N threads in all.  Thread i (the main thread
 * is 0) is named "worker-i" and blocks signal SIGRTMIN + i, so every
 * thread's name and signal mask differ.  Writes "ready" to READYFILE once
 * all threads are set up, then every thread sleeps.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ready.h"

static pthread_barrier_t all_set;

static void set_up(long i)
{
	char name[16];
	sigset_t set;

	snprintf(name, sizeof(name), "worker-%ld", i);
	pthread_setname_np(pthread_self(), name);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + (int)i);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *worker(void *arg)
{
	set_up((long)arg);
	pthread_barrier_wait(&all_set);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long i, n;

	if (argc != 3 || (n = atol(argv[1])) < 1 || n > 16) {
		fprintf(stderr, "usage: threads N READYFILE (N from 1 to 16)\n");
		return 2;
	}
	pthread_barrier_init(&all_set, NULL, (unsigned int)n);
	for (i = 1; i < n; i++)
		if (pthread_create(&t, NULL, worker, (void *)i))
			return 1;
	set_up(0);
	pthread_barrier_wait(&all_set);
	if (write_ready(argv[2], "ready\n"))
		return 1;
	for (;;)
		pause();
}
