/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space glue between libbpf and the CRIB program type.
 *
 * Debian's libbpf 1.1 predates BPF_PROG_TYPE_CRIB: it knows neither the
 * type nor SEC("crib").  crib_libbpf_init() teaches it both, taking the
 * type's number from the running kernel's BTF rather than from a header,
 * so a kernel without CRIB is reported as such instead of failing later
 * with a bare EINVAL.
 */
#ifndef CRIB_LIBBPF_H
#define CRIB_LIBBPF_H

#include <stddef.h>
#include <sys/types.h>

struct bpf_program;

/*
 * Register SEC("crib") and SEC("crib.s") (sleepable) with libbpf.
 * Returns 0, or -errno with a message in @err (size @err_size).
 * Safe to call more than once.
 */
int crib_libbpf_init(char *err, size_t err_size);

/*
 * Run a loaded CRIB program once through BPF_PROG_RUN with @ctx as its
 * read-only context, scoped to a target: @ctx starts with a struct
 * crib_target (crib_target.h) naming it by pidfd.  A run reaches the
 * target's tree only, and nothing without a target, so every run names
 * one.  Returns 0 and the program's return value in @retval, or -errno:
 * -EPERM if the caller may not ptrace the target.
 */
int crib_prog_run_target(const struct bpf_program *prog, const void *ctx,
			 size_t ctx_size, int *retval);
/* The same for a program known by its descriptor (loaded, or from a pin). */
int crib_prog_fd_run_target(int prog_fd, const void *ctx, size_t ctx_size, int *retval);
/*
 * A run scoped to process @pid: the struct crib_target at the head of
 * @ctx is filled with a pidfd of @pid, closed again after the run.
 */
int crib_prog_run_about(const struct bpf_program *prog, pid_t pid, void *ctx,
			size_t ctx_size, int *retval);

#endif /* CRIB_LIBBPF_H */
