/* SPDX-License-Identifier: GPL-2.0-only */
/* A deterministic snapshot with every record type, for tests and golden files. */
#ifndef CRIB_TEST_SAMPLE_H
#define CRIB_TEST_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crib/format.h>

#define SAMPLE_PAGE_SIZE 4096
#define SAMPLE_UNKNOWN_ANCILLARY 0x8123

/* The header used by the sample (fixed time, fixed tool version). */
void sample_header(struct crib_header *hdr);

/*
 * Write the sample records (everything between header and trailer).  With
 * big, a memory run spans several pages records (over CRIB_CHUNK_MAX).
 */
int sample_write(struct crib_writer *w, bool big);
/* The same with another uid for process 100 (for --diff tests). */
int sample_write_uid(struct crib_writer *w, bool big, uint64_t uid);

/* Number of records of each type sample_write() writes, header/trailer excluded. */
uint64_t sample_count(uint32_t type, bool big);

/* Write a whole sample snapshot into a malloc'd buffer. */
int sample_to_mem(bool big, int level, uint8_t **out, size_t *len);

/* The first byte of the page at addr in the sample's pid 100 data run. */
uint8_t sample_page_byte(uint64_t addr, size_t i);

#endif
