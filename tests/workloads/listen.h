/* SPDX-License-Identifier: GPL-2.0 */
/* A TCP listener on a loopback address and a port the kernel picks. */
#ifndef CRIB_LISTEN_H
#define CRIB_LISTEN_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* Listen on @addr (of @family) with a backlog of 8; the port in *@port. */
static inline int listen_on(int family, const char *addr, unsigned int *port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	socklen_t len = sizeof(ss);
	int fd;

	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		inet_pton(AF_INET, addr, &in->sin_addr);
	else
		inet_pton(AF_INET6, addr, &in6->sin6_addr);
	if (bind(fd, (struct sockaddr *)&ss,
		 family == AF_INET ? sizeof(*in) : sizeof(*in6)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ? in->sin_port : in6->sin6_port);
	return fd;
}

#endif /* CRIB_LISTEN_H */
