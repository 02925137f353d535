// SPDX-License-Identifier: GPL-2.0
/* Reading a task's basics through the crib_probe program. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_probe.skel.h"
#include "probe.h"

struct probe_result {
	struct crib_task_basics *out;
	int records;
};

static int on_basics(void *data, void *rec, size_t size)
{
	struct probe_result *res = data;

	if (size != sizeof(*res->out))
		return -EPROTO;
	memcpy(res->out, rec, sizeof(*res->out));
	res->records++;
	return 0;
}

int crib_probe_task(int pid, struct crib_task_basics *out, char *err, size_t err_size)
{
	struct crib_probe_ctx ctx = { .pid = pid };
	struct probe_result res = { .out = out };
	struct ring_buffer *rb = NULL;
	struct crib_probe *skel;
	int ret, retval;

	ret = crib_libbpf_init(err, err_size);
	if (ret)
		return ret;

	skel = crib_probe__open_and_load();
	if (!skel) {
		ret = -errno;
		snprintf(err, err_size, "cannot load the crib_probe program: %s",
			 strerror(errno));
		return ret;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.basics), on_basics, &res, NULL);
	if (!rb) {
		ret = -errno;
		snprintf(err, err_size, "cannot open the ring buffer: %s", strerror(errno));
		goto out;
	}
	/* The run is scoped to the process it reads. */
	ctx.target.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (ctx.target.pidfd < 0) {
		ret = -errno;
		if (errno == ESRCH)
			snprintf(err, err_size, "no process with pid %d", pid);
		else
			snprintf(err, err_size, "pidfd_open(%d): %s", pid, strerror(errno));
		goto out;
	}
	ret = crib_prog_run_target(skel->progs.probe_task, &ctx, sizeof(ctx), &retval);
	close(ctx.target.pidfd);
	if (ret) {
		snprintf(err, err_size, "BPF_PROG_RUN failed: %s", strerror(-ret));
		goto out;
	}
	if (retval == CRIB_PROBE_NO_TASK) {
		ret = -ESRCH;
		snprintf(err, err_size, "no process with pid %d", pid);
		goto out;
	}
	if (retval != CRIB_PROBE_OK) {
		ret = -EIO;
		snprintf(err, err_size, "the probe program failed (%d)", retval);
		goto out;
	}
	ret = ring_buffer__consume(rb);
	if (ret < 0 || res.records != 1) {
		ret = ret < 0 ? ret : -EPROTO;
		snprintf(err, err_size, "expected one record from the probe, got %d (%s)",
			 res.records, strerror(-ret));
		goto out;
	}
	ret = 0;
out:
	ring_buffer__free(rb);
	crib_probe__destroy(skel);
	return ret;
}
