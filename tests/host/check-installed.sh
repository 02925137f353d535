#!/bin/sh
# What -Dinspect-only=true installed under PREFIX works from there alone:
# crib-inspect verifies a snapshot, and a program built against the
# format library through crib-format.pc reads it to the same count.
# Usage: check-installed.sh PREFIX SNAPSHOT
set -eu
prefix=$1 snap=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

verdict=$("$prefix/bin/crib-inspect" --verify "$snap")
echo "$verdict"
pc=$(dirname "$(find "$prefix" -name crib-format.pc | head -n 1)")
[ -n "$pc" ] || { echo "no crib-format.pc under $prefix"; exit 1; }
for page in man1/crib-inspect.1 man5/crib-snapshot.5; do
	[ -f "$prefix/share/man/$page" ] || { echo "$page not installed"; exit 1; }
done

cat > "$tmp/count.c" <<'PROG'
#include <stdio.h>
#include <crib/format.h>

int main(void)
{
	struct crib_error err;
	struct crib_reader *r = crib_reader_open(0, NULL, &err);
	struct crib_record rec;
	unsigned long n = 0;
	int ret;

	if (!r)
		return 1;
	while ((ret = crib_reader_next(r, &rec)) > 0)
		n++;
	crib_reader_close(r);
	printf("%lu\n", n);
	return ret < 0;
}
PROG
# shellcheck disable=SC2046
${CC:-cc} -o "$tmp/count" "$tmp/count.c" \
	$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs crib-format)
n=$("$tmp/count" < "$snap")
echo "read through crib-format.pc: $n records"
case "$verdict" in
*", $n records,"*) ;;
*) echo "crib-inspect counted otherwise"; exit 1 ;;
esac
