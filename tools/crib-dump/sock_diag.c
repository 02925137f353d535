// SPDX-License-Identifier: GPL-2.0
/*
 * sock_diag dumps: a request sent on a NETLINK_SOCK_DIAG socket of our
 * own, and every answer up to NLMSG_DONE handed to the caller, which
 * tells whether it was the socket it looks for.  All answers are read,
 * so that the socket is left with nothing queued.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_diag.h"

/* Room for a sock_diag answer: the kernel fills up to 32 KiB at a time. */
#define DIAG_BUF	32768

/* The answers on @diag until NLMSG_DONE: 1 if @entry took one, 0 if not, -1 (errno). */
static int read_answers(int diag, char *buf, sock_diag_entry_fn entry, void *ctx)
{
	const struct nlmsghdr *h;
	bool found = false;
	ssize_t n;
	int len;

	for (;;) {
		n = recv(diag, buf, DIAG_BUF, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		len = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR) {
				errno = EPROTO;
				return -1;
			}
			found |= entry(h, ctx);
		}
	}
}

/*
 * Send the sock_diag request @req of @len bytes and hand each answer to
 * @entry: 1 if it took one, 0 if none was the caller's, -1 with errno set.
 */
int sock_diag_dump(const void *req, size_t len, sock_diag_entry_fn entry, void *ctx)
{
	int diag, ret = -1, saved;
	char *buf;

	buf = malloc(DIAG_BUF);
	if (!buf)
		return -1;
	diag = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (diag < 0)
		goto out;
	if (send(diag, req, len, 0) == (ssize_t)len)
		ret = read_answers(diag, buf, entry, ctx);
	saved = errno;
	close(diag);
	errno = saved;
out:
	free(buf);
	return ret;
}
