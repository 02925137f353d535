// SPDX-License-Identifier: GPL-2.0
/*
 * The socket records the dump_sockets CRIB program sends, collected
 * whole: the program stops when the ring buffer is full and is run again
 * from the descriptor after the last one it sent.
 */
#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_sockets.h"
#include "dump_sockets.skel.h"

/* The walk goes on from the descriptor after the last socket that arrived. */
static uint64_t after_socket(const void *last)
{
	return (uint64_t)((const struct dump_socket_rec *)last)->fd + 1;
}

int sockets_collect(struct dump_job *job, struct crib_target target, pid_t pid, int fd,
		    struct record_list *recs)
{
	struct dump_socket_ctx ctx = { .target = target, .pid = pid, .fd = fd };
	struct collect_walk walk = {
		.prog = &job->progs.sockets,
		.map_fd = job->progs.socket_records,
		.ctx = &ctx, .ctx_size = sizeof(ctx), .start = &ctx.start,
		.resume_after = after_socket, .pid = pid,
	};

	return program_collect_all(&walk, recs, &job->err);
}
