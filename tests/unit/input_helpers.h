/* input_helpers.h: what the tests of imports worked by hand (test_input.c, test_database.c,
 * test_nesting.c, test_nesting_stream.c) share: a trace in a fresh directory imported into its database,
 * its stderr searched; events' nesting checked against values worked by hand. */
#ifndef TDB_TEST_INPUT_HELPERS_H
#define TDB_TEST_INPUT_HELPERS_H
#include <stddef.h>
#include <stdint.h>

struct fixture {
    char *dir;
    char trace[1024], db[512], err[512];
};

/* A fresh directory with json (unless NULL) written to trace.EXT in it; db and err name run.db and stderr there. */
struct fixture fx_new(const char *json, const char *ext);
int fx_import(struct fixture *f, const char *extra); /* tracedb import -q EXTRA trace -o db 2>err: its status */
/* fx_import of f's trace and the traces in `more` ("" or quoted paths) with TRACEDB_TIMING on: the
 * import's phases and its rewrite counts go to f's stderr file. */
int fx_import_timed(struct fixture *f, const char *more);
void fx_free(struct fixture *f);
int err_has(const struct fixture *f, const char *text); /* whether the import's stderr contains text */

/* An event (named once in its trace) worked by hand: its parent's name, its depth, its self time. */
struct nested {
    const char *name, *parent;
    int depth;
    int64_t self_us;
};

void assert_nested(const char *db, const struct nested *want, size_t n, const char *how);
/* Imports json with TRACEDB_TIMING on: the end's rewrite count must read `rewrites` ("N rows to rewrite
 * of M") and each event's nesting what was worked by hand. The fixture, for more checks (fx_free it). */
struct fixture nested_by_hand(const char *json, const char *rewrites, const struct nested *want, size_t n,
                              const char *how);
char *hundred_events(void); /* 100 events "e0".."e99", 1 us apart, as one JSON text (malloc'd) */

#endif
