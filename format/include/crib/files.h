/* SPDX-License-Identifier: GPL-2.0-only */
/* Open files and pipes. */
#ifndef CRIB_FILES_H
#define CRIB_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crib/types.h>

struct crib_writer;

enum crib_file_type {
	CRIB_FILE_UNKNOWN = 0,
	CRIB_FILE_REGULAR = 1,
	CRIB_FILE_DIR = 2,
	CRIB_FILE_CHARDEV = 3,
	CRIB_FILE_BLOCKDEV = 4,
	CRIB_FILE_PIPE = 5,
	CRIB_FILE_SOCKET = 6,
	CRIB_FILE_EVENTFD = 7,
	CRIB_FILE_EVENTPOLL = 8,
	CRIB_FILE_SIGNALFD = 9,
	CRIB_FILE_TIMERFD = 10,
	CRIB_FILE_INOTIFY = 11,
	CRIB_FILE_FANOTIFY = 12,
	CRIB_FILE_PIDFD = 13,
	CRIB_FILE_MEMFD = 14,
	CRIB_FILE_SYMLINK = 15,
	CRIB_FILE_ANON_INODE = 16,
	CRIB_FILE_FIFO = 17,		/* 1.1: a named pipe, by its path */
};

struct crib_file {
	uint64_t pid;
	uint64_t fd;
	bool cloexec;
	uint64_t type;			/* enum crib_file_type */
	uint64_t flags;			/* O_* status flags */
	int64_t pos;
	const char *path;
	uint64_t dev;
	uint64_t inode;
	uint64_t size;
	uint64_t mode;			/* st_mode */
	uint64_t mnt_id;
	uint64_t eventfd_count;
	uint64_t sigmask;		/* signalfd */
	uint64_t desc;			/* 1.1: the open file description, 0 its own */
	bool eventfd_semaphore;		/* 1.2: EFD_SEMAPHORE */
	uint64_t ghost_id;		/* 1.2: the ghost it opens, 0 none */
	/* 1.6: who gets its SIGIO (F_SETOWN_EX), and which signal (F_SETSIG) */
	uint64_t owner_pid;		/* 0: none */
	uint64_t owner_type;		/* F_OWNER_TID, F_OWNER_PID or F_OWNER_PGRP */
	uint64_t signal;		/* 0: SIGIO */
};

enum crib_pipe_end {
	CRIB_PIPE_READ = 0,
	CRIB_PIPE_WRITE = 1,
	CRIB_PIPE_BOTH = 2,		/* 1.1: a FIFO opened O_RDWR */
};

struct crib_pipe {
	uint64_t pid;
	uint64_t fd;
	uint64_t pipe_id;		/* the pipe, the same in every process */
	uint64_t end;			/* enum crib_pipe_end */
	uint64_t pipe_size;		/* F_GETPIPE_SZ */
	uint64_t queued;		/* bytes in the pipe; carried by pipe_data */
	uint64_t ends_outside;		/* 1.1: descriptions no process of the snapshot holds */
	uint64_t mtime_ns;		/* 1.6, a FIFO's: modification time, ns since the epoch */
};

struct crib_pipe_data {
	uint64_t pipe_id;
	uint64_t offset;		/* of this chunk in the queued bytes */
	struct crib_blob data;
};

/* 1.2: the timer of a timerfd, as timerfd_gettime() and fdinfo tell it. */
struct crib_timerfd {
	uint64_t pid;
	uint64_t fd;
	uint64_t clockid;		/* CLOCK_* it was created on */
	uint64_t settime_flags;		/* TFD_TIMER_* of its last timerfd_settime() */
	uint64_t ticks;			/* expirations read(2) has not returned yet */
	uint64_t value_ns;		/* time left to the next expiration, 0 if none */
	uint64_t interval_ns;		/* period, 0 for a one-shot timer */
};

/* 1.2: one file an epoll instance watches. */
struct crib_epoll_item {
	uint64_t pid;
	uint64_t fd;			/* the epoll */
	uint64_t tfd;			/* the descriptor number the file was added under */
	uint64_t target_pid;		/* a descriptor of the snapshot that holds the */
	uint64_t target_fd;		/* watched file's open file description */
	uint64_t events;		/* EPOLL* mask, EPOLLET, EPOLLONESHOT, ... included */
	uint64_t data;			/* epoll_event.data, as the process gave it */
};

/*
 * 1.3: one watch of an inotify instance.  The events it had queued are
 * not carried (a note says how many were left behind).
 */
struct crib_inotify_watch {
	uint64_t pid;
	uint64_t fd;			/* the inotify instance */
	uint64_t wd;			/* its watch descriptor */
	uint64_t mask;			/* IN_* as inotify_add_watch() takes it */
	const char *path;		/* the watched file or directory */
	uint64_t dev;			/* st_dev of what it watched */
	uint64_t inode;			/* and its st_ino */
};

enum crib_lock_kind {
	CRIB_LOCK_POSIX = 0,		/* fcntl(2) F_SETLK: the process's */
	CRIB_LOCK_OFD = 1,		/* fcntl(2) F_OFD_SETLK: the description's */
	CRIB_LOCK_FLOCK = 2,		/* flock(2): the description's */
	CRIB_LOCK_LEASE = 3,		/* fcntl(2) F_SETLEASE: the description's */
};

enum crib_lock_type {
	CRIB_LOCK_READ = 0,		/* F_RDLCK, LOCK_SH */
	CRIB_LOCK_WRITE = 1,		/* F_WRLCK, LOCK_EX */
};

/*
 * 1.8: a lock or lease held through a descriptor.  A POSIX lock is the
 * process's; the others belong to the open file description, and are
 * listed once, under one descriptor of it.
 */
struct crib_file_lock {
	uint64_t pid;
	uint64_t fd;
	uint64_t kind;			/* enum crib_lock_kind */
	uint64_t type;			/* enum crib_lock_type */
	uint64_t start;			/* POSIX and OFD: first byte, from the file's start */
	uint64_t len;			/* POSIX and OFD: bytes; 0 to the end of the file, and beyond */
};

/*
 * 1.9: what a pidfd (file type CRIB_FILE_PIDFD) refers to, as the tree
 * sees it: one of its processes or threads, or a process that has exited
 * and been reaped.  Its status flags are the file record's.
 */
struct crib_pidfd {
	uint64_t pid;
	uint64_t fd;
	uint64_t target;		/* the process's PID, or the thread's TID; 0 when dead */
	bool dead;			/* the process it was opened on has exited and was reaped */
	bool thread;			/* PIDFD_THREAD: it names one thread, not the process */
};

#define CRIB_TTY_NCCS	19		/* c_cc of the kernel's struct termios2 (NCCS) */

enum crib_tty_end {
	CRIB_TTY_MASTER = 0,		/* /dev/ptmx */
	CRIB_TTY_SLAVE = 1,		/* /dev/pts/N */
	CRIB_TTY_CTTY = 2,		/* /dev/tty, the slave as the controlling terminal */
};

/*
 * 1.9: a pseudo-terminal end a descriptor holds, both ends in the
 * snapshot.  The pair's state is repeated under each of its descriptors;
 * the termios is the slave's (which a master's TCGETS2 also reads).
 */
struct crib_tty {
	uint64_t pid;
	uint64_t fd;
	uint64_t tty_id;		/* the pair, the same in every process */
	uint64_t end;			/* enum crib_tty_end */
	uint64_t index;			/* the pts number at the dump, not a restore's */
	uint64_t iflag;			/* struct termios2 */
	uint64_t oflag;
	uint64_t cflag;
	uint64_t lflag;
	uint64_t line;
	struct crib_blob cc;		/* c_cc, NCCS (19) bytes */
	uint64_t ispeed;
	uint64_t ospeed;
	uint64_t rows;			/* struct winsize */
	uint64_t cols;
	uint64_t xpixel;
	uint64_t ypixel;
	bool locked;			/* TIOCGPTLCK: the slave may not be opened */
	bool packet;			/* TIOCGPKT */
	bool exclusive;			/* TIOCGEXCL, the slave's */
	uint64_t sid;			/* the session it controls, 0 none */
	uint64_t fg_pgrp;		/* that session's foreground group */
};

enum crib_ghost_kind {
	CRIB_GHOST_UNLINKED = 0,	/* a regular file unlinked while open or mapped */
	CRIB_GHOST_MEMFD = 1,		/* memfd_create(2) */
};

/* 1.2: a file no path reaches, whose contents the snapshot carries. */
struct crib_ghost {
	uint64_t ghost_id;		/* from 1 */
	uint64_t kind;			/* enum crib_ghost_kind */
	const char *path;		/* the path it had, or the memfd's name */
	uint64_t size;			/* st_size */
	uint64_t mode;			/* st_mode */
	uint64_t uid, gid;
	uint64_t seals;			/* memfd: F_GET_SEALS */
	uint64_t dev;
	uint64_t inode;
	uint64_t mtime_ns;		/* 1.6: modification time, ns since the epoch */
};

/* 1.2: a run of a ghost's contents; what no chunk covers reads as zeros. */
struct crib_ghost_data {
	uint64_t ghost_id;
	uint64_t offset;
	struct crib_blob data;
};

extern const struct crib_struct_desc crib_file_desc;
extern const struct crib_struct_desc crib_pipe_desc;
extern const struct crib_struct_desc crib_pipe_data_desc;
extern const struct crib_struct_desc crib_timerfd_desc;
extern const struct crib_struct_desc crib_epoll_item_desc;
extern const struct crib_struct_desc crib_inotify_watch_desc;
extern const struct crib_struct_desc crib_file_lock_desc;
extern const struct crib_struct_desc crib_pidfd_desc;
extern const struct crib_struct_desc crib_tty_desc;
extern const struct crib_struct_desc crib_ghost_desc;
extern const struct crib_struct_desc crib_ghost_data_desc;

const char *crib_file_type_name(uint64_t type);
/* Whether a file of @type is a pipe's end: an unnamed pipe or a FIFO, with a pipe record. */
bool crib_file_is_pipe(uint64_t type);
/*
 * Whether a file of @type is an event file (eventfd, timerfd, signalfd,
 * epoll, inotify): an anonymous inode whose state its record carries,
 * with no path to reopen.
 */
bool crib_file_is_event(uint64_t type);

int crib_write_file(struct crib_writer *w, const struct crib_file *f);
int crib_write_pipe(struct crib_writer *w, const struct crib_pipe *p);
/* The queued bytes of a pipe, split into chunks of at most CRIB_CHUNK_MAX. */
int crib_write_pipe_data(struct crib_writer *w, uint64_t pipe_id,
			 const void *data, size_t len);
int crib_write_timerfd(struct crib_writer *w, const struct crib_timerfd *t);
int crib_write_epoll_item(struct crib_writer *w, const struct crib_epoll_item *e);
int crib_write_inotify_watch(struct crib_writer *w, const struct crib_inotify_watch *iw);
int crib_write_file_lock(struct crib_writer *w, const struct crib_file_lock *l);
int crib_write_pidfd(struct crib_writer *w, const struct crib_pidfd *p);
int crib_write_tty(struct crib_writer *w, const struct crib_tty *t);
int crib_write_ghost(struct crib_writer *w, const struct crib_ghost *g);
/* @len bytes of a ghost's contents at @offset, split into chunks of at most CRIB_CHUNK_MAX. */
int crib_write_ghost_data(struct crib_writer *w, uint64_t ghost_id, uint64_t offset,
			  const void *data, size_t len);
const char *crib_ghost_kind_name(uint64_t kind);

#endif /* CRIB_FILES_H */
