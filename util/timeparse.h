/* timeparse.h: exact conversion of Chrome trace times (JSON numbers in microseconds) to int64 ns. */
#ifndef TDB_TIMEPARSE_H
#define TDB_TIMEPARSE_H
#include <stddef.h>
#include <stdint.h>

/* Parses the JSON number text s[0..n) (microseconds) into nanoseconds without going through a double:
 * "1712195495519695.8" -> 1712195495519695800. Digits below 1 ns round half away from zero.
 * Returns 0, or -1 when s is not a number, or -2 when the value does not fit in int64 ns. */
int tdb_us_to_ns(const char *s, size_t n, int64_t *out);

/* Parses a JSON number text as an int64 when it is integral ("12", "12.0", "1e3"); -1 otherwise. */
int tdb_parse_int(const char *s, size_t n, int64_t *out);

#endif
