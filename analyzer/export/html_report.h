/* html_report.h: one self-contained HTML page of a database's reports (see html_report.c). */
#ifndef TDB_HTML_REPORT_H
#define TDB_HTML_REPORT_H
#include "report_io.h"
#include <stdio.h>

struct html_report_options {
    const char *shown_path; /* the database's name as the page shows it (NULL: the path) */
    const char *baseline;   /* a database to compare with (tracedb diff baseline run), or NULL */
    const char *metric;     /* the gate's metric with a baseline (step_median, ...) */
    double fail_above;      /* ... its limit, percent */
    double alpha;           /* ... and the Mann-Whitney U level for step metrics */
    const char *chrome_trace; /* the exported Chrome trace to link for the full timeline, or NULL */
};

/* Writes the page for the database at db_path to f. 0, or 1 on error (printed on io->err). */
int html_report(const char *db_path, const struct html_report_options *o, FILE *f, struct report_io *io);

#endif
