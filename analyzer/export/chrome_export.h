/* chrome_export.h: a database (the events in temp view scope_event whose kind is in temp table
 * export_kinds) as Chrome trace JSON (see chrome_export.c). */
#ifndef TDB_CHROME_EXPORT_H
#define TDB_CHROME_EXPORT_H
#include "report_io.h"
#include <sqlite3.h>

/* Writes to path ("-" = io->out; ".gz" = gzip). 0, or 1 on error (printed). */
/* path names the export ("-": stdout; ".gz": compressed); the bytes go to write_to (its temporary). */
int chrome_export(sqlite3 *db, const char *path, const char *write_to, struct report_io *io);

#endif
