/* html_timeline.h: the HTML report's timeline data (see html_timeline.c). */
#ifndef TDB_HTML_TIMELINE_H
#define TDB_HTML_TIMELINE_H
#include "jsonbuf.h"
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Appends the timeline of db's events in [t0, t1] as one JSON object to b. 0, or -1 on error. */
int html_timeline_json(sqlite3 *db, int64_t t0, int64_t t1, struct buf *b, struct report_io *io);

#endif
