// SPDX-License-Identifier: GPL-2.0
/* User-space glue between libbpf and the CRIB program type. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_target.h"

static int crib_prog_type = -1;

/* The value of BPF_PROG_TYPE_CRIB in the running kernel's enum bpf_prog_type. */
static int find_crib_prog_type(char *err, size_t err_size)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	struct btf *btf;
	int id, i, ret = -ENOENT;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, err_size, "cannot read the kernel's BTF: %s",
			 strerror(errno));
		return -errno;
	}
	id = btf__find_by_name_kind(btf, "bpf_prog_type", BTF_KIND_ENUM);
	if (id < 0) {
		snprintf(err, err_size, "kernel BTF has no enum bpf_prog_type");
		goto out;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), "BPF_PROG_TYPE_CRIB")) {
			ret = e->val;
			goto out;
		}
	}
	snprintf(err, err_size,
		 "this kernel has no BPF_PROG_TYPE_CRIB (not a CRIB kernel, or CONFIG_BPF_CRIB=n)");
out:
	btf__free(btf);
	return ret;
}

static int prepare_sleepable(struct bpf_program *prog, struct bpf_prog_load_opts *opts,
			     long cookie)
{
	(void)prog;
	(void)cookie;
	opts->prog_flags |= BPF_F_SLEEPABLE;
	return 0;
}

int crib_libbpf_init(char *err, size_t err_size)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, plain);
	LIBBPF_OPTS(libbpf_prog_handler_opts, sleepable,
		    .prog_prepare_load_fn = prepare_sleepable);
	int type, ret;

	if (crib_prog_type >= 0)
		return 0;
	type = find_crib_prog_type(err, err_size);
	if (type < 0)
		return type;

	ret = libbpf_register_prog_handler("crib", type, 0, &plain);
	if (ret < 0)
		goto fail;
	ret = libbpf_register_prog_handler("crib.s", type, 0, &sleepable);
	if (ret < 0)
		goto fail;
	crib_prog_type = type;
	return 0;
fail:
	snprintf(err, err_size, "libbpf refused the CRIB section handlers: %s",
		 strerror(-ret));
	return ret;
}

int crib_prog_fd_run_target(int prog_fd, const void *ctx, size_t ctx_size, int *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .ctx_in = ctx,
		    .ctx_size_in = ctx_size,
		    .flags = CRIB_RUN_TARGET);

	if (bpf_prog_test_run_opts(prog_fd, &opts) < 0)
		return -errno;
	*retval = (int)opts.retval;
	return 0;
}

int crib_prog_run_target(const struct bpf_program *prog, const void *ctx,
			 size_t ctx_size, int *retval)
{
	return crib_prog_fd_run_target(bpf_program__fd(prog), ctx, ctx_size, retval);
}

int crib_prog_run_about(const struct bpf_program *prog, pid_t pid, void *ctx,
			size_t ctx_size, int *retval)
{
	struct crib_target *target = ctx;
	int err;

	if (ctx_size < sizeof(*target))
		return -EINVAL;
	target->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (target->pidfd < 0)
		return -errno;
	target->flags = 0;
	err = crib_prog_run_target(prog, ctx, ctx_size, retval);
	close(target->pidfd);
	target->pidfd = -1;
	return err;
}
