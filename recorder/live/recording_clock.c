/* recording_clock.c: the live recorder's clock, chosen once per recording (tdb_open): the time-stamp
 * counter where the kernel keeps time with it, else CLOCK_REALTIME (rec_stamp, recording_internal.h). */
#include "recording_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((visibility("hidden"))) int rec_use_tsc; /* records hold TSC ticks (see rec_stamp) */

/* Whether records may hold the processor's time-stamp counter instead of CLOCK_REALTIME (half the cost
 * of a clock read): on x86-64 when the kernel itself keeps time with it (its clocksource is "tsc", which
 * it chooses only when the counter is constant-rate and synchronized across cores), unless
 * TRACEDB_CLOCK=realtime. The writer stages (counter, CLOCK_REALTIME) pairs with the records, and the
 * converter maps each stamp to nanoseconds through the latest pair (stage_convert.c). */
static int rec_tsc_usable(void)
{
#if defined(__x86_64__)
    const char *clock = getenv("TRACEDB_CLOCK");
    if (clock && strcmp(clock, "realtime") == 0)
        return 0;
    char source[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(source, sizeof source, f))
            source[0] = 0;
        fclose(f);
    }
    return strcmp(source, "tsc\n") == 0;
#else
    return 0;
#endif
}

void rec_clock_choose(void)
{
    rec_use_tsc = rec_tsc_usable();
}
