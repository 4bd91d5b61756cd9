/* stream_nest.c: nesting while events stream in, and the reorder buffer that lets rows be written
 * once (see stream_nest.h). The buffer is a ring of rows (their args in a byte ring beside it); a row
 * leaves from the head when it is final, so rows reach the writer in id order. Nothing is allocated
 * per event. */
#include "stream_nest.h"
#include "frame_log.h"
#include "paged.h"
#include "strmap.h"
#include <stdlib.h>
#include <string.h>

struct held {
    int64_t id, name_id, cat_id;
    uint32_t stat;       /* its aggregate */
    struct tdb_event ev; /* args.p is set when the row leaves: its text is in the byte ring */
    uint64_t args_at, args_end; /* absolute offsets in the byte ring */
    int done;            /* its values are final (or its track is dirty) */
    int waiting;         /* GPU work waiting for its launch (ev.correlation) to come: stream_nest_link */
};

/* GPU work waits for its launch at most this many rows behind it; a launch finds the row waiting for
 * its correlation through a direct-mapped table (a collision only leaves a row to the end's linking). */
#define WAIT_ROWS 64
#define WAIT_SLOTS 256

/* Instants at one start that a longer event at that start may still come ahead of (AHEAD_MAX at most). */
#define AHEAD_MAX 8

/* A track reads its earlier runs back at most this many times a trace: each restart reads them all
 * again, so a track that went back in time at every event (hostile, or a profiler gone wrong) would read
 * its log once an event. Real traces go back 1 to 5 times a thread (hundreds in one of 17); past the
 * limit the track turns dirty and the sweep writes its rows, as before the log. */
#define MERGES_PER_TRACK (FRAME_LOG_RUNS - 1)

struct frame {
    uint64_t seq;        /* its row in the ring, when ring */
    int64_t id, end, dur, child_sum;
    int64_t later;       /* an earlier run's frame: its children of this run, its row's self time less */
    uint32_t stat;       /* its aggregate */
    int depth;
    int ring;            /* 1: this run's, its row in the ring; 0: an earlier run's, read back from the log */
};

struct track {
    int64_t prev_start, prev_dur;
    int seen, dirty;
    int unlogged;        /* an event of it is not in the log: a restart turns it dirty */
    struct frame_log_reader *earlier; /* after a restart: the earlier runs' events, merged in as time passes */
    const struct frame_rec *next;     /* the next of them, NULL when none is left */
    int log_slot;        /* its place in the frame log, + 1; 0 until it logs an event */
    int merges;          /* restarts that read the earlier runs back (MERGES_PER_TRACK at most) */
    struct paged stack;  /* struct frame: its top frames in memory, its deep part in a file (stack_file):
                          * frames under the top are not touched until they end */
    size_t top;
    size_t open;         /* frames of this run on the stack (ring) */
    int64_t last_merged; /* the start of the earlier runs' event merged last, this run (after a restart:
                          * merges > 0; it stays when the earlier runs' events are all merged) */
    /* the instants just come at one start, after events that started before it: an event at that start
     * that outlasts them comes ahead of them in the sweep's order (their parent), not as a restart; so
     * their rows wait (not done) until the track's next event that is not one more of them */
    int64_t ahead_start;
    int64_t ahead_cap;   /* the duration of the last event that came ahead of them (the next may not
                          * be longer: the sweep puts the longer first) */
    uint64_t ahead_seq[AHEAD_MAX]; /* the rows of the first `waiting` of them */
    int ahead_n;         /* AHEAD_MAX + 1: too many, or not after earlier starts */
    int waiting;         /* of them, rows that wait (not done) */
};

/* Bytes of a track's stack in memory (2,048 frames of 64 bytes at the import's 4 MiB budget; 2 frames at
 * the tests' 1 KiB), in pages of STACK_PAGE bytes at most: a million nested events cost disk, not memory. */
#define STACK_IN_MEMORY(budget) ((budget) / 32)
#define STACK_PAGE 4096

struct stream_nest {
    struct held *q;
    size_t cap;
    uint64_t head, tail; /* rows [head, tail) wait; row k is q[k % cap] */
    char *bytes;
    size_t bytes_cap;
    uint64_t bytes_head, bytes_tail;
    struct track *tracks;
    size_t ntracks;
    uint64_t waiting[WAIT_SLOTS]; /* seq + 1 of a row waiting for a launch, by its correlation; 0 none */
    struct stream_nest_calls c;
    int inexact;           /* a row not nested here (a dirty track, an event without one): the sweep's turn */
    int64_t overlaps;
    int64_t same_stat; /* events given a parent of their own name */
    struct strmap overlapped; /* the ids of the events counted in overlaps (few): each is counted once */
    struct frame_log *log; /* each track's runs, for the runs after them (NULL: none kept) */
    struct paged_file stack_file; /* the deep parts of the tracks' stacks */
    size_t stack_bytes;    /* bytes of each track's stack in memory */
    int sweep_only;        /* TRACEDB_NEST=sweep (tests): every track dirty, the sweep nests all */
    int log_slots;         /* places in the log given to tracks this trace, in the order they came */
};

struct stream_nest *stream_nest_new(size_t budget, const struct stream_nest_calls *calls, const char *dir)
{
    struct stream_nest *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cap = budget / 2 / sizeof(struct held);
    if (s->cap < 64)
        s->cap = 64;
    s->bytes_cap = budget / 2 < 4096 ? 4096 : budget / 2;
    s->q = malloc(s->cap * sizeof *s->q);
    s->bytes = malloc(s->bytes_cap);
    s->stack_bytes = STACK_IN_MEMORY(budget);
    size_t slot = s->stack_bytes / 2 < STACK_PAGE ? s->stack_bytes / 2 : STACK_PAGE;
    int file = paged_file_init(&s->stack_file, dir, slot > sizeof(struct frame) ? slot : sizeof(struct frame));
    s->c = *calls;
    s->log = frame_log_new(dir); /* none: later runs are left to the sweep, as before */
    const char *nest = getenv("TRACEDB_NEST");
    s->sweep_only = nest && strcmp(nest, "sweep") == 0;
    if (!s->q || !s->bytes || file != 0) {
        stream_nest_free(s);
        return NULL;
    }
    return s;
}

/* The depth of a child of an event at depth d (saturating, as the sweep's). */
static int deeper(int d)
{
    return d >= UINT16_MAX ? UINT16_MAX : d + 1;
}

static struct track *track_of(struct stream_nest *s, int64_t thread_id)
{
    if (thread_id < 0 || thread_id > (1 << 24))
        return NULL;
    size_t t = (size_t)thread_id;
    if (t >= s->ntracks) {
        size_t n = s->ntracks ? s->ntracks : 16;
        while (n <= t)
            n *= 2;
        struct track *nt = realloc(s->tracks, n * sizeof *nt);
        if (!nt)
            return NULL;
        memset(nt + s->ntracks, 0, (n - s->ntracks) * sizeof *nt);
        for (size_t i = s->ntracks; i < n; i++)
            paged_init(&nt[i].stack, &s->stack_file, sizeof(struct frame), s->stack_bytes);
        s->tracks = nt, s->ntracks = n;
    }
    return &s->tracks[t];
}

/* The instants waiting on t for an event to come ahead of them are final: their rows may leave. */
static void instants_final(struct stream_nest *s, struct track *t)
{
    for (int i = 0; i < t->waiting; i++)
        if (t->ahead_seq[i] >= s->head)
            s->q[t->ahead_seq[i] % s->cap].done = 1;
    t->ahead_n = t->waiting = 0;
}

/* The track's stack is empty: the pages past its bottom page are forgotten. */
static void stack_empty(struct track *t)
{
    t->top = 0;
    paged_truncate(&t->stack, t->stack.mask + 1);
}

/* From now on the sweep's values are written over the track's rows: its waiting rows may leave (its
 * instants waiting, and the rows of its stack's frames of this run still in the buffer: the rows of the
 * track not final, found in the buffer rather than down the stack, whose deep part is on disk). */
static void make_dirty(struct stream_nest *s, struct track *t)
{
    instants_final(s, t);
    if (t->open)
        for (uint64_t k = s->head; k < s->tail; k++) {
            struct held *h = &s->q[k % s->cap];
            if (h->ev.thread_id == (int64_t)(t - s->tracks))
                h->done = 1;
        }
    stack_empty(t);
    t->open = 0;
    t->dirty = 1;
    s->inexact = 1;
    frame_log_reader_free(t->earlier);
    t->earlier = NULL, t->next = NULL;
}

/* Row id while it still waits in the buffer (its id's place, as ids come one more each); NULL when it
 * has left. */
static struct held *waiting_row(struct stream_nest *s, int64_t id)
{
    if (s->head == s->tail)
        return NULL;
    const struct held *first = &s->q[s->head % s->cap];
    if (id < first->id || (uint64_t)(id - first->id) >= s->tail - s->head)
        return NULL;
    struct held *h = &s->q[(s->head + (uint64_t)(id - first->id)) % s->cap];
    return h->id == id ? h : NULL;
}

int stream_nest_carry(struct stream_nest *s, int64_t id, int64_t flow)
{
    struct held *h = waiting_row(s, id);
    if (!h || h->ev.flow != TDB_NULL)
        return 0;
    h->ev.flow = flow;
    return 1;
}

/* The frame on top of t's stack; NULL when it is empty, or when its page could not be read back (then the
 * track turns dirty: the sweep nests it, and its stack is empty). */
static struct frame *top_frame(struct stream_nest *s, struct track *t)
{
    if (!t->top)
        return NULL;
    struct frame *f = paged_at(&t->stack, t->top - 1);
    if (!f)
        make_dirty(s, t);
    return f;
}

/* A row's self time is less by less: in the reorder buffer while the row still waits there, else in
 * the database through the fix callback. */
static int fix_self(struct stream_nest *s, int64_t id, uint32_t stat, int64_t less)
{
    struct held *h = waiting_row(s, id);
    if (h) {
        h->ev.self_ns = (h->ev.self_ns == TDB_NULL ? h->ev.dur_ns : h->ev.self_ns) - less;
        return 0;
    }
    s->c.self_sum(s->c.ctx, stat, -less);
    return s->c.fix(s->c.ctx, id, less);
}

/* The frame on top of t ends: its row's self time is now known. A row still waiting takes it; a row
 * gone (it had to leave the full buffer, with its whole time as self time) is less by its children's
 * time; an earlier run's row is less by its children of this run, unless its children's sum goes past
 * what 64 bits hold (then the sweep's saturated sum decides: the track turns dirty). 0, or -1 when the
 * fix could not be queued. */
static int pop(struct stream_nest *s, struct track *t)
{
    const struct frame *top = top_frame(s, t);
    if (!top)
        return 0;
    const struct frame fr = *top, *f = &fr; /* (its page may go now) */
    t->top--;
    if ((t->top & t->stack.mask) == 0) /* a page emptied: the one above it goes (one kept, for the next push) */
        paged_truncate(&t->stack, t->top + t->stack.mask + 1);
    t->open -= f->ring != 0;
    if (f->ring && f->seq >= s->head) {
        struct held *h = &s->q[f->seq % s->cap];
        h->ev.self_ns = f->dur - f->child_sum;
        h->done = 1;
        return 0;
    }
    if (!f->ring && (f->child_sum == INT64_MAX || tdb_sat_add(f->child_sum, f->later) == INT64_MAX)) {
        make_dirty(s, t);
        return 0;
    }
    int64_t less = f->ring ? f->child_sum : f->later;
    return less ? fix_self(s, f->id, f->stat, less) : 0;
}

static int push(struct track *t, struct frame f)
{
    struct frame *top = paged_at(&t->stack, t->top);
    if (!top)
        return -1;
    *top = f, t->top++;
    t->open += f.ring != 0;
    return 0;
}

/* The sweep's rule for an event [start, end) on t's stack: what ended before it starts is done, what
 * ends inside it was not its parent (an overlap). The sweep counts the events popped so, each once; a
 * frame popped so in a run (among its own events, or with earlier runs' merged in) is popped so in the
 * sweep too (an event that could have popped it first, by its end, would start after this one), but
 * may be popped so again when a later run's events are merged round it (an earlier run counted a frame
 * popped by an event a later run's event comes before): so each is counted once, by its id. */
static int pop_before(struct stream_nest *s, struct track *t, int64_t start, int64_t end)
{
    const struct frame *f;
    while ((f = top_frame(s, t)) && f->end <= start)
        if (pop(s, t) != 0)
            return -1;
    while ((f = top_frame(s, t)) && f->end < end) {
        int64_t id = f->id;
        if (strmap_get(&s->overlapped, &id, sizeof id) < 0) {
            if (strmap_put(&s->overlapped, &id, sizeof id, 1) != 0)
                s->inexact = 1; /* out of memory: the sweep counts them */
            s->overlaps++;
        }
        if (pop(s, t) != 0)
            return -1;
    }
    return 0;
}

/* The next of the earlier runs' events, or none (on a read error the track turns dirty: what was not
 * seen could have changed). */
static void next_earlier(struct track *t, struct stream_nest *s)
{
    t->next = frame_log_next(t->earlier);
    if (!t->next) {
        int failed = frame_log_failed(t->earlier);
        frame_log_reader_free(t->earlier);
        t->earlier = NULL;
        if (failed)
            make_dirty(s, t);
    }
}

/* An earlier run's event r comes again, in the sweep's order among this run's: its frame goes on the
 * stack (this run's events inside it make its row's self time less). Its row was written with a
 * parent and depth; where the stack now says otherwise (it is inside one of this run's events), the
 * sweep writes the track. 0, or -1 when a fix could not be queued. */
static int merge_one(struct stream_nest *s, struct track *t, const struct frame_rec *next)
{
    /* a copy: the frames it ends may turn the track dirty, which frees the reader next points into */
    const struct frame_rec rec = *next, *r = &rec;
    t->last_merged = r->start;
    if (pop_before(s, t, r->start, r->end) != 0)
        return -1;
    if (t->dirty) /* the sweep writes the track: nothing more is merged */
        return 0;
    struct frame *p = top_frame(s, t);
    if (t->dirty) /* (its page could not be read back) */
        return 0;
    int depth = p ? deeper(p->depth) : 0;
    if ((p ? p->id : TDB_NULL) != r->parent || depth != r->depth) {
        make_dirty(s, t);
        return 0;
    }
    if (p)
        p->child_sum = tdb_sat_add(p->child_sum, r->end - r->start);
    if (r->end > r->start &&
        push(t, (struct frame){.id = r->id, .end = r->end, .dur = r->end - r->start, .stat = r->stat, .depth = depth}) != 0)
        make_dirty(s, t);
    else
        next_earlier(t, s);
    return 0;
}

/* The earlier runs' events that come before [start, end) in the sweep's order (start, longer first;
 * the earlier at a tie) are merged in. 0, or -1 when a fix could not be queued. */
static int merge_earlier(struct stream_nest *s, struct track *t, int64_t start, int64_t end)
{
    while (t->next && (t->next->start < start || (t->next->start == start && t->next->end >= end)))
        if (merge_one(s, t, t->next) != 0)
            return -1;
    return 0;
}

/* This run ends (the track went back in time, or the trace ended): the earlier runs' events are merged
 * in while one of this run's events is open (they could be inside it), then the stack ends. */
static int end_run(struct stream_nest *s, struct track *t)
{
    instants_final(s, t);
    while (t->next && t->open > 0)
        if (merge_one(s, t, t->next) != 0)
            return -1;
    while (t->top > 0)
        if (pop(s, t) != 0)
            return -1;
    frame_log_reader_free(t->earlier);
    t->earlier = NULL, t->next = NULL;
    return 0;
}

/* An event came earlier than the one before it on t: the nesting starts again from this event, with
 * the track's earlier runs read back from its log and merged in as time passes. PyTorch writes a
 * thread's operators, then its [memory] instants, then its launches, each run in time order: the later
 * runs' events find their operators as they come, and only the operators they are in change (their
 * self time, fixed in the database). Without a complete log (too many tracks or restarts, no
 * memory) the track turns dirty. */
static int restart(struct stream_nest *s, struct track *t)
{
    if (end_run(s, t) != 0)
        return -1;
    if (t->dirty)
        return 0;
    if (t->unlogged || !t->log_slot || t->merges == MERGES_PER_TRACK ||
        !(t->earlier = frame_log_read(s->log, (uint32_t)(t->log_slot - 1)))) {
        make_dirty(s, t);
        return 0;
    }
    t->merges++;
    t->last_merged = INT64_MIN;
    next_earlier(t, s);
    return 0;
}

/* Rows leave from the head while final; with force, the head leaves anyway. */
static int release(struct stream_nest *s, int force)
{
    while (s->head < s->tail) {
        struct held *h = &s->q[s->head % s->cap];
        if (h->waiting) { /* its launch may still come, unless the row waited long enough or room is needed */
            if (!force && s->head + WAIT_ROWS > s->tail)
                return 0;
            h->waiting = 0; /* linked at the end of the trace, as any GPU work before its launch */
            force = 0;
        }
        if (!h->done) { /* its frame is open: it leaves with its whole time as self time, made less when
                          * the frame ends (pop) */
            if (!force)
                return 0;
            h->done = 1;
            force = 0; /* one row: the caller asks again if it needs more room */
        }
        if (h->ev.args.p)
            h->ev.args.p = s->bytes + h->args_at % s->bytes_cap;
        s->c.self_sum(s->c.ctx, h->stat, h->ev.self_ns != TDB_NULL ? h->ev.self_ns : h->ev.dur_ns);
        int rc = s->c.emit(s->c.ctx, h->id, h->name_id, h->cat_id, &h->ev);
        s->head++;
        s->bytes_head = h->args_end;
        if (rc != 0)
            return -1;
    }
    return 0;
}

static size_t wait_slot(int64_t correlation)
{
    uint64_t h = (uint64_t)correlation * 0x9E3779B97F4A7C15u;
    return (size_t)(h >> 56) % WAIT_SLOTS;
}

int stream_nest_link(struct stream_nest *s, int64_t correlation, int64_t launch_id, int64_t launch_ns)
{
    size_t slot = wait_slot(correlation);
    uint64_t seq = s->waiting[slot];
    if (!seq || seq - 1 < s->head || seq - 1 >= s->tail)
        return 0;
    struct held *h = &s->q[(seq - 1) % s->cap];
    if (!h->waiting || h->ev.correlation != correlation)
        return 0;
    h->ev.launch_id = launch_id;
    h->ev.launch_ns = launch_ns;
    h->waiting = 0;
    s->waiting[slot] = 0;
    return 1;
}

/* Whether instants wait on t for an event to come ahead of them (at their start, every event since). */
static int instants_wait(const struct track *t)
{
    return t->ahead_n >= 1 && t->ahead_n <= AHEAD_MAX;
}

/* An event of some duration at the start of the instants waiting on t (so the sweep puts it ahead of
 * them: it is around them; and after any event that came ahead of them before, as no longer): their log
 * records are taken back (into taken, to go after its own) and their rows still wait in the buffer, so
 * it nests as it comes, their parent. How many instants, or 0 when it cannot (then it is a restart:
 * the end's checks find what changed). */
static int comes_ahead(struct stream_nest *s, struct track *t, const struct tdb_event *ev, struct frame_rec *taken)
{
    if (!instants_wait(t) || ev->start_ns != t->ahead_start || ev->dur_ns <= 0 || ev->dur_ns > t->ahead_cap ||
        (t->merges > 0 && t->last_merged >= ev->start_ns) || t->unlogged || !t->log_slot)
        return 0;
    for (int i = 0; i < t->ahead_n; i++)
        if (t->ahead_seq[i] < s->head)
            return 0;
    return frame_log_take_back(s->log, (uint32_t)(t->log_slot - 1), (size_t)t->ahead_n, taken) == 0 ? t->ahead_n : 0;
}

int stream_nest_add(struct stream_nest *s, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev,
                    int64_t launch_id, int64_t launch_ns, uint32_t stat, int64_t wait_correlation)
{
    struct frame_rec taken[AHEAD_MAX];
    int ahead = 0; /* instants it comes ahead of */
    struct track *t = track_of(s, ev->thread_id);
    if (!t || s->sweep_only)
        s->inexact = 1;
    if (t && s->sweep_only)
        t->dirty = 1;
    int given = ev->parent_id != TDB_NULL || ev->self_ns != TDB_NULL; /* the caller's own nesting */
    if (t && !t->dirty && given)
        make_dirty(s, t);
    else if (t && !t->dirty && t->seen && instants_wait(t) && ev->start_ns == t->ahead_start && ev->dur_ns > 0) {
        if (!(ahead = comes_ahead(s, t, ev, taken)) && restart(s, t) != 0) /* it must come ahead of them */
            return -1;
    } else if (t && !t->dirty && t->seen &&
               (ev->start_ns < t->prev_start || (ev->start_ns == t->prev_start && ev->dur_ns > t->prev_dur)) &&
               restart(s, t) != 0)
        return -1;
    /* room: a row slot and the args' bytes, contiguous in the byte ring */
    size_t n = ev->args.p ? ev->args.n : 0;
    if (n > s->bytes_cap / 2) { /* too big to wait: everything before it leaves, then it */
        if (t)
            make_dirty(s, t);
        while (s->head < s->tail)
            if (release(s, 1) != 0)
                return -1;
        struct tdb_event row = *ev; /* (no wait: it leaves at once) */
        row.launch_id = launch_id, row.launch_ns = launch_ns;
        s->inexact = 1;
        return s->c.emit(s->c.ctx, id, name_id, cat_id, &row);
    }
    for (;;) {
        uint64_t at = s->bytes_tail, off = at % s->bytes_cap;
        if (off + n > s->bytes_cap)
            at += s->bytes_cap - off; /* wrap: the text stays contiguous */
        if (s->tail - s->head < s->cap && at + n - s->bytes_head <= s->bytes_cap) {
            s->bytes_tail = at + n;
            break;
        }
        if (release(s, 1) != 0)
            return -1;
    }
    struct held *h = &s->q[s->tail % s->cap];
    h->id = id, h->name_id = name_id, h->cat_id = cat_id, h->stat = stat;
    h->ev = *ev;
    h->ev.launch_id = launch_id, h->ev.launch_ns = launch_ns;
    h->args_end = s->bytes_tail, h->args_at = s->bytes_tail - n;
    if (n)
        memcpy(s->bytes + h->args_at % s->bytes_cap, ev->args.p, n);
    h->done = 1;
    h->waiting = wait_correlation != TDB_NULL && wait_correlation == ev->correlation;
    uint64_t seq = s->tail++;
    if (h->waiting)
        s->waiting[wait_slot(wait_correlation)] = seq + 1;
    if (!t || t->dirty)
        return release(s, 0);
    /* the sweep's rule, as events come (nesting.c): what ended before this one starts is done, what
     * ends inside it was not its parent (an overlap), the top is its parent */
    int64_t start = ev->start_ns, dur = ev->dur_ns, end = start + dur;
    int waits = 0; /* an instant that waits for an event to come ahead of it */
    if (dur == 0 && instants_wait(t) && t->ahead_start == start) { /* one more at this start */
        if ((waits = t->ahead_n < AHEAD_MAX))
            t->ahead_seq[t->waiting++] = seq;
        t->ahead_n++;
    } else {
        if (!ahead)
            instants_final(s, t);
        if (dur == 0) { /* the first at this start: it waits when the track's events so far started before */
            t->ahead_start = start;
            t->ahead_n = (waits = !t->seen || t->prev_start < start) ? 1 : AHEAD_MAX + 1;
            t->waiting = waits, t->ahead_seq[0] = seq, t->ahead_cap = INT64_MAX;
        }
    }
    t->seen = 1, t->prev_start = start, t->prev_dur = dur;
    if ((t->next && merge_earlier(s, t, start, end) != 0) || pop_before(s, t, start, end) != 0)
        return -1;
    if (t->dirty)
        return release(s, 0);
    h->ev.parent_id = TDB_NULL, h->ev.depth = 0;
    struct frame *f = top_frame(s, t);
    if (t->dirty) /* (its page could not be read back) */
        return release(s, 0);
    if (f) {
        h->ev.parent_id = f->id;
        h->ev.depth = deeper(f->depth);
        s->same_stat += s->c.same_name(s->c.ctx, f->stat, stat);
        f->child_sum = tdb_sat_add(f->child_sum, dur);
        if (!f->ring)
            f->later = tdb_sat_add(f->later, dur);
    }
    /* every event goes to its track's log, for the runs after this one (GPU streams too: in 4 of 17
     * real traces some go back in time; the log costs the parser thread 0.04% on a GPU-heavy trace) */
    if (!t->log_slot && s->log && s->log_slots < FRAME_LOG_TRACKS)
        t->log_slot = ++s->log_slots;
    if (!t->unlogged && (!t->log_slot ||
                         frame_log_append(s->log, (uint32_t)(t->log_slot - 1),
                                          &(struct frame_rec){start, end, id, h->ev.parent_id, h->ev.depth, stat}) != 0))
        t->unlogged = 1;
    if (dur == 0) {
        h->ev.self_ns = 0; /* an instant: a leaf */
        h->done = !waits;
        return release(s, 0);
    }
    if (push(t, (struct frame){.seq = seq, .id = id, .end = end, .dur = dur, .stat = stat, .depth = h->ev.depth, .ring = 1}) != 0) {
        make_dirty(s, t);
        return release(s, 0);
    }
    h->done = 0, h->ev.self_ns = TDB_NULL; /* until it ends */
    if (ahead) { /* the instants it came ahead of are inside it: their rows and records say so */
        int depth = deeper((int)h->ev.depth);
        for (int i = 0; i < ahead; i++) {
            struct held *in = &s->q[t->ahead_seq[i] % s->cap];
            in->ev.parent_id = id, in->ev.depth = depth;
            s->same_stat += s->c.same_name(s->c.ctx, in->stat, stat);
            taken[i].parent = id, taken[i].depth = depth; /* (they go on waiting: another may come ahead) */
            if (!t->unlogged && frame_log_append(s->log, (uint32_t)(t->log_slot - 1), &taken[i]) != 0)
                t->unlogged = 1;
        }
        t->ahead_cap = dur;
    }
    return release(s, 0);
}

int stream_nest_flush(struct stream_nest *s)
{
    for (size_t i = 0; i < s->ntracks; i++)
        if (end_run(s, &s->tracks[i]) != 0)
            return -1;
    for (uint64_t k = s->head; k < s->tail; k++) /* no launch comes any more */
        s->q[k % s->cap].waiting = 0;
    memset(s->waiting, 0, sizeof s->waiting);
    return release(s, 0);
}

int stream_nest_dirty(const struct stream_nest *s, uint32_t track)
{
    return track >= s->ntracks || s->tracks[track].dirty;
}

int stream_nest_exact(const struct stream_nest *s)
{
    return !s->inexact;
}

int64_t stream_nest_same_stat(const struct stream_nest *s)
{
    return s->same_stat;
}

int64_t stream_nest_overlaps(const struct stream_nest *s)
{
    return s->overlaps;
}

uint64_t stream_nest_stack_pages(const struct stream_nest *s)
{
    return s->stack_file.writes;
}

void stream_nest_reset(struct stream_nest *s)
{
    for (size_t i = 0; i < s->ntracks; i++) {
        struct track *t = &s->tracks[i];
        stack_empty(t);
        t->open = 0, t->seen = t->dirty = t->unlogged = 0, t->log_slot = 0, t->merges = 0;
        t->ahead_n = t->waiting = 0;
        frame_log_reader_free(t->earlier);
        t->earlier = NULL, t->next = NULL;
    }
    if (s->log)
        frame_log_reset(s->log);
    s->log_slots = 0;
    s->inexact = 0, s->overlaps = 0, s->same_stat = 0;
    strmap_free(&s->overlapped);
    strmap_init(&s->overlapped);
    memset(s->waiting, 0, sizeof s->waiting);
}

void stream_nest_free(struct stream_nest *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ntracks; i++) {
        paged_free(&s->tracks[i].stack);
        frame_log_reader_free(s->tracks[i].earlier);
    }
    free(s->tracks);
    strmap_free(&s->overlapped);
    frame_log_free(s->log);
    paged_file_free(&s->stack_file);
    free(s->q);
    free(s->bytes);
    free(s);
}
