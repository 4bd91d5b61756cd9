/* recording_internal.h: what the live recorder's files share: a thread's ring, the recording itself
 * (recording.c: the hot path, open, close; recording_writer.c: the writer thread that appends the rings
 * to the staging file; recording_convert.c: the converter thread that builds the database from it).
 * Internal to recorder/live. */
#ifndef TDB_RECORDING_INTERNAL_H
#define TDB_RECORDING_INTERNAL_H
#include "recording.h"
#include "stage_format.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define RING_BYTES (4u << 20)     /* per thread: 50 ms of ranges at 2 M/s (TRACEDB_RING_KIB changes it) */
#define REC_TRACKED_DEPTH 4096    /* ranges open at once on a thread whose begin is remembered */
#define NAME_MAX_BYTES 1024       /* longer names are cut */
#define ARGS_MAX_BYTES 16384      /* longer args are left out */
#define STAGE_IDLE_NS 10000000    /* the writer stages every 10 ms when the rings were nearly empty ... */
#define STAGE_BUSY_NS 1000000     /* ... every 1 ms while they are busy */
#define STAGE_BUSY_BYTES 65536    /* busy: a pass that staged this much */
#define CONVERT_EVERY_NS 100000000 /* the converter commits what is staged every 100 ms ... */
#define CONVERT_PASS_BYTES (4 << 20) /* ... and after each 4 MiB of it */
#define REC_STEP_IDS 16           /* start/end step ranges open at once that can end a step */

/* Room set aside for the end of each kept range: an end record and the padding that may precede it. */
#define END_ROOM (2 * (sizeof(struct rec) + sizeof(struct rec_ext)))

struct rec_ring {
    unsigned char *buf;
    size_t size;         /* a power of two */
    _Atomic size_t head; /* written by the thread */
    _Atomic size_t tail; /* written by the writer */
    _Atomic int64_t dropped;
    _Atomic int retired; /* its thread has exited: once drained, the buffer is freed */
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
    int64_t number;            /* 1, 2, ... in the order threads first recorded: its name in the staging file */
    int64_t os_tid;
    char os_name[17];          /* the thread's name when it first recorded (it may be gone at the end) */
    int staged;                /* writer side: its STAGE_THREAD chunk is written */
    /* the thread's own, with a schedule: the step range it has open (pushed, named like the step glob),
     * its NVTX domain (NULL: the default one), and how many ranges of that domain were pushed inside it
     * and are still open (recording_steps.c) */
    int step_open;
    const char *step_cat;
    uint32_t step_inner;
    struct rec_thread *next;   /* every thread ever registered (never freed before close) */
};

struct stage_conv;

struct tdb_recording {
    char *path, *stage_path;
    struct tdb_options opt;
    _Atomic(struct rec_thread *) threads;
    _Atomic int64_t thread_numbers;
    pthread_t writer, converter;
    pthread_mutex_t lock;      /* stop flags and wake-ups */
    pthread_cond_t wake;
    int stop, stop_converting;
    /* the staging file: appended by the writer and CUPTI's buffers under stage_lock; `staged` is how far
     * whole chunks reach */
    int stage_fd;
    pthread_mutex_t stage_lock;
    pthread_mutex_t drain_lock; /* one pass over the rings at a time: the writer's, tdb_flush's, close's */
    _Atomic int64_t staged;
    int stage_failed;          /* a write failed (disk full): nothing more is staged, the rings drop */
    int64_t stage_max;         /* TRACEDB_STAGE_MAX: the staging file grows no larger (0: no limit) */
    /* the database: the converter (and tdb_flush, and close) turn staged chunks into rows under `ingest` */
    pthread_mutex_t ingest;
    struct tdb_ingest *ing;
    struct stage_conv *conv;
    int64_t converted;         /* how far the database reaches into the staging file */
    int convert_failed;
    int64_t last_commit;
    int64_t next_range_id;     /* handed out by tdb_range_start */
    _Atomic int64_t range_ids;
    int64_t step;              /* the current ProfilerStep number (tdb_step) */
    int step_open;             /* a ProfilerStep range is open (on the stepping thread) */
    /* with a schedule, steps also end where a range named like step_glob ends (recording_steps.c) */
    char *step_glob;           /* an SQLite GLOB; NULL without a schedule */
    pthread_mutex_t step_lock; /* a step ends on one thread at a time */
    int64_t steps_ended;       /* step ranges ended */
    _Atomic int stepped;       /* tdb_step was called: from then on it alone steps the schedule */
    _Atomic int64_t step_ids[REC_STEP_IDS]; /* step ranges started (tdb_range_start) and not ended; 0: free */
    _Atomic int step_ids_open;
    _Atomic int active;        /* events are kept (the schedule's active steps; always without one) */
    unsigned kinds;            /* bit k: keep records of rec_type k */
    size_t ring_bytes;         /* each thread's ring */
    uint64_t generation;       /* rec_generations at open: tells threads' rings of old recordings apart */
    pid_t owner;               /* the process that opened it: a forked child never writes to it */
};

/* The clock of every event in the database: CLOCK_REALTIME, CUPTI's default clock too. */
static inline int64_t rec_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* A record's stamp: the time-stamp counter where it keeps the kernel's time (rec_use_tsc, recording_clock.c),
 * mapped to CLOCK_REALTIME when the records become rows; else CLOCK_REALTIME itself. */
extern __attribute__((visibility("hidden"))) int rec_use_tsc;
void rec_clock_choose(void); /* sets rec_use_tsc for a recording about to start (recording_clock.c) */
static inline int64_t rec_stamp(void)
{
#if defined(__x86_64__)
    if (rec_use_tsc)
        return (int64_t)__builtin_ia32_rdtsc();
#endif
    return rec_now();
}

/* Waits on r->wake for at most ns nanoseconds (the caller holds r->lock). */
static inline void rec_wait(struct tdb_recording *r, long ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += ns;
    if (until.tv_nsec >= 1000000000)
        until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&r->wake, &r->lock, &until);
}

/* recording_writer.c: the writer thread (rings into the staging file) */
void *rec_writer_main(void *arg);
int rec_stage_rings(struct tdb_recording *r, size_t *bytes);    /* every ring into the staging file, now */
int rec_stage_chunk(struct tdb_recording *r, uint32_t type, int64_t thread, const void *payload, size_t bytes);
int rec_stage_thread(struct tdb_recording *r, struct rec_thread *t); /* its number, tid and name as now */
int rec_stage_clock(struct tdb_recording *r); /* a (time-stamp counter, CLOCK_REALTIME) pair */

/* recording_steps.c: the schedule's steps */
/* The schedule at step `step` (1, 2, ...): sets r->active; 1 when the step begins a cycle after a completed
 * one (on_cycle is due). The caller holds step_lock. */
int rec_schedule_at(struct tdb_recording *r, int64_t step);
/* After each completed cycle: everything so far committed, then on_cycle (no lock held). */
void rec_cycle_done(struct tdb_recording *r);
/* A range pushed or popped on thread t in domain cat (NULL: the default one), or started or ended by id:
 * the end of a step range ends a step. Called after its record is put, when r has a step_glob. */
void rec_step_push(struct tdb_recording *r, struct rec_thread *t, const char *name, const char *cat);
void rec_step_pop(struct tdb_recording *r, struct rec_thread *t, const char *cat);
void rec_step_start(struct tdb_recording *r, int64_t id, const char *name);
void rec_step_end(struct tdb_recording *r, int64_t id);

/* recording_convert.c: the converter thread (staging file into the database, in the background) */
void *rec_converter_main(void *arg);
/* what is staged (at most limit bytes of it; limit < 0: all) into the database; the caller holds ingest */
int rec_convert_staged(struct tdb_recording *r, int64_t limit);
/* Everything recorded so far into rows, committed (tdb_flush; a schedule's cycle end), from the process
 * that opened r only. 0, or -1 (recording_convert.c). */
int rec_flush(struct tdb_recording *r);

#endif
