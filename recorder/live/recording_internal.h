/* recording_internal.h: what the live recorder's two files share: the ring record's layout, a thread's
 * ring and range stack, the recording itself (recording.c: the hot path, open, close; recording_writer.c:
 * the writer thread that drains the rings into the store). Internal to recorder/live. */
#ifndef TDB_RECORDING_INTERNAL_H
#define TDB_RECORDING_INTERNAL_H
#include "recording.h"
#include "ingest.h"
#include "jsonbuf.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define RING_BYTES (1u << 20)     /* per thread */
#define REC_TRACKED_DEPTH 4096    /* ranges open at once on a thread whose begin is remembered */
#define NAME_MAX_BYTES 1024       /* longer names are cut */
#define DRAIN_EVERY_NS 10000000   /* 10 ms, when the rings were nearly empty ... */
#define BUSY_DRAIN 1024           /* ... else at once: a drain that found this many records goes on */
#define COMMIT_EVERY_NS 100000000 /* 100 ms */

/* Room set aside for the end of each kept range: an end record and the padding that may precede it. */
#define END_ROOM (2 * sizeof(struct rec))

enum rec_type { R_BEGIN = 1, R_END, R_INSTANT, R_COUNTER, R_MEMORY, R_START, R_STOP, R_PAD };

/* One record in a ring; the name follows, then padding to 8 bytes. */
struct rec {
    uint16_t type;
    uint16_t name_len;
    uint16_t cat_len; /* a category (NVTX domain) follows the name */
    uint16_t kind;    /* the event kind of a range (op for NVTX operator names, range otherwise) */
    uint32_t args_len; /* a JSON object of args follows the category */
    uint32_t unused;
    int64_t ts;
    int64_t a;        /* R_START/R_STOP: range id; R_MEMORY: address; R_BEGIN/R_END: NVTX domain (0: none) */
    int64_t b;        /* R_MEMORY: bytes (negative = free); */
    double v;         /* R_COUNTER: value; R_MEMORY: device */
};

struct rec_ring {
    unsigned char *buf;
    _Atomic size_t head; /* written by the thread */
    _Atomic size_t tail; /* written by the writer */
    _Atomic int64_t dropped;
    _Atomic int retired; /* its thread has exited: once drained, the buffer is freed */
};

/* Writer-side state of an open range on a thread. */
struct rec_frame {
    int64_t start;
    int kind;
    struct buf name, cat, args;
    int64_t id;       /* reserved when it began: what begins inside it names it as parent */
    int64_t child_ns; /* the durations of its direct children so far */
    int64_t domain;   /* NVTX domain handle (0: the default domain): a pop ends its own domain's range */
};

struct rec_thread {
    struct rec_ring ring;
    /* the thread's own: ranges begun (kept) and not ended yet, whose ends have room set aside in the
     * ring; and how deep inside a dropped range the thread is (its whole subtree is dropped with it,
     * so every kept end meets its own begin) */
    uint32_t open_ends, skip_depth;
    /* the thread's own too: ranges begun and not ended, kept or not (see rec_keep_range_edge); bit d
     * of left_out says whether the one begun at depth d was left out */
    uint32_t open_depth;
    uint64_t left_out[REC_TRACKED_DEPTH / 64];
    int64_t os_tid;
    char os_name[17];          /* the thread's name when it first recorded (it may be gone at the end) */
    struct rec_thread *next;   /* every thread ever registered (never freed before close) */
    int64_t track;             /* ingest thread id */
    struct rec_frame *stack;   /* writer side */
    size_t depth, cap;
};

/* A range started on one thread and ended anywhere (nvtxRangeStart/End). */
struct rec_open {
    int64_t id, start, track;
    struct buf name, cat;
};

struct tdb_recording {
    struct tdb_ingest *ing;
    char *path;
    struct tdb_options opt;
    _Atomic(struct rec_thread *) threads;
    pthread_t writer;
    pthread_mutex_t lock;      /* stop flag and wake-ups */
    pthread_cond_t wake;
    pthread_mutex_t ingest;    /* whoever writes to the database: the writer, tdb_flush, CUPTI buffers */
    int stop;
    int failed;
    int64_t last_commit;
    struct rec_open *open;
    size_t nopen, open_cap;
    struct rec_stop { int64_t id, ts; } *stops; /* ends seen before their start (another thread's ring) */
    size_t nstops, stops_cap;
    int64_t next_range_id;     /* handed out by tdb_range_start */
    _Atomic int64_t range_ids;
    int named_process;         /* the process's name is written */
    int64_t step;              /* the current ProfilerStep number */
    int step_open;             /* a ProfilerStep range is open (on the stepping thread) */
    _Atomic int active;        /* events are kept (the schedule's active steps; always without one) */
    unsigned kinds;            /* bit k: keep records of rec_type k */
    struct buf scratch;
    int64_t events;
    uint64_t generation;       /* rec_generations at open: tells threads' rings of old recordings apart */
    pid_t owner;               /* the process that opened it: a forked child never writes to it */
};

/* The clock of every event: CLOCK_REALTIME, CUPTI's default clock too. */
static inline int64_t rec_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* recording_writer.c */
void *rec_writer_main(void *arg);                                  /* the writer thread */
int rec_drain(struct tdb_recording *r, size_t *records);           /* every ring into the store, now */
int rec_name_track(struct tdb_recording *r, struct rec_thread *t, int with_process);
int64_t rec_track(struct tdb_recording *r, struct rec_thread *t);  /* thread t's track id (-1: error) */
int rec_emit_range(struct tdb_recording *r, int64_t track, struct rec_frame *f, int64_t end,
                   const struct rec_thread *stack_of, size_t below);

#endif
