// SPDX-License-Identifier: GPL-2.0
/*
 * Negative verifier tests for the CRIB kfuncs: each program of
 * crib_negative.bpf.c is loaded on its own and must be rejected with its
 * specific verifier message (the control programs must load).  TAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_negative.skel.h"
#include "tap.h"

struct neg_case {
	const char *prog;
	const char *msg;	/* NULL: must load */
	const char *why;
};

static const struct neg_case cases[] = {
	{ "leak_file", "Unreleased reference", "leaked file reference" },
	{ "leak_sock", "Unreleased reference", "sock reference leaked on one path" },
	{ "leak_skb", "Unreleased reference", "leaked skb reference" },
	{ "leak_iter", "Unreleased reference", "task_file iterator not destroyed" },
	{ "use_after_release", "invalid mem access 'scalar'", "file used after release" },
	{ "obtained_after_release", "invalid mem access 'scalar'",
	  "KF_OBTAIN result used after its source was released" },
	{ "untrusted_arg", "R1 must be referenced or trusted",
	  "untrusted pointer to a trusted-args kfunc" },
	{ "wrong_type", "expected pointer to STRUCT udp_sock but R1 has a pointer to STRUCT sock",
	  "sock passed as udp_sock" },
	{ "sleepable_kfunc", "program must be sleepable to call sleepable kfunc bpf_skb_peek_tail",
	  "sleepable kfunc from a non-sleepable program" },
	{ "not_crib", "calling kernel function bpf_file_from_task_fd is not allowed",
	  "CRIB kfunc from a syscall program" },
	{ "write_ctx", "invalid bpf_context access", "store to the context" },
	{ "leak_restore_skb", "Unreleased reference",
	  "skb to restore neither queued nor freed when filling fails" },
	{ "write_queued_skb",
	  "arg#0 pointer type STRUCT sk_buff___init must point to scalar",
	  "skb to restore written to once queued" },
	{ "write_clone",
	  "expected pointer to STRUCT sk_buff___init but R1 has a pointer to STRUCT sk_buff",
	  "clone of a queued skb written to as an skb to restore" },
	{ "release_restore_skb",
	  "expected pointer to STRUCT sk_buff but R1 has a pointer to STRUCT sk_buff___init",
	  "skb to restore released as a plain skb" },
	{ "accepted", NULL, "correct use is accepted" },
	{ "restore_accepted", NULL, "correct restore is accepted" },
};

static char log_buf[1 << 20];

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

	libbpf_set_print(print);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
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
		}
		crib_negative__destroy(skel);
	}
	return tap_done(&t);
}
