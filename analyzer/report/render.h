/* render.h: turns a prepared statement's rows into table, csv or json output (the only code that
 * prints report values). Column names decide table units: *_ns as times, *_bytes as memory, *_pct. */
#ifndef TDB_RENDER_H
#define TDB_RENDER_H
#include "report_io.h"
#include <sqlite3.h>

/* How output looks, given to each render call (NULL: all zero, as `tracedb sql` wants: headers as named,
 * every value whole, every column). Mostly tables' (render_table.c); first_name is every format's. The
 * strings are the caller's and must live through the call. */
struct render_options {
    int report;             /* a report: headers in words, empty columns left out, fitted to the terminal */
    const char *hide;       /* report: columns whose names hold one of these words (comma-separated) */
    int wide;               /* report: nothing cut to fit the terminal */
    const char *columns;    /* report: exactly these columns, comma-separated, in this order */
    const char *empty_hint; /* report: with no rows, "(no rows: <hint>)" instead of an empty frame */
    int64_t max_rows;       /* report: the first max_rows rows, then how many more (0: all) */
    const char *first_name; /* every format: the first column's name instead of the query's ("step" for "rank") */
    const char *keep;       /* report: a column left out to fit the terminal only when nothing else is (the sort key) */
    int wide_only;          /* report: the command takes --wide but not --columns (what the left-out line offers) */
    size_t width;           /* report: the width to fit (0: render_width of the table's stream) */
    int pytorch_bytes;      /* report: bytes as PyTorch's tables print them (render_memory: ops) */
};

/* Steps st to the end and writes its rows. Returns rows written, or -1 on an SQL error (printed). */
int64_t render_query(sqlite3_stmt *st, enum render_format fmt, const struct render_options *opt, FILE *out, FILE *err);

/* The same, leaving out the first `first` columns (a report's rank column without --by-rank). */
int64_t render_query_from(sqlite3_stmt *st, enum render_format fmt, int first, const struct render_options *opt,
                          FILE *out, FILE *err);

/* A render target inside the process: a report's column names (as csv and json name them), then each
 * row's values. columns() returns 0 to go on, 1 to stop before the rows, -1 on failure (out of memory);
 * row() 0 or -1. */
struct render_sink {
    int (*columns)(struct render_sink *s, int ncol, const char *const *names);
    int (*row)(struct render_sink *s, sqlite3_stmt *st, int first, int ncol); /* columns first .. first+ncol-1 */
};
/* Steps st to the end, handing its rows (from column first) to sink. Rows, or -1 (said why to err). */
int64_t render_to_sink(sqlite3_stmt *st, int first, const struct render_options *opt, struct render_sink *sink,
                       FILE *err);

/* A column's name as output shows it (opt's first_name for column 0). */
const char *render_column_name(sqlite3_stmt *st, int col, const struct render_options *opt);

/* The width a report's table and messages fit on out: $COLUMNS, else the terminal's when out is one, else
 * 100 (a pipe, a file). */
size_t render_width(FILE *out);

/* text as lines no wider than width (broken at blanks, and at a newline in it; a word longer than the width
 * stands alone on its line), the first indented as text is, the others by indent blanks, then a newline. */
void render_wrapped(FILE *f, const char *text, size_t width, size_t indent);

/* The table renderer (render_table.c). */
int64_t render_table(sqlite3_stmt *st, int first, const struct render_options *opt, FILE *out, FILE *err);

/* PyTorch-style time text for ns: "0.812us", "1.234ms", "2.000s". */
void render_time(char *dst, size_t n, int64_t ns);
/* Bytes as PyTorch's tables print them (ops' memory columns, which equal key_averages()'): "%.2f Kb"
 * (Mb, Gb) of powers of 1024, "512 b", "1.50 Kb", "-16.00 Kb". */
void render_memory(char *dst, size_t n, int64_t b);
/* Bytes as every other table prints them: KB, MB, GB of powers of 1000 (as GB/s), to the hundredth,
 * halves up: "999 B", "1.54 KB" (1536), "-16.00 KB", "2.50 GB". */
void render_bytes(char *dst, size_t n, int64_t b);
/* A percentage as "%.2f%%" prints it: "12.34%". */
void render_pct(char *dst, size_t n, double v);

/* A report's header for a column in words, as PyTorch's table heads its columns: "self_cpu_ns" -> "Self
 * CPU", "cpu_total_pct" -> "CPU total %", "p99_ns" -> "P99" (the cells carry the units). */
void render_header(const char *col, char *out, size_t n);
/* The unit of a column's numbers, read off its name as tables read it: "ns", "bytes", "%", "GB/s",
 * "FLOPs", or "" (a count, a text). */
const char *render_unit(const char *col);

/* Prints why stepping st failed (SQLite's message, and what an integer overflow means here). */
void render_step_error(sqlite3_stmt *st, FILE *err);
/* What a report says where a sum of the database's values passed 2^63 (SQLite's sum(), or a C pass's). */
void render_overflow_said(FILE *err);

#endif
