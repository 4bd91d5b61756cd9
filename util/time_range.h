/* time_range.h: the range of times tracedb holds, and arithmetic that stays inside 64 bits with them.
 * Times past 2^62 ns (146 years) either way are not times: importers refuse or clamp starts, durations
 * and ends beyond TDB_TIME_MAX, so that any difference of two times fits in 64 bits; sums over many
 * events saturate (tdb_sat_add). A report reads databases anyone may have written (or edited), so it
 * holds each time it reads to the same range (tdb_time_held, tdb_event_held) and counts what it had to
 * hold (tdb_times_held): tracedb then warns that those figures are not real times. */
#ifndef TDB_TIME_RANGE_H
#define TDB_TIME_RANGE_H
#include <stdint.h>

#define TDB_TIME_MAX (((int64_t)1 << 62) - 1)

/* Holds an event's start and duration within TDB_TIME_MAX, and so its end, as tdb_ingest_event holds
 * what a caller gives it (importers refuse such times; a caller that does not is held to the range):
 * 1 when it changed them. */
static inline int tdb_time_clamp(int64_t *start, int64_t *dur)
{
    if (*start <= TDB_TIME_MAX && *start >= -TDB_TIME_MAX && *dur >= 0 && *dur <= TDB_TIME_MAX - (*start > 0 ? *start : 0))
        return 0;
    *start = *start > TDB_TIME_MAX ? TDB_TIME_MAX : *start < -TDB_TIME_MAX ? -TDB_TIME_MAX : *start;
    int64_t room = TDB_TIME_MAX - *start; /* the end stays within the range too */
    *dur = *dur < 0 ? 0 : *dur > room ? room : *dur;
    return 1;
}

static inline int64_t tdb_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t tdb_sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) == (b < 0) ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t tdb_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* Counts one value a report had to hold (the first one is kept for the warning). */
void tdb_time_held_note(int64_t was);

/* A time read from a database (a start, an end, a launch's start, a trace's first time), held to
 * +-TDB_TIME_MAX. */
static inline int64_t tdb_time_held(int64_t t)
{
    if (t <= TDB_TIME_MAX && t >= -TDB_TIME_MAX)
        return t;
    tdb_time_held_note(t);
    return t > 0 ? TDB_TIME_MAX : -TDB_TIME_MAX;
}

/* A duration read from a database, held to 0..TDB_TIME_MAX (tracedb writes none below 0). */
static inline int64_t tdb_dur_held(int64_t d)
{
    if (d >= 0 && d <= TDB_TIME_MAX)
        return d;
    tdb_time_held_note(d);
    return d < 0 ? 0 : TDB_TIME_MAX;
}

/* An event's start and duration read from a database, held as tdb_time_clamp holds them. */
static inline void tdb_event_held(int64_t *start, int64_t *dur)
{
    int64_t was = *start < -TDB_TIME_MAX || *start > TDB_TIME_MAX ? *start : *dur;
    if (tdb_time_clamp(start, dur))
        tdb_time_held_note(was);
}

/* How many values this process held so far (any thread), and the first of them (*first). */
long tdb_times_held(int64_t *first);

#endif
