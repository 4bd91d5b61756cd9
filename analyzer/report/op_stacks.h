/* op_stacks.h: the Python stack above each event, as `tracedb ops --group-by stack` groups operators by
 * it: the innermost --stack-depth python frames among the event's parent and the events above that (up
 * while the depth falls, as it does at every step in a database tracedb made), innermost first, joined by
 * "; ". Built in one scan of the events (op_stacks.c); each distinct stack is an id, its text made once,
 * so that ops_sweep.c groups by ids and prints texts. */
#ifndef TDB_OP_STACKS_H
#define TDB_OP_STACKS_H
#include <sqlite3.h>
#include <stdint.h>

#define OP_STACK_NULL (-1) /* SQL's NULL: the parent is no event, or a name on the way up is no string */
#define OP_STACK_EMPTY 0   /* no python frame above: the empty text */

struct op_stacks;

/* Reads main.event and main.string; depth: --stack-depth (0 or less: every stack is empty). NULL on an
 * SQLite error or out of memory. */
struct op_stacks *op_stacks_build(sqlite3 *db, int64_t depth);
/* The stack of an event whose parent_id is v (NULL: OP_STACK_EMPTY). */
int32_t op_stacks_of(const struct op_stacks *s, sqlite3_value *parent);
/* A stack's text; NULL for OP_STACK_NULL and for a stack with a frame whose name is NULL. */
const char *op_stacks_text(const struct op_stacks *s, int32_t id);
void op_stacks_free(struct op_stacks *s);

#endif
