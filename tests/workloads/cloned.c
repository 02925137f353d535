// SPDX-License-Identifier: GPL-2.0
/*
 * A child made by clone() sharing with its parent what fork() does not
 * share, which crib-dump refuses:
 *
 *   cloned files|fs|vm|signal DIR
 *
 * files: CLONE_FILES (one descriptor table), fs: CLONE_FS (one working
 * directory and umask), vm: CLONE_VM (one address space, as vfork() has
 * it until exec), signal: fork() but with SIGUSR2 for exit signal rather
 * than SIGCHLD.  Root and child write DIR/pid.ROLE, the root DIR/ready;
 * both then wait for SIGTERM.
 */
#include <sched.h>
#include <sys/mman.h>

#include "tree.h"

#define STACK_SIZE	(256 << 10)

static int child(void *arg)
{
	(void)arg;
	/* In CLONE_VM, only what the stack holds is the child's own. */
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	int flags = SIGCHLD;
	char *stack;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: cloned files|fs|vm|signal DIR\n");
		return 2;
	}
	tree_dir = argv[2];
	tree_become("root");
	if (!strcmp(argv[1], "files"))
		flags |= CLONE_FILES;
	else if (!strcmp(argv[1], "fs"))
		flags |= CLONE_FS;
	else if (!strcmp(argv[1], "vm"))
		flags |= CLONE_VM;
	else if (!strcmp(argv[1], "signal"))
		flags = SIGUSR2;
	else
		tree_die("unknown sharing '%s'", argv[1]);
	stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		tree_die("mmap");
	pid = clone(child, stack + STACK_SIZE, flags, NULL);
	if (pid < 0)
		tree_die("clone");
	tree_announce();
	tree_announce_pid("child", pid);
	tree_ready();
	for (;;)
		pause();
}
