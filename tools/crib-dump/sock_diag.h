/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sock_diag dumps, for what a socket's family tells only there (netlink's
 * port ids, a packet socket's rings and memberships).
 */
#ifndef CRIB_DUMP_SOCK_DIAG_H
#define CRIB_DUMP_SOCK_DIAG_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether answer @h is the socket the caller looks for; if so, it reads it. */
typedef bool (*sock_diag_entry_fn)(const struct nlmsghdr *h, void *ctx);

int sock_diag_dump(const void *req, size_t len, sock_diag_entry_fn entry, void *ctx);

#endif /* CRIB_DUMP_SOCK_DIAG_H */
