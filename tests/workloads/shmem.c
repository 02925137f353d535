// SPDX-License-Identifier: GPL-2.0
/*
 * Shared anonymous memory written by a parent and its child: one object of
 * 16 pages, mapped MAP_SHARED | MAP_ANONYMOUS by the root before it forked
 * the child, and split in the root into three VMAs (pages 8 and 9 made
 * read-only).  Page 0 carries a token: the root writes a word, the child,
 * polling, answers with that word plus one in the next.  Pages 1 to 15 hold
 * a pattern.  The root also has a shared mapping of its own, made after the
 * fork.  Both sleep until a signal comes (so their memory stays still while
 * nothing happens): the root sends the child SIGUSR2 with each token.
 *
 *   shmem DIR
 *
 * Each writes DIR/pid.ROLE (root, child); the root DIR/ready once the child
 * has answered the first token.  SIGUSR1 to the root: it sends a new token
 * and waits for the answer (so the two still share one object), and both
 * check the pattern (DIR/check.root, DIR/check.child).
 */
#include <stdint.h>
#include <sys/mman.h>

#include "tree.h"

#define PAGES	16

static volatile uint64_t *shared;
static unsigned char *own;
static size_t page;
static pid_t child_pid;

static void check_pattern(void)
{
	tree_check_fill((unsigned char *)shared + page, (PAGES - 1) * page, "shared",
			"the shared object");
	if (own)
		tree_check_fill(own, page, "own", "the root's own shared mapping");
}

static void __attribute__((noreturn)) child(void)
{
	tree_become("child");
	shared[1] = shared[0] + 1;
	tree_announce();
	for (;;) {
		tree_wait_signal();
		if (tree_usr2) {
			tree_usr2 = 0;
			shared[1] = shared[0] + 1;
		}
		if (tree_usr1) {
			tree_usr1 = 0;
			check_pattern();
			tree_report_to("check");
		}
		if (tree_term)
			exit(0);
	}
}

/* Send @token and wait for the child's answer; 0 when it came. */
static int exchange(uint64_t token)
{
	shared[0] = token;
	kill(child_pid, SIGUSR2);
	for (int i = 0; i < 1000; i++) {
		if (shared[1] == token + 1)
			return 0;
		tree_sleep_ms(20);
	}
	tree_fail("the child did not answer token %llu (word 1 is %llu)",
		  (unsigned long long)token, (unsigned long long)shared[1]);
	return -1;
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: shmem DIR\n");
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	tree_catch_signals();
	page = (size_t)sysconf(_SC_PAGESIZE);
	shared = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		tree_die("mmap");
	tree_fill((unsigned char *)shared + page, (PAGES - 1) * page, "shared");
	shared[0] = 1;
	pid = fork();
	if (pid < 0)
		tree_die("fork");
	if (pid == 0)
		child();
	child_pid = pid;
	if (mprotect((char *)shared + 8 * page, 2 * page, PROT_READ))
		tree_die("mprotect");
	own = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED)
		tree_die("mmap");
	tree_fill(own, page, "own");
	if (exchange(1))
		tree_die("the child did not answer");
	tree_announce();
	if (tree_wait_file("pid", "child", 120))
		tree_die("the child did not start");
	tree_ready();
	for (uint64_t token = 100;; token += 100) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			exchange(token);
			check_pattern();
			kill(pid, SIGUSR1);
			tree_report_to("check");
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}
