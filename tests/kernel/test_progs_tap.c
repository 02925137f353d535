// SPDX-License-Identifier: GPL-2.0
/*
 * The series' tests in the kernel's BPF selftests (run by the test_progs
 * runner of tools/testing/selftests/bpf): CRIB's, and the verifier's rules on
 * upstream iterators (iter_element_life), as TAP for the guest test suite.
 * kernel/selftests.sh links test_progs, its main renamed test_progs_main,
 * with only those tests into this program; it runs them in a child and
 * turns each subtest result line ("#12/3 crib_verifier/name:OK") into a
 * TAP check, passing the rest of the output on as comments.  A skipped
 * subtest is a failure: it checked nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

int test_progs_main(int argc, char **argv);

/* "#12/3 crib_verifier/name:OK": the name and the result, or false. */
static bool subtest_result(char *line, char **name, char **result)
{
	int test, subtest, n = 0;
	char *colon;

	if (sscanf(line, "#%d/%d %n", &test, &subtest, &n) != 2 || !n)
		return false;
	colon = strrchr(line + n, ':');
	if (!colon)
		return false;
	*colon = 0;
	*name = line + n;
	*result = colon + 1;
	return true;
}

int main(void)
{
	char *argv[] = { "test_progs", "-t", "crib,iter_element_life", NULL };
	char line[4096], *name, *result;
	bool summary = false;
	struct tap t = {};
	int p[2], status;
	FILE *out;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(p) || (pid = fork()) < 0) {
		printf("Bail out! cannot start test_progs\n");
		return 1;
	}
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		close(p[1]);
		exit(test_progs_main(3, argv));
	}
	close(p[1]);
	out = fdopen(p[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = 0;
		tap_diag("%s", line);
		/* the failures are printed again at the end, with their logs */
		if (!strncmp(line, "All error logs:", 15))
			summary = true;
		if (!summary && subtest_result(line, &name, &result))
			tap_check(&t, !strcmp(result, "OK"), "%s", name);
	}
	waitpid(pid, &status, 0);
	tap_check(&t, t.run > 0, "test_progs ran CRIB subtests");
	tap_check(&t, WIFEXITED(status) && !WEXITSTATUS(status), "test_progs reports no failure");
	return tap_done(&t);
}
