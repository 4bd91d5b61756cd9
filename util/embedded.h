/* embedded.h: the SQL files (schema/, queries/) compiled into the binary by tools/embed.c. */
#ifndef TDB_EMBEDDED_H
#define TDB_EMBEDDED_H
#include <stddef.h>
#include <string.h>

struct tdb_embedded_file {
    const char *path; /* path in the source tree, e.g. "queries/ops.sql" */
    const char *text; /* NUL-terminated contents */
    size_t len;       /* length without the NUL */
};

extern const struct tdb_embedded_file tdb_embedded_files[];

/* The embedded file with this path, or NULL. */
const char *tdb_embedded_get(const char *path);

/* The statement of the embedded file path that starts with head (e.g. "CREATE VIEW flow AS"), up to its
 * ';' (left out): its text, its length in *len; NULL when there is none. */
static inline const char *tdb_embedded_statement(const char *path, const char *head, int *len)
{
    const char *text = tdb_embedded_get(path), *at = text ? strstr(text, head) : NULL;
    const char *end = at ? strchr(at, ';') : NULL;
    *len = end ? (int)(end - at) : 0;
    return end ? at : NULL;
}

#endif
