// SPDX-License-Identifier: GPL-2.0
/*
 * What bpf_timerfd_get_state() reports of a periodic timerfd that expired
 * and was not read: the kernel stops such a timer at its first expiry and
 * moves it forward only when read(2) or timerfd_gettime() asks, so the
 * kfunc must do the same arithmetic (without moving it) or a restore
 * takes "no time left" for a disarmed timer and the periods missed are
 * lost.  Checked against timerfd_gettime() and read() afterwards, and for
 * a one-shot timer that expired (no time left, one expiration).  TAP
 * output.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_target.h"
#include "crib_timerfd.skel.h"
#include "tap.h"

#define MS		1000000LL
#define PERIOD_MS	50
#define WAIT_MS		420	/* eight periods and a bit after the first expiry */

struct timerfd_args {
	struct crib_target target;
	int pid;
	int fd;
};

/* A timerfd on CLOCK_MONOTONIC first due in 10 ms, then every @period_ms (0: once). */
static int start_timer(int period_ms)
{
	struct itimerspec its = {
		.it_value = { 0, 10 * MS },
		.it_interval = { 0, period_ms * MS },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		return -1;
	return fd;
}

/* The kfunc's view of timerfd @fd; 0, or the run's or program's error. */
static int state_of(struct crib_timerfd *skel, int fd)
{
	struct timerfd_args args = { .pid = getpid(), .fd = fd };
	int retval = -1, err;

	err = crib_prog_run_about(skel->progs.timerfd_state, getpid(), &args, sizeof(args),
				  &retval);
	return err ? err : retval;
}

static void check_periodic(struct tap *t, struct crib_timerfd *skel)
{
	int fd = start_timer(PERIOD_MS), err;
	struct itimerspec now;
	uint64_t ticks = 0;
	int64_t value;

	if (!tap_check(t, fd >= 0, "a periodic timerfd"))
		return;
	usleep(WAIT_MS * 1000);
	err = state_of(skel, fd);
	value = skel->bss->value;
	if (!tap_check(t, !err && value > 0 && value <= PERIOD_MS * MS,
		       "an expired periodic timer has time left to its next period"))
		tap_diag("error %d, value %lld ns, interval %lld ns", err, (long long)value,
			 (long long)skel->bss->interval);
	if (!tap_check(t, skel->bss->ticks >= (WAIT_MS - 10) / PERIOD_MS - 1,
		       "the periods it missed are counted"))
		tap_diag("%llu expirations reported after %d ms", skel->bss->ticks,
			 WAIT_MS);
	/* a period may have begun since: both are somewhere in one */
	timerfd_gettime(fd, &now);
	if (!tap_check(t, now.it_value.tv_sec == 0 && now.it_value.tv_nsec > 0 &&
		       now.it_value.tv_nsec <= PERIOD_MS * MS,
		       "timerfd_gettime() agrees that the timer runs"))
		tap_diag("timerfd_gettime: %ld ns, kfunc %lld ns", now.it_value.tv_nsec,
			 (long long)value);
	if (!tap_check(t, read(fd, &ticks, sizeof(ticks)) == sizeof(ticks) &&
		       ticks >= skel->bss->ticks, "read() returns at least as many"))
		tap_diag("read %llu, kfunc %llu", (unsigned long long)ticks,
			 skel->bss->ticks);
	close(fd);
}

static void check_one_shot(struct tap *t, struct crib_timerfd *skel)
{
	int fd = start_timer(0), err;

	if (!tap_check(t, fd >= 0, "a one-shot timerfd"))
		return;
	usleep(100 * 1000);
	err = state_of(skel, fd);
	if (!tap_check(t, !err && skel->bss->value == 0 && skel->bss->ticks == 1,
		       "an expired one-shot timer has no time left and one expiration"))
		tap_diag("error %d, value %lld, ticks %llu", err,
			 (long long)skel->bss->value, skel->bss->ticks);
	close(fd);
}

int main(void)
{
	struct crib_timerfd *skel;
	struct tap t = {};
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	skel = crib_timerfd__open_and_load();
	if (!skel) {
		printf("Bail out! crib_timerfd does not load: %s\n", strerror(errno));
		return 1;
	}
	check_periodic(&t, skel);
	check_one_shot(&t, skel);
	crib_timerfd__destroy(skel);
	return tap_done(&t);
}
