// SPDX-License-Identifier: GPL-2.0
/* The tools' first error: see error.h. */
#include <stdio.h>
#include <string.h>

#include "error.h"

int tool_vfail(struct tool_error *err, int errnum, const char *fmt, va_list ap)
{
	size_t len;

	if (tool_failed(err))
		return -1;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	len = strlen(err->msg);
	if (errnum)
		snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(errnum));
	/* A sentence that came out empty still counts as a failure. */
	if (!err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "failed");
	err->errnum = errnum;
	return -1;
}

int tool_fail(struct tool_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vfail(err, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int tool_fail_with(struct tool_error *err, const struct tool_error *cause)
{
	if (!tool_failed(err))
		*err = *cause;
	return -1;
}

void tool_error_append(struct tool_error *err, const char *fmt, ...)
{
	size_t len = strlen(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

void tool_error_clear(struct tool_error *err)
{
	err->errnum = 0;
	err->msg[0] = '\0';
}
