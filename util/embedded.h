/* embedded.h: the SQL files (schema/, queries/) compiled into the binary by tools/embed.c. */
#ifndef TDB_EMBEDDED_H
#define TDB_EMBEDDED_H
#include <stddef.h>

struct tdb_embedded_file {
    const char *path; /* path in the source tree, e.g. "queries/ops.sql" */
    const char *text; /* NUL-terminated contents */
    size_t len;       /* length without the NUL */
};

extern const struct tdb_embedded_file tdb_embedded_files[];

/* The embedded file with this path, or NULL. */
const char *tdb_embedded_get(const char *path);

#endif
