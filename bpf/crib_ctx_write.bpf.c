// SPDX-License-Identifier: GPL-2.0
/*
 * Must be rejected: a CRIB program's context is read-only.  Loaded by the
 * guest tests, which expect the verifier's "invalid bpf_context access".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "crib_probe.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

SEC("crib")
int write_ctx(struct crib_probe_ctx *ctx)
{
	ctx->pid = 1;
	return 0;
}
