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

int sockets_collect(struct dump_job *job, pid_t pid, int fd, struct record_list *recs)
{
	struct dump_socket_ctx ctx = { .pid = pid, .fd = fd };
	const struct dump_socket_rec *last;
	int ret;

	for (;;) {
		ret = program_collect_kinds(job->progs.sockets->progs.dump_sockets,
					    bpf_map__fd(job->progs.sockets->maps.socket_records),
					    &ctx, sizeof(ctx), &recs, 1, &job->err);
		if (ret < 0)
			return -1;
		if (ret == DUMP_OK)
			return 0;
		if (ret == DUMP_NO_ROOM && recs->n) {
			last = (const struct dump_socket_rec *)recs->items + recs->n - 1;
			ctx.start = (uint64_t)last->fd + 1;
			continue;
		}
		if (ret == DUMP_NO_TASK)
			return tool_fail(&job->err, 0, "no process with pid %d", (int)pid);
		return tool_fail(&job->err, 0, "dump_sockets failed (result %d)", ret);
	}
}
