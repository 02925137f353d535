// SPDX-License-Identifier: GPL-2.0
/*
 * Negative verifier tests for the CRIB kfuncs: each program of
 * crib_negative.bpf.c is loaded on its own and must be rejected with its
 * specific verifier message (the control programs must load).  A program
 * that would use freed memory is run if it loads anyway, on a socket with
 * datagrams queued, so that a KASAN kernel reports the use-after-free
 * (the runner fails a boot whose log has a splat).  TAP output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_target.h"
#include "crib_negative.skel.h"
#include "tap.h"
#include "udp_queue.h"

struct neg_case {
	const char *prog;
	const char *msg;	/* NULL: must load */
	const char *why;
	bool uaf;		/* run it, should it load */
};

#define NOT_SCALAR "must point to scalar, or struct with scalar"

static const struct neg_case cases[] = {
	{ "leak_file", "Unreleased reference", "leaked file reference", false },
	{ "leak_sock", "Unreleased reference", "sock reference leaked on one path", false },
	{ "leak_skb", "Unreleased reference", "leaked skb reference", false },
	{ "leak_iter", "Unreleased reference", "task_file iterator not destroyed", false },
	{ "use_after_release", "invalid mem access 'scalar'", "file used after release", false },
	{ "obtained_after_release", "invalid mem access 'scalar'",
	  "KF_OBTAIN result used after its source was released", false },
	{ "untrusted_arg", "R1 must be referenced or trusted",
	  "untrusted pointer to a trusted-args kfunc", false },
	{ "wrong_type", "expected pointer to STRUCT socket but R1 has a pointer to STRUCT sock",
	  "sock passed as socket", false },
	{ "sleepable_kfunc", "program must be sleepable to call sleepable kfunc bpf_skb_peek_tail",
	  "sleepable kfunc from a non-sleepable program", false },
	{ "not_crib", "calling kernel function bpf_file_from_task_fd is not allowed",
	  "CRIB kfunc from a syscall program", false },
	{ "write_ctx", "invalid bpf_context access", "store to the context", false },
	{ "leak_restore_skb", "Unreleased reference",
	  "skb to restore neither queued nor freed when filling fails", false },
	{ "write_queued_skb",
	  "arg#0 pointer type STRUCT sk_buff___init must point to scalar",
	  "skb to restore written to once queued", false },
	{ "write_clone",
	  "expected pointer to STRUCT sk_buff___init but R1 has a pointer to STRUCT sk_buff",
	  "clone of a queued skb written to as an skb to restore", false },
	{ "release_restore_skb",
	  "expected pointer to STRUCT sk_buff but R1 has a pointer to STRUCT sk_buff___init",
	  "skb to restore released as a plain skb", false },
	{ "skb_after_next", "arg#0 pointer type STRUCT sk_buff " NOT_SCALAR,
	  "iterated skb passed to a kfunc after the next step freed it", true },
	{ "skb_spilled_after_next", "invalid mem access 'scalar'",
	  "iterated skb kept on the stack, read after the next step freed it", true },
	{ "skb_after_destroy", "arg#0 pointer type STRUCT sk_buff " NOT_SCALAR,
	  "iterated skb referenced after its iterator was destroyed", true },
	{ "file_after_next", "arg#0 pointer type STRUCT file " NOT_SCALAR,
	  "iterated file used after the next step dropped it", true },
	{ "file_after_destroy", "invalid mem access 'scalar'",
	  "iterated file read after its iterator was destroyed", true },
	{ "obtained_after_next", "arg#0 pointer type STRUCT socket " NOT_SCALAR,
	  "socket of an iterated file used after the next step", true },
	{ "obtained_after_destroy", "arg#0 pointer type STRUCT socket " NOT_SCALAR,
	  "socket of an iterated file used after the iterator was destroyed", true },
	{ "obtained_released",
	  "release kernel function bpf_sock_release expects refcounted PTR_TO_BTF_ID",
	  "KF_OBTAIN result released as if it owned its parent's reference", false },
	{ "skb_acquire_unchecked", "Possibly NULL pointer passed to trusted arg0",
	  "bpf_skb_acquire() result used without a NULL check", false },
	{ "task_from_pid", "calling kernel function bpf_task_from_pid is not allowed",
	  "task from a pid through the generic kfunc", false },
	{ "task_from_vpid", "calling kernel function bpf_task_from_vpid is not allowed",
	  "a task from a pid anywhere in the system", false },
	{ "task_iter", "calling kernel function bpf_iter_task_new is not allowed",
	  "every process through the task iterator", false },
	{ "task_vma_iter", "calling kernel function bpf_iter_task_vma_new is not allowed",
	  "a parent's mappings through the generic task_vma iterator", false },
	{ "css_iter", "calling kernel function bpf_iter_css_new is not allowed",
	  "every cgroup through the css iterator", false },
	{ "current_task", "program of this type cannot use helper bpf_get_current_task_btf#",
	  "the current task through the tracing helper", false },
	{ "read_user", "program of this type cannot use helper bpf_probe_read_user#",
	  "a read at any user address", false },
	{ "skb_kept_accepted", NULL, "iterated skb kept with its own reference is accepted", false },
	{ "tree_accepted", NULL, "children, threads and mappings of a task of the run's tree "
	  "are accepted", false },
	{ "accepted", NULL, "correct use is accepted", false },
	{ "restore_accepted", NULL, "correct restore is accepted", false },
};

static char log_buf[1 << 20];

/* Run a program that should never have loaded, on that socket. */
static void run_loaded(const struct neg_case *c, struct bpf_program *p, int fd)
{
	struct { struct crib_target target; int pid, fd; } args = { .pid = getpid(), .fd = fd };
	int retval;

	tap_diag("%s loaded: running it, a KASAN kernel reports what it does", c->prog);
	crib_prog_run_about(p, getpid(), &args, sizeof(args), &retval);
}

/* libbpf's own messages only with CRIB_VERBOSE set */
static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv("CRIB_VERBOSE") || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(void)
{
	struct tap t = {};
	char err[256];
	size_t i;
	int fd;

	libbpf_set_print(print);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	fd = udp_with_queue(4);
	if (fd < 0) {
		printf("Bail out! no UDP socket with queued datagrams: %s\n", strerror(errno));
		return 1;
	}

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct neg_case *c = &cases[i];
		struct crib_negative *skel = crib_negative__open();
		struct bpf_program *p, *target = NULL;
		int ret;

		if (!skel) {
			tap_check(&t, false, "%s: open: %s", c->prog, strerror(errno));
			continue;
		}
		bpf_object__for_each_program(p, skel->obj) {
			bool me = !strcmp(bpf_program__name(p), c->prog);

			bpf_program__set_autoload(p, me);
			if (me)
				target = p;
		}
		if (!target) {
			tap_check(&t, false, "%s: no such program", c->prog);
			crib_negative__destroy(skel);
			continue;
		}
		log_buf[0] = 0;
		bpf_program__set_log_buf(target, log_buf, sizeof(log_buf));
		bpf_program__set_log_level(target, 1);

		ret = crib_negative__load(skel);
		if (!c->msg) {
			if (!tap_check(&t, ret == 0, "%s (%s)", c->prog, c->why))
				tap_diag("load failed: %d, log tail: %.400s", ret,
					 log_buf + (strlen(log_buf) > 400 ? strlen(log_buf) - 400 : 0));
		} else if (!tap_check(&t, ret != 0 && strstr(log_buf, c->msg),
				      "%s rejected: %s", c->prog, c->why)) {
			tap_diag("load returned %d, expected message \"%s\"", ret, c->msg);
			tap_diag("log tail: %.600s",
				 log_buf + (strlen(log_buf) > 600 ? strlen(log_buf) - 600 : 0));
			if (!ret && c->uaf)
				run_loaded(c, target, fd);
		}
		crib_negative__destroy(skel);
	}
	return tap_done(&t);
}
