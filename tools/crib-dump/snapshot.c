// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshot stream (spec/format.md), which crib-restore's snapshot.c
 * reads back: opened with its header, what the snapshot came from and the
 * tree's clocks, and
 * a note on where the records' paths come from; closed once every record
 * is written, or abandoned when the dump fails.
 */
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "crib-dump.h"
#include "version.h"

/* Where the records' paths come from, for whoever reads the snapshot. */
static int write_path_note(struct dump_job *job)
{
	if (crib_write_note(job->writer, "crib-dump.paths",
			    "paths resolved from /proc/PID/{cwd,root,exe,fd,map_files}, checked against the device and inode read by the CRIB programs"))
		return tool_fail(&job->err, 0, "writing a note: %s",
				 crib_writer_error(job->writer)->msg);
	return 0;
}

/*
 * zstd compresses in worker threads, one per CPU, when there is more than
 * one: the pages are read and the records made while earlier ones are
 * compressed.
 */
static int compress_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus <= 1)
		return 0;
	return cpus < CRIB_THREADS_MAX ? (int)cpus : CRIB_THREADS_MAX;
}

int snapshot_open(struct dump_job *job, const struct dump_output *out,
		  const struct dump_clocks *clocks)
{
	CRIB_OPTS(crib_writer_opts, opts, .level = out->level, .threads = compress_threads(),
		  .store_bulk = out->fast);
	struct crib_header hdr = { 0 };
	struct crib_error cerr;
	struct timespec now;
	struct utsname u;

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &now);
	hdr.kernel_release = u.release;
	hdr.arch = u.machine;
	hdr.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	hdr.tool_name = "crib-dump";
	hdr.tool_version = tool_version();
	hdr.time_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	hdr.hostname = u.nodename;
	hdr.root_pid = (uint64_t)job->pid;
	hdr.monotonic_ns = clocks->monotonic_ns;
	hdr.boottime_ns = clocks->boottime_ns;
	hdr.boot_id = clocks->boot_id;
	hdr.timens_monotonic_ns = clocks->timens_monotonic_ns;
	hdr.timens_boottime_ns = clocks->timens_boottime_ns;
	job->writer = crib_writer_open(out->fd, &hdr, &opts, &cerr);
	if (!job->writer)
		return tool_fail(&job->err, 0, "cannot start the snapshot: %s", cerr.msg);
	return write_path_note(job);
}

int snapshot_close(struct dump_job *job)
{
	struct crib_error cerr;
	int ret;

	ret = crib_writer_close(job->writer, &cerr);
	job->writer = NULL;
	if (ret)
		return tool_fail(&job->err, 0, "finishing the snapshot: %s", cerr.msg);
	return 0;
}

void snapshot_abort(struct dump_job *job)
{
	if (job->writer)
		crib_writer_abort(job->writer);
	job->writer = NULL;
}
