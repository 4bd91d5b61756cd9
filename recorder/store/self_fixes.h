/* self_fixes.h: self times made less in event rows already written (an operator whose children came in
 * a later run of its track: PyTorch writes a thread's operators before the runtime calls inside them),
 * gathered and written a batch at a time: the rows near one another in one UPDATE over their ids,
 * instead of an UPDATE a row (a fifth of the row writer's time on a trace in PyTorch's order). */
#ifndef TDB_SELF_FIXES_H
#define TDB_SELF_FIXES_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct self_fix {
    int64_t id, less;
};

struct self_fixes {
    sqlite3_stmt *one, *run; /* UPDATEs of one row, and of the rows of a range of ids */
    struct self_fix *fix;
    size_t n, cap, at, first; /* at: the cursor, while a run's UPDATE reads the fixes from first */
};

/* Prepares the UPDATEs on db (and the SQL function they call). 0, or -1 (db's error says why). */
int self_fixes_init(struct self_fixes *f, sqlite3 *db);
/* Row id's self time is less by less (after the fixes added before). 1 when the batch is full (the
 * caller writes it: self_fixes_write), 0, or -1 when out of memory. */
int self_fixes_add(struct self_fixes *f, int64_t id, int64_t less);
/* Writes the fixes gathered (then forgets them). 0, or the failed step's SQLite code. */
int self_fixes_write(struct self_fixes *f);
void self_fixes_free(struct self_fixes *f);

#endif
