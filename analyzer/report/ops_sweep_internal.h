/* ops_sweep_internal.h: what the files of `tracedb ops`'s pass share (internal to analyzer/report): the
 * pass, its parts (the halves of the scan) and groups, and the steps ops_sweep (ops_sweep.c) runs: the
 * groups' keys and sums (ops_keys.c), the events' parents and what is attributed up them
 * (ops_parents.c), the events read (ops_read.c: SQLite's rows; ops_pack.c: the import's pack) and each
 * taken (ops_take.c), the groups written (ops_write.c). */
#ifndef TDB_OPS_SWEEP_INTERNAL_H
#define TDB_OPS_SWEEP_INTERNAL_H
#include "ops_sweep.h"
#include "jsonbuf.h"
#include "op_stacks.h"
#include "step_index.h"
#include "strmap.h"
#include "sweep_group.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define UNREAD (INT64_MIN + 1) /* a parent not read yet */
#define NO_PARENT INT64_MIN    /* none, or no such event */
#define BLOCK 4096
#define READ_ALL 4096 /* parents read one by one before all are read in one scan */
#define SPLIT_IDS (2 * BLOCK) /* events of at least this many ids are read in two halves at once */
#define GROUPS_SEEN 1024      /* a part's groups met lately (a power of 2) */

struct slot { /* what the pass knows of one event id, in 8 bytes (2 M events: 16 MB the pass zeroes, not 32) */
    int32_t parent; /* P_UNREAD, P_NONE, P_OUTSIDE; else its parent's id less lo (blocks) or its index in
                     * parents (the hash map's slots) */
    signed int group : 30;   /* its group, when it is a CPU-side event in scope; else -1 (a merged event:
                              * the group of the event it is merged into, for what it launched) */
    unsigned int children : 2; /* its CPU-side children in scope: 0, 1, 2 (two or more), or MERGED */
};
#define MERGED 3 /* children's value for an event PyTorch merges into its parent (ops_merge.c) */
enum { P_UNREAD = INT32_MIN, P_NONE, P_OUTSIDE /* an id no event has (outside the ids' range) */ };

struct sums {
    int64_t calls, self_cpu, cpu_total, self_dev, dev_total, cpu_mem, self_cpu_mem, dev_mem, self_dev_mem;
    int64_t flops_i;     /* while every FLOPs value is an integer and the sum fits */
    long double flops_d; /* every value, for when one is not */
    int flops_seen, flops_real;
};

struct group { /* by rank, name id, shapes, stack id and device; then by rank, name, shapes, stack and device */
    const sqlite3_value *rank;
    int64_t rank_key; /* the rank's or step's first index among those of equal value; -1 for none */
    int64_t name_id;
    char *name;   /* a shard's row's name as it reads (ops_shards.c); NULL: name_id's string */
    char *shapes; /* NULL when not grouped by them */
    int32_t stack;       /* by stack: its id (op_stacks.h) */
    int32_t device;      /* 1: GPU work's own row (PyTorch's device events: a row apart from a CPU-side
                          * one of the same name); 0: CPU-side events' */
    struct sums s;
};

struct launch { int64_t launch, dur; };
/* A [memory] event as PyTorch counts it: its trace, time, and the bytes of the trace's [memory] events up
 * to it and with it (host, device), in (trace, time) order; an event holds those within its [start, end]. */
struct mem_at { int64_t trace, ts, host, device; };
struct held { int64_t id, host, device; }; /* an event in scope holding [memory] bytes */

struct ops_pass;
struct pack_source;

/* One event as the pass takes it (ops_take_row), from SQLite's row or the pack's: what its kind's taking
 * reads (a CPU-side event: all but launch; GPU work: kind, name, duration, key, launch, shapes). */
struct ops_row {
    int64_t id, kind, name_id, dur, self;
    int64_t key;          /* by rank: its thread; by step: its start (GPU work: its launch's, where it has one) */
    int64_t start, thread; /* with [memory] events */
    int64_t parent;       /* NO_PARENT for none */
    sqlite3_value *parent_value; /* by stack: the parent as SQLite gives it (op_stacks_of) */
    int64_t launch;
    int has_launch;
    const char *shapes;   /* by shape */
    int flops_type;       /* with FLOPs: SQLITE_NULL, SQLITE_INTEGER (flops_i) or SQLITE_FLOAT (flops_d) */
    int64_t flops_i;
    double flops_d;
};

/* What one reader of the events makes: of the whole scan, or of one half of it (ids lo..hi) on its own
 * connection and thread, whose groups then join the other's. */
struct ops_part {
    _Alignas(128) struct ops_pass *p; /* on lines of its own: the halves' threads write theirs at once */
    sqlite3 *db;
    int64_t lo, hi;
    struct sweep_index groups;
    struct launch *launches;
    size_t nlaunches, cap_launches;
    struct held *held;
    size_t nheld, cap_held;
    int64_t thread_seen, trace_seen; /* the last thread's trace (most rows repeat it) */
    size_t mem_hint;                 /* the last event's first [memory] event (ops_read.c) */
    int64_t total_self_cpu;
    size_t step_hint[2]; /* by step: the segment its last CPU-side event, and its last GPU work's launch, fell
                          * in (step_index_find; the launches run behind the events read beside them) */
    int overflow;
    int rc; /* 0, -1: db's error, -2: out of memory, -3: the pack is no pack (ops_pack.c) */
    char *errmsg; /* with -1: the error, where the connection may say another by then (sqlite3_mprintf'd) */
    int64_t (*ranges)[2]; /* the ids it reads from SQLite: its own, or with the pack its stale ones */
    size_t nranges;
    /* groups by (rank key, name id) met lately, in front of the hash map (not with shapes): a step holds a
     * few dozen names, so nearly every event finds its group here (2 M events by step: the map's key and
     * lookup were 6% of the pass) */
    struct group_seen {
        int64_t rank_key, name_id;
        int32_t stack, device;
        size_t group; /* its index in groups, plus 1; 0: none yet */
    } seen[GROUPS_SEEN];
};

struct ops_pass {
    const struct ops_sweep_options *o;
    sqlite3 *db;
    struct report_io *io;
    sqlite3_stmt *parent_of;
    /* event ids within 2^31 of each other (every database tracedb makes): blocks of BLOCK slots from
     * lo, made when first touched; else a hash map from id to a slot in `slots` */
    int64_t lo, span;
    struct slot **blocks;
    struct strmap slot_ix;
    struct slot *slots;
    int64_t *slot_ids; /* with the hash map: the id of each slot */
    size_t nslots, cap_slots, cap_slot_ids;
    int64_t *parents; /* with the hash map: the parents its slots name */
    size_t nparents, cap_parents;
    size_t reads;    /* parents read one by one */
    int all_parents; /* every event's parent is known */
    struct ops_part part[2]; /* the lower half's (or the whole scan's) holds both once joined */
    sqlite3_value **ranks; /* by thread: scope_rank's value */
    int64_t *rank_key;     /* by thread: the first index in ranks of an equal value; -1 for NULL */
    struct strmap rank_ix; /* thread id -> index in ranks */
    struct op_stacks *stacks; /* by stack: every event's */
    size_t nranks;
    struct step_index steps;
    struct mem_at *mem; /* every [memory] event of the database, in (trace, time) order */
    size_t nmem, cap_mem;
    struct strmap trace_of; /* thread id -> its trace's id (with mem) */
    int64_t one_trace;      /* the database's one trace, when it has one (0: more) */
    const struct pack_source *pack; /* the import's pack, read in place of the rows but the stale ones */
    int64_t (*stale)[2];  /* with the pack: the ids whose rows it does not hold as they are (sorted) */
    size_t nstale;
    int64_t (*less)[2];   /* with the pack: the self times made less since their rows were packed (id, less; sorted) */
    size_t nless;
    int64_t total_device; /* the footer's: the device rows' self device time, listed or not (the self CPU
                           * total: part[0]'s) */
    int overflow;
};
/* ops_keys.c */
void ops_add(int *overflow, int64_t *acc, int64_t v); /* *acc += v; *overflow set when it does not fit */
/* Appends one element of `size` bytes to a growing array; NULL when out of memory. */
void *ops_push(void **v, size_t *n, size_t *cap, size_t size);
void ops_sums_add(int *overflow, struct sums *to, const struct sums *s);
/* Appends value v to a group key as GROUP BY tells values apart. 0, or -1 when out of memory. */
int ops_key_add(struct buf *k, const sqlite3_value *v);
/* A group's key: its rank's or step's key, its name id, its stack's, whether it is a device row and its
 * shapes (when grouped by them). */
int ops_group_key(struct buf *key, int64_t rank_key, int64_t name_id, int32_t stack, int32_t device, const char *shapes);
int ops_load_keys(struct ops_pass *p, const struct ops_sweep_options *o); /* scope_rank or scope_steps, read once */

/* ops_parents.c */
/* The slot of id, made when new (parent UNREAD, no group); NULL when out of memory. Valid until the next
 * call. */
struct slot *ops_slot_of(struct ops_pass *p, int64_t id);
int ops_slot_set_parent(struct ops_pass *p, struct slot *s, int64_t parent); /* 0, or -1 when out of memory */
int ops_ids_range(struct ops_pass *p); /* blocks when the ids lie within 2^31 of each other */
int ops_attribute_all(struct ops_pass *p); /* GPU work to the groups: 0, or -1 */

/* The slot of id when it has one (NULL: none); never makes one. Valid until the next ops_slot_of. */
struct slot *ops_slot_find(struct ops_pass *p, int64_t id);
/* The parent a slot holds: an id, UNREAD or NO_PARENT. */
int64_t ops_slot_parent(const struct ops_pass *p, const struct slot *s);

/* The parent of event id (read when not known yet): 1 with *parent set, 0 when it has none, -1 on error. */
int ops_parent_of(struct ops_pass *p, int64_t id, int64_t *parent);

/* ops_merge.c: PyTorch's merge of an operator's only child of its own name into it, and each event's
 * [memory] bytes less its CPU-side children's for its self sums. 0, or -1. */
int ops_merge_same_name(struct ops_pass *p);

/* ops_take.c: row r into the part's groups. 0, or -2 when out of memory. */
int ops_take_row(struct ops_part *part, const struct ops_row *r, struct buf *key);

/* ops_pack.c: whether the pass may read the events from the import's pack (a whole one of format 2, the
 * scope every row as stored, no shapes, FLOPs or stacks wanted): 1 with p->pack, p->stale, p->less set;
 * 0 not. */
int ops_pack_open(struct ops_pass *p, struct pack_source *src);
/* The part's events from the pack, and its stale ranges (part->ranges) from SQLite by st (ops_read_range)
 * as the pack's rows reach each: all in id order, as SQL's sum() would add them. 0, -1 on a database
 * error, -2 when out of memory, -3 when it is no pack (a block no block, an id twice or none, blocks that
 * cannot be read: a stranger's; the caller forgets what was taken and reads the rows). */
int ops_pack_take(struct ops_part *part, sqlite3_stmt *st);

/* ops_take.c: the events of ids lo..hi from SQLite by st (ops_events_sql's, on the part's connection)
 * into the part's groups. 0, -1 on a database error, -2 when out of memory. */
int ops_read_range(struct ops_part *part, sqlite3_stmt *st, int64_t lo, int64_t hi, struct buf *key);
/* ops_take.c: queries/ops_event_rows.sql with the columns the pass reads (memory: 0 no [memory] events,
 * 1 one trace's, 2 more). NULL when out of memory. */
char *ops_events_sql(const struct ops_sweep_options *o, int memory);
/* ops_read.c: what a part made freed (its groups, GPU work, held bytes, ranges). */
void ops_part_free(struct ops_part *part);
/* ops_read.c: the events in scope, into groups (in two halves at once where they are many): CPU-side
 * events into theirs, GPU work into its device rows' and kept for the attribution. 0, or -1 (printed). */
int ops_read_events(struct ops_pass *p);

/* The columns of a shard's rows in the reduce database's shard_ops (ops_shard_pass, ops_sweep.c), in
 * temp.ops_agg's names (ops_write.c). */
#define SHARD_OPS_COLUMNS                                                                                     \
    "rank, name, device, calls, self_cpu_ns, cpu_total_ns, self_device_ns, device_total_ns, cpu_mem_bytes, " \
    "self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes"
enum { SHARD_OPS_N = 12 };

/* ops_shards.c: over a shard directory's reduce database, the groups of its table shard_ops (each
 * shard's pass, ops_shard_pass) in place of the events', and the totals they make. 0, or -1. */
int ops_shard_groups(struct ops_pass *p);

/* ops_write.c: the groups merged by the names they read as, into temp.ops_agg; the totals into
 * temp.ops_totals. 0, or -1. */
int ops_write_groups(struct ops_pass *p);

#endif
