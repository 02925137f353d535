// SPDX-License-Identifier: GPL-2.0-only
/* Header, trailer, note and dump_stats records. */
#include "internal.h"

#define R CRIB_FIELD_REQUIRED
#define V CRIB_FIELD_VOLATILE

static const struct crib_field header_fields[] = {
	CRIB_F(1, CRIB_FT_TEXT, R, struct crib_header, kernel_release, 0, NULL),
	CRIB_F(2, CRIB_FT_TEXT, R, struct crib_header, arch, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_header, page_size, 0, NULL),
	CRIB_F(4, CRIB_FT_TEXT, R, struct crib_header, tool_name, 0, NULL),
	CRIB_F(5, CRIB_FT_TEXT, R | V, struct crib_header, tool_version, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, R | V, struct crib_header, time_ns, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, CRIB_FIELD_HEX, struct crib_header, flags, 0, NULL),
	CRIB_F(8, CRIB_FT_TEXT, V, struct crib_header, hostname, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, 0, struct crib_header, root_pid, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, V, struct crib_header, monotonic_ns, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, V, struct crib_header, boottime_ns, 0, NULL),
	CRIB_F(12, CRIB_FT_TEXT, V, struct crib_header, boot_id, 0, NULL),
	CRIB_F(13, CRIB_FT_INT, V, struct crib_header, timens_monotonic_ns, 0, NULL),
	CRIB_F(14, CRIB_FT_INT, V, struct crib_header, timens_boottime_ns, 0, NULL),
};
const struct crib_struct_desc crib_header_desc = CRIB_DESC("header", struct crib_header, header_fields);

static const struct crib_field type_count_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R | CRIB_FIELD_HEX, struct crib_type_count, type, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, R, struct crib_type_count, count, 0, NULL),
};
static const struct crib_struct_desc type_count_desc =
	CRIB_DESC("type-count", struct crib_type_count, type_count_fields);

static const struct crib_field trailer_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, R, struct crib_trailer, records, 0, NULL),
	CRIB_FA(2, CRIB_FT_STRUCT_ARRAY, R, struct crib_trailer, counts, CRIB_LIMIT_TYPES,
		&type_count_desc),
	CRIB_F(3, CRIB_FT_UINT, R | V, struct crib_trailer, stream_bytes, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, R | V | CRIB_FIELD_HEX, struct crib_trailer, checksum, 0, NULL),
};
const struct crib_struct_desc crib_trailer_desc =
	CRIB_DESC("trailer", struct crib_trailer, trailer_fields);

static const struct crib_field note_fields[] = {
	CRIB_F(1, CRIB_FT_TEXT, R, struct crib_note, name, 256, NULL),
	CRIB_F(2, CRIB_FT_TEXT, 0, struct crib_note, value, 0, NULL),
};
const struct crib_struct_desc crib_note_desc = CRIB_DESC("note", struct crib_note, note_fields);

int crib_write_note(struct crib_writer *w, const char *name, const char *value)
{
	struct crib_note note = { .name = name, .value = value };

	return crib_writer_record(w, CRIB_REC_NOTE, &note);
}

static const struct crib_field dump_phase_fields[] = {
	CRIB_F(1, CRIB_FT_TEXT, R, struct crib_dump_phase, name, 64, NULL),
	CRIB_F(2, CRIB_FT_UINT, V, struct crib_dump_phase, ns, 0, NULL),
};
static const struct crib_struct_desc dump_phase_desc =
	CRIB_DESC("dump-phase", struct crib_dump_phase, dump_phase_fields);

static const struct crib_field dump_stats_fields[] = {
	CRIB_FA(1, CRIB_FT_STRUCT_ARRAY, 0, struct crib_dump_stats, phases, CRIB_DUMP_PHASES_MAX,
		&dump_phase_desc),
	CRIB_F(2, CRIB_FT_UINT, V, struct crib_dump_stats, frozen_ns, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, V, struct crib_dump_stats, total_ns, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_dump_stats, processes, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, 0, struct crib_dump_stats, threads, 0, NULL),
};
const struct crib_struct_desc crib_dump_stats_desc =
	CRIB_DESC("dump_stats", struct crib_dump_stats, dump_stats_fields);

int crib_write_dump_stats(struct crib_writer *w, const struct crib_dump_stats *stats)
{
	return crib_writer_record(w, CRIB_REC_DUMP_STATS, stats);
}
