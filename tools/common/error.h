/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the tools report a failure: the first error of a run, as one
 * sentence for the user that names the object, and says why where a
 * system call failed.  The first error is the cause; what fails after it
 * is its consequence, so a later error never replaces it.
 *
 *	if (bind(fd, addr, len))
 *		return tool_fail(err, errno, "fd %d (%s): bind", fd, kind);
 *
 * gives "fd 3 (inet tcp): bind: Address already in use".  A function that
 * can fail takes a struct tool_error and returns -1 (or NULL) once it
 * called tool_fail(); its caller returns -1 in turn, and the sentence
 * reaches the user as the first failure wrote it.
 */
#ifndef CRIB_TOOL_ERROR_H
#define CRIB_TOOL_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

struct tool_error {
	int errnum;		/* the errno of the failure, 0 when it has none */
	char msg[512];		/* empty until something failed */
};

/*
 * Record "@fmt" in @err, followed by ": " and strerror(@errnum) when
 * @errnum (a positive errno) is not 0, unless @err holds a failure
 * already.  Returns -1.
 */
int tool_fail(struct tool_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tool_vfail(struct tool_error *err, int errnum, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Record @cause in @err, as tool_fail() would have; returns -1. */
int tool_fail_with(struct tool_error *err, const struct tool_error *cause);
/* Add to the failure in @err what followed from it ("; process 12 was killed"). */
void tool_error_append(struct tool_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Forget the failure, for a step that failed and is tried again. */
void tool_error_clear(struct tool_error *err);

static inline bool tool_failed(const struct tool_error *err)
{
	return err->msg[0] != '\0';
}

#endif /* CRIB_TOOL_ERROR_H */
