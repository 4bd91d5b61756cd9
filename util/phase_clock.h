/* phase_clock.h: with TRACEDB_TIMING=1, how long each phase of a command took, on stderr
 * ("tracedb: PHASE  0.123 s"): the import's phases and the critical path's alike. */
#ifndef TDB_PHASE_CLOCK_H
#define TDB_PHASE_CLOCK_H
#include <time.h>

struct tdb_phase_clock {
    struct timespec since; /* the current phase's start */
    int on;                /* TRACEDB_TIMING is set (and not "0") */
};

/* Whether TRACEDB_TIMING asks for times. */
int tdb_timing_wanted(void);

/* Starts the clock's first phase now. */
void tdb_phase_start(struct tdb_phase_clock *c);

/* Ends the current phase (printing its time when on) and starts the next. */
void tdb_phase_end(struct tdb_phase_clock *c, const char *done);

#endif
