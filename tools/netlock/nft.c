// SPDX-License-Identifier: GPL-2.0
/*
 * The nftables side of the network lock, through libnftables: the table
 * "inet crib" made on first use, and elements added to and deleted from
 * its sets.  Each call is one nftables transaction, so a lock is taken
 * whole or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <nftables/libnftables.h>

#include "netlock.h"

/* Raw priority: before connection tracking and every filter chain. */
#define NETLOCK_TABLE_DEF \
	"create table inet " NETLOCK_TABLE "\n" \
	"add set inet " NETLOCK_TABLE " " NETLOCK_SET4 \
	" { type ipv4_addr . inet_service . ipv4_addr . inet_service; }\n" \
	"add set inet " NETLOCK_TABLE " " NETLOCK_SET6 \
	" { type ipv6_addr . inet_service . ipv6_addr . inet_service; }\n" \
	"add chain inet " NETLOCK_TABLE " input" \
	" { type filter hook input priority -300; policy accept; }\n" \
	"add chain inet " NETLOCK_TABLE " output" \
	" { type filter hook output priority -300; policy accept; }\n" \
	"add rule inet " NETLOCK_TABLE " input" \
	" ip daddr . tcp dport . ip saddr . tcp sport @" NETLOCK_SET4 " drop\n" \
	"add rule inet " NETLOCK_TABLE " input" \
	" ip6 daddr . tcp dport . ip6 saddr . tcp sport @" NETLOCK_SET6 " drop\n" \
	"add rule inet " NETLOCK_TABLE " output" \
	" ip saddr . tcp sport . ip daddr . tcp dport @" NETLOCK_SET4 " drop\n" \
	"add rule inet " NETLOCK_TABLE " output" \
	" ip6 saddr . tcp sport . ip6 daddr . tcp dport @" NETLOCK_SET6 " drop\n"

/* Room for one element in a command: two IPv6 addresses, two ports, separators. */
#define ELEMENT_MAX	128

static struct nft_ctx *nft_open(struct tool_error *err)
{
	struct nft_ctx *ctx = nft_ctx_new(NFT_CTX_DEFAULT);

	if (!ctx) {
		tool_fail(err, 0, "cannot start libnftables");
		return NULL;
	}
	if (nft_ctx_buffer_output(ctx) || nft_ctx_buffer_error(ctx)) {
		nft_ctx_free(ctx);
		tool_fail(err, 0, "cannot start libnftables");
		return NULL;
	}
	/* Listings leave out set elements: only whether something exists is asked. */
	nft_ctx_output_set_flags(ctx, NFT_CTX_OUTPUT_TERSE);
	return ctx;
}

/* nft's complaint, its first line ("Error: ...") without the echo of the command. */
static const char *nft_error_line(struct nft_ctx *ctx, char *buf, size_t size)
{
	const char *text = nft_ctx_get_error_buffer(ctx);
	size_t len;

	if (!text || !*text)
		return "no reason given";
	len = strcspn(text, "\n");
	if (len >= size)
		len = size - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return buf;
}

/* Run @cmd; on failure say what @what was and why. */
static int nft_run(struct nft_ctx *ctx, const char *cmd, const char *what,
		   struct tool_error *err)
{
	char why[256];

	if (!nft_run_cmd_from_buffer(ctx, cmd)) {
		nft_ctx_get_output_buffer(ctx);		/* drop what a listing printed */
		return 0;
	}
	return tool_fail(err, 0, "%s: %s", what, nft_error_line(ctx, why, sizeof(why)));
}

/* Run @cmd and tell "does not exist" (0) from success (1) and other failures (-1). */
static int nft_probe(struct nft_ctx *ctx, const char *cmd, const char *what,
		     struct tool_error *err)
{
	char why[256];

	if (!nft_run_cmd_from_buffer(ctx, cmd)) {
		nft_ctx_get_output_buffer(ctx);
		return 1;
	}
	nft_error_line(ctx, why, sizeof(why));
	if (strstr(why, "No such file or directory"))
		return 0;
	return tool_fail(err, 0, "%s: %s", what, why);
}

static int table_exists(struct nft_ctx *ctx, struct tool_error *err)
{
	return nft_probe(ctx, "list table inet " NETLOCK_TABLE,
			 "cannot look up the nftables table inet " NETLOCK_TABLE, err);
}

/* The table, made unless it is there; another dump may make it at the same time. */
static int table_ensure(struct nft_ctx *ctx, struct tool_error *err)
{
	struct tool_error create = { 0 }, again = { 0 };
	int ret;

	ret = table_exists(ctx, err);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (!nft_run(ctx, NETLOCK_TABLE_DEF, "cannot create the nftables table inet " NETLOCK_TABLE,
		     &create))
		return 0;
	/* Made by another meanwhile, or the reason it could not be made. */
	if (table_exists(ctx, &again) > 0)
		return 0;
	return tool_fail_with(err, &create);
}

static const char *set_of(const struct netlock_tuple *t)
{
	return t->family == AF_INET ? NETLOCK_SET4 : NETLOCK_SET6;
}

/* "VERB element inet crib SET { e1, e2 }" for the tuples of one family, or "". */
static int elements_cmd(const char *verb, const struct netlock_tuple *t, size_t n, int family,
			char **out, struct tool_error *err)
{
	size_t i, len = 0, cap = 128 + n * (ELEMENT_MAX + 2), used = 0;
	char *cmd, elem[ELEMENT_MAX];

	cmd = malloc(cap);
	if (!cmd)
		return tool_fail(err, 0, "out of memory");
	cmd[0] = '\0';
	for (i = 0; i < n; i++) {
		if (t[i].family != family)
			continue;
		if (!used++)
			len += (size_t)snprintf(cmd + len, cap - len, "%s element inet %s %s { ", verb,
						NETLOCK_TABLE, set_of(&t[i]));
		else
			len += (size_t)snprintf(cmd + len, cap - len, ", ");
		netlock_tuple_format(&t[i], elem, sizeof(elem));
		len += (size_t)snprintf(cmd + len, cap - len, "%s", elem);
	}
	if (used)
		snprintf(cmd + len, cap - len, " }\n");
	*out = cmd;
	return 0;
}

/* Both families' elements in one command text. */
static int all_elements_cmd(const char *verb, const struct netlock_tuple *t, size_t n,
			    char **out, struct tool_error *err)
{
	char *v4 = NULL, *v6 = NULL, *cmd;
	int ret = -1;

	if (elements_cmd(verb, t, n, AF_INET, &v4, err) ||
	    elements_cmd(verb, t, n, AF_INET6, &v6, err))
		goto out;
	cmd = malloc(strlen(v4) + strlen(v6) + 1);
	if (!cmd) {
		tool_fail(err, 0, "out of memory");
		goto out;
	}
	strcpy(cmd, v4);
	strcat(cmd, v6);
	*out = cmd;
	ret = 0;
out:
	free(v4);
	free(v6);
	return ret;
}

static int check_families(const struct netlock_tuple *t, size_t n, struct tool_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].family != AF_INET && t[i].family != AF_INET6)
			return tool_fail(err, 0, "a connection of address family %d cannot be locked",
					 t[i].family);
	return 0;
}

int netlock_acquire(const struct netlock_tuple *t, size_t n, struct tool_error *err)
{
	struct nft_ctx *ctx;
	char *cmd = NULL;
	int ret = -1;

	if (!n)
		return 0;
	if (check_families(t, n, err))
		return -1;
	ctx = nft_open(err);
	if (!ctx)
		return -1;
	if (table_ensure(ctx, err) || all_elements_cmd("add", t, n, &cmd, err))
		goto out;
	ret = nft_run(ctx, cmd, "cannot lock the TCP connections (nftables inet " NETLOCK_TABLE ")",
		      err);
out:
	free(cmd);
	nft_ctx_free(ctx);
	return ret;
}

/* Whether @t is in its set: 1, 0, or -1. */
static int element_present(struct nft_ctx *ctx, const struct netlock_tuple *t,
			   struct tool_error *err)
{
	char elem[ELEMENT_MAX], cmd[ELEMENT_MAX + 64];

	netlock_tuple_format(t, elem, sizeof(elem));
	snprintf(cmd, sizeof(cmd), "get element inet %s %s { %s }", NETLOCK_TABLE, set_of(t), elem);
	return nft_probe(ctx, cmd, "cannot look up a locked connection", err);
}

/* One at a time, skipping what is not locked: after the whole batch failed. */
static int release_each(struct nft_ctx *ctx, const struct netlock_tuple *t, size_t n,
			struct tool_error *err)
{
	char elem[ELEMENT_MAX], cmd[ELEMENT_MAX + 64], what[ELEMENT_MAX + 64];
	int ret = 0, present;

	for (size_t i = 0; i < n; i++) {
		present = element_present(ctx, &t[i], err);
		if (!present)
			continue;
		netlock_tuple_format(&t[i], elem, sizeof(elem));
		snprintf(what, sizeof(what), "cannot release the connection %s", elem);
		snprintf(cmd, sizeof(cmd), "delete element inet %s %s { %s }", NETLOCK_TABLE,
			 set_of(&t[i]), elem);
		/* the first failure is reported, once the others are released */
		if (present < 0 || nft_run(ctx, cmd, what, err))
			ret = -1;
	}
	return ret;
}

int netlock_release(const struct netlock_tuple *t, size_t n, struct tool_error *err)
{
	struct tool_error batch = { 0 };
	struct nft_ctx *ctx;
	char *cmd = NULL;
	int ret = -1, exists;

	if (!n)
		return 0;
	if (check_families(t, n, err))
		return -1;
	ctx = nft_open(err);
	if (!ctx)
		return -1;
	exists = table_exists(ctx, err);
	if (exists <= 0) {
		ret = exists;		/* no table: nothing is locked */
		goto out;
	}
	if (all_elements_cmd("delete", t, n, &cmd, err))
		goto out;
	ret = 0;
	if (nft_run(ctx, cmd, "releasing the TCP connections", &batch))
		ret = release_each(ctx, t, n, err);
out:
	free(cmd);
	nft_ctx_free(ctx);
	return ret;
}

int netlock_is_locked(const struct netlock_tuple *t, struct tool_error *err)
{
	struct nft_ctx *ctx;
	int ret;

	if (check_families(t, 1, err))
		return -1;
	ctx = nft_open(err);
	if (!ctx)
		return -1;
	ret = table_exists(ctx, err);
	if (ret > 0)
		ret = element_present(ctx, t, err);
	nft_ctx_free(ctx);
	return ret;
}
