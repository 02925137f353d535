// SPDX-License-Identifier: GPL-2.0-only
/* Signal handlers, process-wide pending signals, timers. */
#include "internal.h"

#define R CRIB_FIELD_REQUIRED
#define ID (CRIB_FIELD_REQUIRED | CRIB_FIELD_ID)
#define X CRIB_FIELD_HEX
#define V CRIB_FIELD_VOLATILE

static const struct crib_field sigaction_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_sigaction, signo, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, X, struct crib_sigaction, handler, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, X, struct crib_sigaction, flags, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, X, struct crib_sigaction, restorer, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, X, struct crib_sigaction, mask, 0, NULL),
};
static const struct crib_struct_desc sigaction_desc =
	CRIB_DESC("sigaction", struct crib_sigaction, sigaction_fields);

static const struct crib_field sighand_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_sighand, pid, 0, NULL),
	CRIB_FA(2, CRIB_FT_STRUCT_ARRAY, 0, struct crib_sighand, actions, 128, &sigaction_desc),
};
const struct crib_struct_desc crib_sighand_desc =
	CRIB_DESC("sighand", struct crib_sighand, sighand_fields);

static const struct crib_field sigpending_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_sigpending, pid, 0, NULL),
	CRIB_FA(2, CRIB_FT_STRUCT_ARRAY, 0, struct crib_sigpending, signals, 4096,
		&crib_siginfo_desc),
};
const struct crib_struct_desc crib_sigpending_desc =
	CRIB_DESC("sigpending", struct crib_sigpending, sigpending_fields);

static const struct crib_field itimer_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, 0, struct crib_itimer, interval_ns, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, V, struct crib_itimer, value_ns, 0, NULL),
};
static const struct crib_struct_desc itimer_desc =
	CRIB_DESC("itimer", struct crib_itimer, itimer_fields);

static const struct crib_field posix_timer_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_posix_timer, id, 0, NULL),
	CRIB_F(2, CRIB_FT_INT, 0, struct crib_posix_timer, clockid, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_posix_timer, signo, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_posix_timer, notify, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, X, struct crib_posix_timer, sigev_value, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_posix_timer, notify_tid, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_posix_timer, interval_ns, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, V, struct crib_posix_timer, value_ns, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, 0, struct crib_posix_timer, overrun, 0, NULL),
};
static const struct crib_struct_desc posix_timer_desc =
	CRIB_DESC("posix-timer", struct crib_posix_timer, posix_timer_fields);

static const struct crib_field timers_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_timers, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_STRUCT, 0, struct crib_timers, real, 0, &itimer_desc),
	CRIB_F(3, CRIB_FT_STRUCT, 0, struct crib_timers, virt, 0, &itimer_desc),
	CRIB_F(4, CRIB_FT_STRUCT, 0, struct crib_timers, prof, 0, &itimer_desc),
	CRIB_FA(5, CRIB_FT_STRUCT_ARRAY, 0, struct crib_timers, posix, 4096, &posix_timer_desc),
};
const struct crib_struct_desc crib_timers_desc =
	CRIB_DESC("timers", struct crib_timers, timers_fields);

int crib_write_sighand(struct crib_writer *w, const struct crib_sighand *s)
{
	return crib_writer_record(w, CRIB_REC_SIGHAND, s);
}

int crib_write_sigpending(struct crib_writer *w, const struct crib_sigpending *s)
{
	return crib_writer_record(w, CRIB_REC_SIGPENDING, s);
}

int crib_write_timers(struct crib_writer *w, const struct crib_timers *t)
{
	return crib_writer_record(w, CRIB_REC_TIMERS, t);
}
