// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that signals itself without pause: its main thread sends
 * itself SIGUSR1 (tgkill, unblocked, with a handler) over and over, so a
 * freeze often finds it on its way to deliver one.  Each signal must be
 * handled before tgkill returns to the loop; one that never is (lost by a
 * dump) makes it write READYFILE.bad and exit with status 3.  It writes
 * the handler's address (hex) to READYFILE once the handler is installed,
 * and the number of signals sent to COUNTFILE every second.
 *
 *   sigstorm READYFILE COUNTFILE
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ready.h"

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

int main(int argc, char **argv)
{
	char bad[4096], text[64];
	struct sigaction sa;
	unsigned long sent = 0;
	time_t last = 0;
	pid_t pid, tid;

	if (argc != 3) {
		fprintf(stderr, "usage: sigstorm READYFILE COUNTFILE\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	pid = getpid();
	tid = (pid_t)syscall(SYS_gettid);
	snprintf(text, sizeof(text), "%lx\n", (unsigned long)on_usr1);
	if (write_ready(argv[1], text))
		return 1;
	for (;;) {
		syscall(SYS_tgkill, pid, tid, SIGUSR1);
		sent++;
		/* an unblocked signal to oneself is delivered on the way out of tgkill */
		if ((unsigned long)handled != sent) {
			snprintf(bad, sizeof(bad), "%s.bad", argv[1]);
			snprintf(text, sizeof(text), "sent %lu, handled %lu\n", sent,
				 (unsigned long)handled);
			write_ready(bad, text);
			return 3;
		}
		if (time(NULL) != last) {
			last = time(NULL);
			snprintf(text, sizeof(text), "%lu\n", sent);
			write_ready(argv[2], text);
		}
	}
}
