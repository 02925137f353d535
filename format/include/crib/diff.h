/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Comparing two snapshots: records are matched by identity (record type
 * plus the fields flagged CRIB_FIELD_ID: pid, tid, fd, address ...) and
 * compared field by field.  A side keeps the encodings of metadata records
 * of up to 64 KiB, 64 MiB of them in all; the rest (memory, file and queue
 * contents, larger records) are compared by digest.  Its memory is a small
 * entry per record plus those copies: it follows the number of records,
 * never the size of their contents.  crib-inspect --diff and
 * crib-restore --verify use it.
 */
#ifndef CRIB_DIFF_H
#define CRIB_DIFF_H

#include <stdio.h>

#include <crib/reader.h>

struct crib_diff_side;

/*
 * Ignore the fields flagged CRIB_FIELD_VOLATILE, and note and dump_stats
 * records (spec/format.md, §9).  An
 * identity field that is also volatile (a socket's inode number) is left
 * out of the identity: records that then look alike pair in stream order.
 */
#define CRIB_DIFF_IGNORE_VOLATILE	0x1u

struct crib_diff_options {
	unsigned flags;
	/*
	 * Further fields to ignore, as "record.field" ("process.ppid",
	 * "thread.regs.rip"); NULL-terminated, or NULL for none.
	 */
	const char *const *ignore;
};

/*
 * Read the rest of @r (everything after its header) into a new side, for
 * comparing with @flags (CRIB_DIFF_*: both sides of a comparison must be
 * read with the same).  Returns NULL with @err filled when the stream is
 * bad or memory runs out.
 */
struct crib_diff_side *crib_diff_side_read(struct crib_reader *r, unsigned flags,
					   struct crib_error *err);
void crib_diff_side_free(struct crib_diff_side *s);
/* Bytes @s holds: its entries and the encodings it keeps. */
size_t crib_diff_side_mem(const struct crib_diff_side *s);

/*
 * Print what differs from @a to @b on @out, one line per record ("changed:",
 * "only in A:", "only in B:") and one indented line per field, records in
 * the order of their identity with numbers by value, then a "total:" line
 * when anything differs; returns the number of differences.
 */
unsigned crib_diff(const struct crib_diff_side *a, const struct crib_diff_side *b,
		   const struct crib_diff_options *opt, FILE *out);

#endif /* CRIB_DIFF_H */
