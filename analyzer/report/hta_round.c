/* hta_round.c: HTA's rounding (hta_round.h). HTA's parser reads a trace whose timestamps are floats (ns
 * resolution, in microseconds) into doubles, takes end = ts + dur in doubles (near 1.7e15 us they are a
 * quarter apart), then rounds the start up and the end down to whole microseconds (trace_parser.py,
 * round_down_time_stamps); a trace in whole microseconds is left as it is, which the same rule gives. Its
 * tables then round shares with numpy (Series.round: rint of the value scaled by 10^digits). */
#include "hta_round.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ns as the double a JSON parser makes of the same time in microseconds ("%lld.%03lld" read correctly
 * rounded, as Python's json reads it). */
static double us_double(int64_t ns)
{
    char text[48];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(text, sizeof text, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000));
    return strtod(text, NULL);
}

/* A whole number of microseconds (a double) in ns, held in int64: multiplied as an integer (near 1.7e18,
 * doubles are 256 ns apart). */
static int64_t us_to_ns(double us)
{
    return us >= 9.2e15 ? INT64_MAX : us <= -9.2e15 ? INT64_MIN : (int64_t)us * 1000;
}

void tdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end)
{
    double t = us_double(ts), e = t + us_double(dur);
    *start = us_to_ns(ceil(t)), *end = us_to_ns(floor(e));
}

int64_t tdb_hta_start(int64_t ts)
{
    return us_to_ns(ceil(us_double(ts)));
}

double tdb_np_round(double x, int digits)
{
    double f = pow(10.0, digits);
    return rint(x * f) / f;
}

/* A time in ns from SQL: an integer as it is, a real (a stranger's database) rounded to the ns. */
static int64_t sql_ns(sqlite3_value *v)
{
    if (sqlite3_value_type(v) == SQLITE_INTEGER)
        return sqlite3_value_int64(v);
    double d = sqlite3_value_double(v);
    return d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)llround(d);
}

static void hta_start_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return; /* NULL */
    sqlite3_result_int64(ctx, tdb_hta_start(sql_ns(argv[0])));
}

static void hta_end_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    int64_t start, end;
    tdb_hta_round(sql_ns(argv[0]), sql_ns(argv[1]), &start, &end);
    sqlite3_result_int64(ctx, end);
}

static void hta_share_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    double part = sqlite3_value_double(argv[0]), whole = sqlite3_value_double(argv[1]);
    if (whole == 0)
        return;
    sqlite3_result_double(ctx, tdb_np_round(100 * (part / whole), sqlite3_value_int(argv[2])));
}

int tdb_register_hta_round(sqlite3 *db)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    return sqlite3_create_function(db, "hta_start", 1, flags, NULL, hta_start_fn, NULL, NULL) == SQLITE_OK &&
                   sqlite3_create_function(db, "hta_end", 2, flags, NULL, hta_end_fn, NULL, NULL) == SQLITE_OK &&
                   sqlite3_create_function(db, "hta_share", 3, flags, NULL, hta_share_fn, NULL, NULL) == SQLITE_OK
               ? 0
               : -1;
}
