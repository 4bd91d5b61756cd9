/* phase_clock.c: TRACEDB_TIMING's phase times (see phase_clock.h). */
#include "phase_clock.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tdb_timing_wanted(void)
{
    const char *t = getenv("TRACEDB_TIMING");
    return t && *t && strcmp(t, "0") != 0;
}

void tdb_phase_start(struct tdb_phase_clock *c)
{
    c->on = tdb_timing_wanted();
    clock_gettime(CLOCK_MONOTONIC, &c->since);
}

void tdb_phase_end(struct tdb_phase_clock *c, const char *done)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (c->on)
        fprintf(stderr, "tracedb: %-16s %8.3f s\n", done,
                (double)(now.tv_sec - c->since.tv_sec) + (double)(now.tv_nsec - c->since.tv_nsec) / 1e9);
    c->since = now;
}
