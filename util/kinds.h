/* kinds.h: the one list of built-in event kinds: the C enum (store/ingest.h), the kind table's rows and
 * every {kind:NAME} in schema/ and queries/ (tools/embed.c writes the ids in) all come from here. */
#ifndef TDB_KINDS_H
#define TDB_KINDS_H

/* X(ENUM_SUFFIX, id, "name") */
#define TDB_KIND_LIST(X)                                                                                     \
    X(OP, 1, "op")                                                                                           \
    X(RANGE, 2, "range")                                                                                     \
    X(GPU_RANGE, 3, "gpu_range")                                                                             \
    X(PYTHON, 4, "python")                                                                                   \
    X(RUNTIME, 5, "runtime")                                                                                 \
    X(DRIVER, 6, "driver")                                                                                   \
    X(KERNEL, 7, "kernel")                                                                                   \
    X(MEMCPY, 8, "memcpy")                                                                                   \
    X(MEMSET, 9, "memset")                                                                                   \
    X(SYNC, 10, "sync")                                                                                      \
    X(MEMORY, 11, "memory")                                                                                  \
    X(INSTANT, 12, "instant")                                                                                \
    X(TRACE, 13, "trace")                                                                                    \
    X(ASYNC, 14, "async")                                                                                    \
    X(EXECUTION, 15, "execution")

#define TDB_KIND_ENUM(suffix, id, name) TDB_KIND_##suffix = id,
enum tdb_kind {
    TDB_KIND_LIST(TDB_KIND_ENUM)
    TDB_KIND_FIRST_CUSTOM = 100 /* categories tracedb does not know get ids from here */
};
#undef TDB_KIND_ENUM

#endif
