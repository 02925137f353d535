/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CRIB snapshot format library: the record structs of every resource
 * kind, the schema tables, the streaming writer and the streaming reader.
 */
#ifndef CRIB_FORMAT_H
#define CRIB_FORMAT_H

#include <crib/types.h>
#include <crib/schema.h>
#include <crib/meta.h>
#include <crib/process.h>
#include <crib/mm.h>
#include <crib/files.h>
#include <crib/sockets.h>
#include <crib/signals.h>
#include <crib/writer.h>
#include <crib/reader.h>
#include <crib/json.h>
#include <crib/diff.h>

#endif /* CRIB_FORMAT_H */
