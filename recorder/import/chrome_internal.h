/* chrome_internal.h: what the Chrome trace importer's files share: the event being read (struct chrome),
 * its fields and args, and the functions one file calls in another. chrome_import.c drives the read,
 * chrome_parse.c holds yajl's callbacks and the long-string reader, chrome_events.c turns a finished event
 * object into rows. Internal to recorder/import. */
#ifndef TDB_CHROME_INTERNAL_H
#define TDB_CHROME_INTERNAL_H
#include "chrome_import.h"
#include "json_fast.h"
#include "open_ranges.h"
#include "read_ahead.h"
#include "jsonbuf.h"
#include "timeparse.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#define CHUNK (256 * 1024)
#define MAX_REPORTED 5 /* skipped events described one by one; the rest are counted */
#define NO_TOKEN ((size_t)-1)
#define DEFAULT_MAX_STRING ((size_t)64 << 20)

enum field { F_NONE, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_ARGS, F_OTHER };
enum vtype { V_NUMBER, V_STRING, V_BOOL, V_NULL, V_NESTED };

/* Args that may become columns; each arg key is classified once, as it arrives. */
enum arg_slot {
    S_CORRELATION, S_EXTERNAL_ID, S_EXTERNAL_ID_LC, S_DEVICE, S_STREAM, S_BYTES, S_EV_IDX, S_GRID, S_BLOCK,
    S_REGISTERS, S_SHARED_MEM, S_BLOCKS_PER_SM, S_WARPS_PER_SM, S_OCCUPANCY, S_MEM_BYTES, S_ADDR,
    S_TOTAL_ALLOCATED, S_TOTAL_RESERVED, S_DEVICE_TYPE, S_DEVICE_ID, S_NAME, S_LABELS, S_SORT_INDEX,
    S_OPERATOR_INDEX, S_PE_INDEX, S_INSTRUCTION_INDEX, S_ARGS_STRING, S_COUNT
};


/* One arg (or unknown field) of the event being read. Its texts are where the fast lane found them
 * (kp, vp: the walked input, which stays put until the event is written) or, when those are NULL, at
 * offsets into the event arena (yajl's lane, whose buffers do not stay; captured nested values). */
struct arg {
    const char *kp, *vp;
    size_t key, key_n;   /* the key, unescaped (args_json escapes the ones it writes) */
    size_t val, val_n;   /* the value: JSON text; for strings, the unescaped text */
    enum vtype type;
    int promoted;        /* became a column */
};

/* A field of the event: where the fast lane found it (direct), or at off in the arena. */
struct text {
    const char *direct;
    size_t off, n;
    int set, is_text; /* is_text: a JSON string (pid/tid/id may be numbers or strings) */
};

/* The lexical state where yajl stands, for long strings (see feed_long_string). */
enum { SC_BETWEEN, SC_STRING, SC_LITERAL };
struct scan {
    int state;
    int esc;     /* in a string: 0; 1 after a backslash; 1 + hex digits still due after \u */
    int64_t len; /* bytes of the pending string or literal so far */
};

/* Damage inside the events array (chrome_resync.c): the bytes from it to the next event that parses whole
 * are skipped, as one span. */
struct damaged_span {
    size_t from, to;  /* the bytes skipped, both ends included (from: the damaged event's '{', or the damage) */
    size_t at;        /* where the parser met the damage */
    int64_t events;   /* events kept when the span ended (those after it: the total less this) */
    char why[120];
};
struct resync {
    int active;         /* skipping: looking for the next event's '{' */
    int depth;          /* containers open inside the events array, as the skipped bytes say (0: between events) */
    int in_string, esc; /* the skip is inside a string; after a backslash */
    unsigned char prev; /* the last byte skipped, not blank and not in a string */
    int trial;          /* a candidate '{' is being parsed: an error before it closes extends the span */
    size_t trial_events;  /* events read when the candidate began */
    int64_t spans;      /* damaged spans (the first MAX_REPORTED described in span[]) */
    struct damaged_span span[MAX_REPORTED];
};

struct chrome {
    struct tdb_ingest *ing;
    const char *file;
    FILE *err;
    yajl_handle h;
    size_t chunk_base;  /* uncompressed offset of the current chunk */
    int depth;          /* containers open */
    int shape;          /* 0 unknown, 1 bare array, 2 object */
    int events_depth;   /* depth of the events array, 0 when outside it */
    int events_closed;  /* the events array's depth once it closed, until a top-level key follows (else 0) */
    int top_field;      /* in an object: the pending top-level key is: 0 other, 1 traceEvents */
    struct buf top_key; /* the pending top-level key (unescaped) */

    /* capture of a nested value as JSON text: active while cap_depth > 0 */
    struct jw cap;
    int cap_depth;     /* the depth at which the captured value closes */
    struct buf *cap_buf;
    struct buf top_value; /* a captured top-level value, or a swallowed malformed one */

    /* the event being read */
    struct buf arena;
    struct arg *args;
    size_t nargs, args_cap;
    int slot_arg[S_COUNT]; /* index in args of each column-worthy arg, or -1 */
    struct text ph, cat, name, pid, tid, ts, dur, id, bp;
    enum field field;
    int in_args;       /* inside the args object */
    size_t event_offset;
    int chrome_event_bad;     /* a field had a wrong type */
    char bad_reason[160];

    /* top-level facts */
    struct buf extra;  /* JSON object of other top-level keys */
    struct jw extra_w;
    struct buf devprops, distinfo, trace_name;
    int64_t base_time_ns;

    /* B/E matching: the B events waiting for their E */
    struct open_ranges open;

    /* long strings (see feed_long_string) */
    size_t close_end;     /* offset in the chunk being parsed just past the last '}' or ']'; NO_TOKEN before one */
    struct buf longbuf;   /* a long string's bytes read ahead, fed to yajl in one call */
    struct scan scan;     /* the lexical state at the end of what yajl has consumed */
    size_t chunk_size;    /* bytes read at a time: CHUNK, less for a small file */
    unsigned char *chunk; /* the buffer they are read into */
    int progress_open;    /* a progress line stands on the terminal without its newline */
    int64_t oversize;     /* a string longer than max_string was cut: its length (for the message), or 0 */
    int top_skip;         /* the current top-level value is dropped (an oversize string in it) */
    size_t max_string;

    /* anomalies: facts of real traces, kept and flagged (or, with strict, skipped as errors) */
    int strict;
    int64_t *thread_last; /* per track id: the latest time seen on it (where a B never ended ends) */
    size_t thread_last_n;

    /* what the document is, when it holds no trace */
    const char *chrome_top_scalar;  /* the document is a bare scalar of this type */
    const char *events_type; /* "traceEvents" is this, not an array */
    int saw_events;          /* an events array was found */
    struct buf top_keys;     /* the first top-level keys, for the message */

    /* the fast lane (chrome_fast.c): simdjson walks runs of whole events; yajl reads the rest */
    struct json_fast *fast;  /* NULL: yajl reads everything (TRACEDB_JSON=yajl, or out of memory) */
    int replay;              /* a new yajl handle is being primed: the callbacks do nothing */
    int fast_switch;         /* yajl stopped at an event's '{' (fast_at) for the fast lane */
    size_t fast_at;
    size_t fast_from;        /* events from this file offset on may go to the fast lane */
    int in_fast;             /* the fast lane is calling the callbacks */
    size_t walk_base;        /* file offset of the walked run's first byte ('[' stands before its first event) */
    size_t fast_elem;        /* file offset of the event being walked */
    unsigned char *fb;       /* the fast lane's bytes: fb[-1] is room for the run's '[' */
    size_t fb_n, fb_cap;     /* bytes held; room (not counting the '[' and simdjson's padding) */
    size_t fb_base;          /* file offset of fb[0] */
    int in_end, in_end_n;    /* the fast lane met the input's end (the read's last result) */
    size_t fast_events, yajl_events; /* events read by each lane (TRACEDB_TIMING prints them) */
    int tty;                 /* progress shown on the terminal */
    size_t total, next_report;

    struct resync resync; /* damage skipped inside the events array (chrome_resync.c) */

    struct buf out_args; /* the args JSON handed to the writer */
    struct buf series;   /* a counter series name */
    struct tdb_import_result *res;
    int db_error;
};

/* chrome_events.c */
extern const char *const chrome_anomaly_what[TDB_ANOMALY_COUNT];
int chrome_arena_text(struct chrome *c, struct text *t, const char *s, size_t n, int is_text);
int chrome_arg_key(struct chrome *c, const unsigned char *k, size_t n);
int chrome_arg_scalar(struct chrome *c, enum vtype type, const char *text, size_t n);
int chrome_anomaly(struct chrome *c, enum tdb_anomaly a, size_t offset);
int chrome_event_end(struct chrome *c);
size_t chrome_offset(struct chrome *c);
void chrome_skip(struct chrome *c, size_t offset, const char *reason);
void chrome_event_bad(struct chrome *c, const char *fmt, const char *what);
void chrome_event_reset(struct chrome *c);
int chrome_range_write(struct chrome *c, const struct open_range *o, int64_t end, enum tdb_anomaly flag);
int chrome_top_scalar(struct chrome *c, enum vtype type, const char *text, size_t n);
int chrome_top_value_done(struct chrome *c, struct buf *value);

/* chrome_parse.c */
extern const yajl_callbacks chrome_callbacks;
void chrome_fast_sink(struct chrome *c, struct json_sink *k);
int chrome_no_trace(struct chrome *c);
int chrome_yajl_new(struct chrome *c);
int chrome_yajl_between_events(struct chrome *c, size_t base, int after_event);

/* chrome_feed.c */
#define FAST_RUN ((size_t)1 << 18) /* bytes the fast lane walks at a time, at most (1 MiB walked no faster, and
                                    * took 5 MB more) */
int chrome_feed(struct chrome *c, struct read_ahead *in, unsigned char *chunk, const unsigned char *p, size_t n);
int chrome_fast_take(struct chrome *c, const unsigned char *p, size_t n);
void chrome_progress(struct chrome *c, size_t done, int final);

/* chrome_fast.c */
int chrome_fast_lane(struct chrome *c, struct read_ahead *in);

/* chrome_resync.c */
int chrome_resync_begin(struct chrome *c);
size_t chrome_resync_scan(struct chrome *c, const unsigned char *p, size_t n);
int chrome_resync_resume(struct chrome *c, size_t offset);
void chrome_resync_end(struct chrome *c);
void chrome_resync_report(struct chrome *c);
void chrome_resync_extra(struct chrome *c);

#endif
