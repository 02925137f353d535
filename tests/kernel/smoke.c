// SPDX-License-Identifier: GPL-2.0
/*
 * Guest smoke test of the CRIB program type: a CRIB program run through
 * BPF_PROG_RUN reads a live process's basics, which must equal what that
 * process knows about itself; the kernel refuses a program that writes
 * its context and bad BPF_PROG_RUN arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "crib_ctx_write.skel.h"
#include "crib_libbpf.h"
#include "crib_probe.skel.h"
#include "probe.h"
#include "tap.h"

/* What the child reports about itself. */
struct self_view {
	int pid, ppid, pgid, sid;
	unsigned int uid, gid, euid, egid;
	unsigned int threads;
	unsigned int vmas;
	char comm[CRIB_COMM_LEN];
};

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* VMAs as the kernel counts them: lines of maps less the gate area. */
static unsigned int count_vmas(int pid)
{
	char path[64], line[512];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strstr(line, "[vsyscall]"))
			n++;
	fclose(f);
	return n;
}

/*
 * Fork a child with its own session, a name and a second thread.  It
 * reports on report[1] and waits on go[0] until the parent closes go[1].
 */
static pid_t start_child(const int report[2], const int go[2])
{
	struct self_view v = { 0 };
	pthread_t th;
	pid_t pid;
	char c;

	pid = fork();
	if (pid != 0)
		return pid;

	/* Only the parent may hold go[1]: its close is our cue to exit. */
	close(go[1]);
	close(report[0]);
	/* A session of its own: sid and pgid become our pid, not the parent's. */
	setsid();
	prctl(PR_SET_NAME, "crib-smoke-kid");
	if (pthread_create(&th, NULL, idle_thread, NULL))
		_exit(3);
	v.pid = getpid();
	v.ppid = getppid();
	v.pgid = getpgid(0);
	v.sid = getsid(0);
	v.uid = getuid();
	v.gid = getgid();
	v.euid = geteuid();
	v.egid = getegid();
	v.threads = 2;
	prctl(PR_GET_NAME, v.comm);
	/* Counted last, after every mapping the above created. */
	v.vmas = count_vmas(v.pid);
	if (write(report[1], &v, sizeof(v)) != sizeof(v))
		_exit(4);
	/* Stay as reported until the parent has probed us. */
	if (read(go[0], &c, 1) < 0)
		_exit(5);
	_exit(0);
}

static void test_probe_live_child(struct tap *t)
{
	int report[2], go[2], status;
	struct crib_task_basics b;
	struct self_view v;
	char err[256];
	pid_t pid;
	int ret;

	if (pipe(report) || pipe(go)) {
		tap_check(t, false, "pipes for the child: %s", strerror(errno));
		return;
	}
	pid = start_child(report, go);
	close(report[1]);
	close(go[0]);
	if (!tap_check(t, pid > 0, "child started")) {
		close(report[0]);
		close(go[1]);
		return;
	}
	if (!tap_check(t, read(report[0], &v, sizeof(v)) == sizeof(v), "child reported itself"))
		goto out;

	ret = crib_probe_task(pid, &b, err, sizeof(err));
	if (!tap_check(t, ret == 0, "crib_probe ran on pid %d%s%s", pid, ret ? ": " : "",
		       ret ? err : ""))
		goto out;
	tap_check(t, b.pid == v.pid && b.tgid == v.pid, "pid %d tgid %d == %d", b.pid, b.tgid, v.pid);
	tap_check(t, b.ppid == v.ppid, "ppid %d == %d", b.ppid, v.ppid);
	tap_check(t, b.pgid == v.pgid && v.pgid == v.pid, "pgid %d == %d", b.pgid, v.pgid);
	tap_check(t, b.sid == v.sid && v.sid == v.pid, "sid %d == %d", b.sid, v.sid);
	tap_check(t, b.uid == v.uid && b.gid == v.gid, "uid/gid %u/%u == %u/%u",
		  b.uid, b.gid, v.uid, v.gid);
	tap_check(t, b.euid == v.euid && b.egid == v.egid, "euid/egid %u/%u == %u/%u",
		  b.euid, b.egid, v.euid, v.egid);
	tap_check(t, b.nr_threads == v.threads, "threads %u == %u", b.nr_threads, v.threads);
	tap_check(t, b.map_count == v.vmas, "vmas %u == %u (procfs)", b.map_count, v.vmas);
	tap_check(t, !strncmp(b.comm, v.comm, CRIB_COMM_LEN), "comm '%.16s' == '%.16s'",
		  b.comm, v.comm);
	tap_check(t, b.start_time_ns > 0 && b.total_vm_pages > 0,
		  "start time %llu ns, %llu pages mapped",
		  (unsigned long long)b.start_time_ns, (unsigned long long)b.total_vm_pages);
out:
	close(go[1]);
	waitpid(pid, &status, 0);
	tap_check(t, WIFEXITED(status) && WEXITSTATUS(status) == 0, "child carried on and exited 0");
	close(report[0]);
}

static void test_probe_missing_pid(struct tap *t)
{
	struct crib_task_basics b;
	char err[256];
	pid_t pid;
	int ret;

	/* A pid that just ended and cannot have been reused by anything else yet. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	ret = crib_probe_task(pid, &b, err, sizeof(err));
	tap_check(t, ret == -ESRCH, "probing a reaped pid %d gives ESRCH (%s)", pid,
		  ret ? err : "succeeded");
}

static void test_ctx_write_rejected(struct tap *t)
{
	static char log[16384];
	struct crib_ctx_write *skel;
	int ret;

	skel = crib_ctx_write__open();
	if (!tap_check(t, skel != NULL, "open crib_ctx_write"))
		return;
	bpf_program__set_log_buf(skel->progs.write_ctx, log, sizeof(log));
	bpf_program__set_log_level(skel->progs.write_ctx, 1);
	ret = crib_ctx_write__load(skel);
	tap_check(t, ret != 0, "a CRIB program that writes its context does not load");
	tap_check(t, strstr(log, "invalid bpf_context access") != NULL,
		  "the verifier says 'invalid bpf_context access'");
	if (!strstr(log, "invalid bpf_context access"))
		tap_diag("verifier log: %.400s", log);
	crib_ctx_write__destroy(skel);
}

static void test_bad_prog_run_args(struct tap *t)
{
	struct crib_probe *skel;
	char data[64] = { 0 };
	int fd, ret;

	skel = crib_probe__open_and_load();
	if (!tap_check(t, skel != NULL, "load crib_probe"))
		return;
	fd = bpf_program__fd(skel->progs.probe_task);
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = data, .ctx_size_in = 2);

		ret = bpf_prog_test_run_opts(fd, &o);
		tap_check(t, ret < 0 && errno == EINVAL,
			  "a context shorter than the program reads is refused (EINVAL)");
	}
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = data, .ctx_size_in = 4,
			    .data_in = data, .data_size_in = sizeof(data));

		ret = bpf_prog_test_run_opts(fd, &o);
		tap_check(t, ret < 0 && errno == EINVAL, "packet data is refused (EINVAL)");
	}
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = data, .ctx_size_in = 4, .repeat = 2);

		ret = bpf_prog_test_run_opts(fd, &o);
		tap_check(t, ret < 0 && errno == EINVAL, "repeat is refused (EINVAL)");
	}
	crib_probe__destroy(skel);
}

int main(void)
{
	struct tap t = { 0 };
	char err[256] = "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!tap_check(&t, crib_libbpf_init(err, sizeof(err)) == 0, "CRIB known to libbpf%s%s",
		       err[0] ? ": " : "", err))
		return tap_done(&t);
	test_probe_live_child(&t);
	test_probe_missing_pid(&t);
	test_ctx_write_rejected(&t);
	test_bad_prog_run_args(&t);
	return tap_done(&t);
}
