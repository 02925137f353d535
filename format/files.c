// SPDX-License-Identifier: GPL-2.0-only
/* Open files and pipes. */
#include "internal.h"

#define R CRIB_FIELD_REQUIRED
#define ID (CRIB_FIELD_REQUIRED | CRIB_FIELD_ID)
#define V CRIB_FIELD_VOLATILE
#define X CRIB_FIELD_HEX

static const struct crib_field file_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_file, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_file, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_BOOL, 0, struct crib_file, cloexec, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, R, struct crib_file, type, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, X, struct crib_file, flags, 0, NULL),
	CRIB_F(6, CRIB_FT_INT, 0, struct crib_file, pos, 0, NULL),
	CRIB_F(7, CRIB_FT_PATH, 0, struct crib_file, path, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, X, struct crib_file, dev, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, V, struct crib_file, inode, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, 0, struct crib_file, size, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, X, struct crib_file, mode, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, 0, struct crib_file, mnt_id, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, 0, struct crib_file, eventfd_count, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, X, struct crib_file, sigmask, 0, NULL),
	CRIB_F(15, CRIB_FT_UINT, 0, struct crib_file, desc, 0, NULL),
	CRIB_F(16, CRIB_FT_BOOL, 0, struct crib_file, eventfd_semaphore, 0, NULL),
	CRIB_F(20, CRIB_FT_UINT, 0, struct crib_file, ghost_id, 0, NULL),
	CRIB_F(21, CRIB_FT_UINT, 0, struct crib_file, owner_pid, 0, NULL),
	CRIB_F(22, CRIB_FT_UINT, 0, struct crib_file, owner_type, 0, NULL),
	CRIB_F(23, CRIB_FT_UINT, 0, struct crib_file, signal, 0, NULL),
};
const struct crib_struct_desc crib_file_desc = CRIB_DESC("file", struct crib_file, file_fields);

static const struct crib_field pipe_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_pipe, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_pipe, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_pipe, pipe_id, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, R, struct crib_pipe, end, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, 0, struct crib_pipe, pipe_size, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_pipe, queued, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_pipe, ends_outside, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, 0, struct crib_pipe, mtime_ns, 0, NULL),
};
const struct crib_struct_desc crib_pipe_desc = CRIB_DESC("pipe", struct crib_pipe, pipe_fields);

static const struct crib_field pipe_data_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_pipe_data, pipe_id, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_pipe_data, offset, 0, NULL),
	CRIB_F(3, CRIB_FT_BLOB, R | CRIB_FIELD_BULK, struct crib_pipe_data, data,
	       CRIB_CHUNK_MAX, NULL),
};
const struct crib_struct_desc crib_pipe_data_desc =
	CRIB_DESC("pipe_data", struct crib_pipe_data, pipe_data_fields);

static const struct crib_field timerfd_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_timerfd, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_timerfd, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_timerfd, clockid, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, X, struct crib_timerfd, settime_flags, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, V, struct crib_timerfd, ticks, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, V, struct crib_timerfd, value_ns, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_timerfd, interval_ns, 0, NULL),
};
const struct crib_struct_desc crib_timerfd_desc =
	CRIB_DESC("timerfd", struct crib_timerfd, timerfd_fields);

static const struct crib_field epoll_item_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_epoll_item, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_epoll_item, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, ID, struct crib_epoll_item, tfd, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, ID, struct crib_epoll_item, target_pid, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, ID, struct crib_epoll_item, target_fd, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, X, struct crib_epoll_item, events, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, X, struct crib_epoll_item, data, 0, NULL),
};
const struct crib_struct_desc crib_epoll_item_desc =
	CRIB_DESC("epoll_item", struct crib_epoll_item, epoll_item_fields);

static const struct crib_field inotify_watch_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_inotify_watch, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_inotify_watch, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, ID, struct crib_inotify_watch, wd, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, X, struct crib_inotify_watch, mask, 0, NULL),
	CRIB_F(5, CRIB_FT_PATH, R, struct crib_inotify_watch, path, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, X, struct crib_inotify_watch, dev, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, V, struct crib_inotify_watch, inode, 0, NULL),
};
const struct crib_struct_desc crib_inotify_watch_desc =
	CRIB_DESC("inotify_watch", struct crib_inotify_watch, inotify_watch_fields);
static const struct crib_field file_lock_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_file_lock, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_file_lock, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, ID, struct crib_file_lock, kind, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, R, struct crib_file_lock, type, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, ID, struct crib_file_lock, start, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_file_lock, len, 0, NULL),
};
const struct crib_struct_desc crib_file_lock_desc =
	CRIB_DESC("file_lock", struct crib_file_lock, file_lock_fields);

static const struct crib_field pidfd_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_pidfd, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_pidfd, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, 0, struct crib_pidfd, target, 0, NULL),
	CRIB_F(4, CRIB_FT_BOOL, 0, struct crib_pidfd, dead, 0, NULL),
	CRIB_F(5, CRIB_FT_BOOL, 0, struct crib_pidfd, thread, 0, NULL),
};
const struct crib_struct_desc crib_pidfd_desc =
	CRIB_DESC("pidfd", struct crib_pidfd, pidfd_fields);
static const struct crib_field tty_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_tty, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_tty, fd, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_tty, tty_id, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, R, struct crib_tty, end, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, V, struct crib_tty, index, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, X, struct crib_tty, iflag, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, X, struct crib_tty, oflag, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, X, struct crib_tty, cflag, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, X, struct crib_tty, lflag, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, 0, struct crib_tty, line, 0, NULL),
	CRIB_F(11, CRIB_FT_BLOB, 0, struct crib_tty, cc, CRIB_TTY_NCCS, NULL),
	CRIB_F(12, CRIB_FT_UINT, 0, struct crib_tty, ispeed, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, 0, struct crib_tty, ospeed, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, 0, struct crib_tty, rows, 0, NULL),
	CRIB_F(15, CRIB_FT_UINT, 0, struct crib_tty, cols, 0, NULL),
	CRIB_F(16, CRIB_FT_UINT, 0, struct crib_tty, xpixel, 0, NULL),
	CRIB_F(17, CRIB_FT_UINT, 0, struct crib_tty, ypixel, 0, NULL),
	CRIB_F(18, CRIB_FT_BOOL, 0, struct crib_tty, locked, 0, NULL),
	CRIB_F(19, CRIB_FT_BOOL, 0, struct crib_tty, packet, 0, NULL),
	CRIB_F(20, CRIB_FT_BOOL, 0, struct crib_tty, exclusive, 0, NULL),
	CRIB_F(21, CRIB_FT_UINT, 0, struct crib_tty, sid, 0, NULL),
	CRIB_F(22, CRIB_FT_UINT, 0, struct crib_tty, fg_pgrp, 0, NULL),
};
const struct crib_struct_desc crib_tty_desc = CRIB_DESC("tty", struct crib_tty, tty_fields);

static const struct crib_field ghost_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_ghost, ghost_id, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, 0, struct crib_ghost, kind, 0, NULL),
	CRIB_F(3, CRIB_FT_PATH, 0, struct crib_ghost, path, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_ghost, size, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, X, struct crib_ghost, mode, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_ghost, uid, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, 0, struct crib_ghost, gid, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, X, struct crib_ghost, seals, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, X, struct crib_ghost, dev, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, V, struct crib_ghost, inode, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, 0, struct crib_ghost, mtime_ns, 0, NULL),
};
const struct crib_struct_desc crib_ghost_desc =
	CRIB_DESC("ghost", struct crib_ghost, ghost_fields);

static const struct crib_field ghost_data_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_ghost_data, ghost_id, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID, struct crib_ghost_data, offset, 0, NULL),
	CRIB_F(3, CRIB_FT_BLOB, R | CRIB_FIELD_BULK, struct crib_ghost_data, data,
	       CRIB_CHUNK_MAX, NULL),
};
const struct crib_struct_desc crib_ghost_data_desc =
	CRIB_DESC("ghost_data", struct crib_ghost_data, ghost_data_fields);

const char *crib_ghost_kind_name(uint64_t kind)
{
	switch (kind) {
	case CRIB_GHOST_UNLINKED: return "unlinked";
	case CRIB_GHOST_MEMFD: return "memfd";
	default: return "unknown";
	}
}

bool crib_file_is_pipe(uint64_t type)
{
	return type == CRIB_FILE_PIPE || type == CRIB_FILE_FIFO;
}

bool crib_file_is_event(uint64_t type)
{
	return type == CRIB_FILE_EVENTFD || type == CRIB_FILE_TIMERFD ||
	       type == CRIB_FILE_SIGNALFD || type == CRIB_FILE_EVENTPOLL ||
	       type == CRIB_FILE_INOTIFY;
}

const char *crib_file_type_name(uint64_t type)
{
	static const char *const names[] = {
		[CRIB_FILE_UNKNOWN] = "unknown",
		[CRIB_FILE_REGULAR] = "regular",
		[CRIB_FILE_DIR] = "dir",
		[CRIB_FILE_CHARDEV] = "chardev",
		[CRIB_FILE_BLOCKDEV] = "blockdev",
		[CRIB_FILE_PIPE] = "pipe",
		[CRIB_FILE_SOCKET] = "socket",
		[CRIB_FILE_EVENTFD] = "eventfd",
		[CRIB_FILE_EVENTPOLL] = "eventpoll",
		[CRIB_FILE_SIGNALFD] = "signalfd",
		[CRIB_FILE_TIMERFD] = "timerfd",
		[CRIB_FILE_INOTIFY] = "inotify",
		[CRIB_FILE_FANOTIFY] = "fanotify",
		[CRIB_FILE_PIDFD] = "pidfd",
		[CRIB_FILE_MEMFD] = "memfd",
		[CRIB_FILE_SYMLINK] = "symlink",
		[CRIB_FILE_ANON_INODE] = "anon_inode",
		[CRIB_FILE_FIFO] = "fifo",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

int crib_write_file(struct crib_writer *w, const struct crib_file *f)
{
	return crib_writer_record(w, CRIB_REC_FILE, f);
}

int crib_write_pipe(struct crib_writer *w, const struct crib_pipe *p)
{
	return crib_writer_record(w, CRIB_REC_PIPE, p);
}

int crib_write_pipe_data(struct crib_writer *w, uint64_t pipe_id, const void *data, size_t len)
{
	struct crib_pipe_data d = { .pipe_id = pipe_id };

	return crib_write_chunks(w, CRIB_REC_PIPE_DATA, &d, &d.data, &d.offset, 0, data, len);
}

int crib_write_timerfd(struct crib_writer *w, const struct crib_timerfd *t)
{
	return crib_writer_record(w, CRIB_REC_TIMERFD, t);
}

int crib_write_epoll_item(struct crib_writer *w, const struct crib_epoll_item *e)
{
	return crib_writer_record(w, CRIB_REC_EPOLL_ITEM, e);
}

int crib_write_inotify_watch(struct crib_writer *w, const struct crib_inotify_watch *iw)
{
	return crib_writer_record(w, CRIB_REC_INOTIFY_WATCH, iw);
}

int crib_write_file_lock(struct crib_writer *w, const struct crib_file_lock *l)
{
	return crib_writer_record(w, CRIB_REC_FILE_LOCK, l);
}

int crib_write_pidfd(struct crib_writer *w, const struct crib_pidfd *p)
{
	return crib_writer_record(w, CRIB_REC_PIDFD, p);
}

int crib_write_tty(struct crib_writer *w, const struct crib_tty *t)
{
	return crib_writer_record(w, CRIB_REC_TTY, t);
}

int crib_write_ghost(struct crib_writer *w, const struct crib_ghost *g)
{
	return crib_writer_record(w, CRIB_REC_GHOST, g);
}

int crib_write_ghost_data(struct crib_writer *w, uint64_t ghost_id, uint64_t offset,
			  const void *data, size_t len)
{
	struct crib_ghost_data d = { .ghost_id = ghost_id, .offset = offset };

	return crib_write_chunks(w, CRIB_REC_GHOST_DATA, &d, &d.data, &d.offset, 0, data, len);
}
