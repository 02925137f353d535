// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: one record's CBOR straight into the decoder, without
 * zstd in the way, so the fuzzer reaches the CBOR and schema code quickly.
 */
#include <stdint.h>
#include <stdio.h>

#include <crib/format.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct crib_decoder *dec;
	static FILE *sink;
	struct crib_record rec;
	struct crib_error err;

	if (!dec)
		dec = crib_decoder_new();
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (dec && !crib_decoder_decode(dec, data, size, 4096, &rec, &err) && sink)
		crib_json_print_record(sink, &rec);
	return 0;
}
