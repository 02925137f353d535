/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A socket's options, set again (socket_options.c).
 */
#ifndef CRIB_RESTORE_SOCKET_OPTIONS_H
#define CRIB_RESTORE_SOCKET_OPTIONS_H

#include "socket_ops.h"

/* Set the options of @ps that differ from what @fd has (spec §6.1). */
int sockopts_apply(struct sock_job *j, const struct plan_socket *ps, int fd);
/* Set the recorded option @level/@name again, if it differs. */
int sockopt_reapply(struct sock_job *j, const struct plan_socket *ps, int fd, int level,
		    int name);

#endif /* CRIB_RESTORE_SOCKET_OPTIONS_H */
