/* render_cell.h: the pieces of a table the renderer (render_table.c) builds from (render_cell.c): cells
 * as text in their column's unit, terminal-safe text and its width, headers in words. */
#ifndef TDB_RENDER_CELL_H
#define TDB_RENDER_CELL_H
#include "render.h"
#include "jsonbuf.h"
#include <stddef.h>

int render_ends_with(const char *s, const char *suffix);

/* How a column's numbers print, from its name: times, bytes, percentages, FLOPs or as they are. */
enum cell_class { CELL_PLAIN, CELL_TIME, CELL_BYTES, CELL_PYTORCH_BYTES, CELL_PCT, CELL_FLOPS };
/* FLOPs in a report's tables only; a function that keeps its argument's unit, of a column ("median(dur_ns)",
 * "max(k.dur_ns)"), prints as that column would (tracedb sql's rule, docs/sql.md). */
enum cell_class render_cell_class(const char *col, int report);

/* The table text of one value (of type `type`, in a column of class c), appended NUL-terminated to b. */
void render_cell(sqlite3_stmt *st, int i, int type, enum cell_class c, struct buf *b);

/* Appends t as terminal-safe text: control characters escaped, invalid UTF-8 as U+FFFD, at most 4096
 * bytes. */
void render_safe_text(struct buf *b, const char *t, size_t len);

/* UTF-8 aware display width (counts code points); the byte offset of the k-th code point of s. */
size_t render_text_width(const char *s);
size_t render_char_offset(const char *s, size_t k);

#endif
