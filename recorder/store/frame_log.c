/* frame_log.c: each track's frames, run by run, in 16 KiB blocks, full blocks in one shared temporary
 * file; readers merge a track's runs (see frame_log.h). Nothing is allocated per frame. */
#include "frame_log.h"
#include "spill_sort.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PER_BLOCK (16384 / sizeof(struct frame_rec)) /* 409 frames a write */

struct track_log {
    struct frame_rec *buf; /* the block being filled: n frames */
    size_t n;
    uint64_t *blocks;      /* file offsets of the full blocks, in order */
    size_t nblocks, cap;
    uint64_t run_end[FRAME_LOG_RUNS]; /* where each ended run ends (frames before it) */
    int runs;              /* runs ended */
    int broken;            /* a frame could not be kept: the log is incomplete */
};

struct frame_log {
    char *dir;
    int fd;                /* -1 until the first full block */
    uint64_t file_end;
    struct track_log *tracks; /* FRAME_LOG_TRACKS, made when first needed */
    size_t reader_bytes;   /* what the open readers hold: READER_BYTES at most */
};

/* The open readers' memory, all tracks together (a reader holds a block a run and the tail). */
#define READER_BYTES ((size_t)8 << 20)

/* One run's place in a reader: its next frame and the block that holds it. */
struct run_cursor {
    uint64_t at, end;      /* frame numbers in the track's log */
    size_t block;          /* the block in buf; SIZE_MAX none */
    struct frame_rec buf[PER_BLOCK];
};

struct frame_log_reader {
    struct frame_log *g;
    const struct track_log *t;
    size_t nblocks;        /* full blocks when the reader opened: later frames are in tail */
    struct frame_rec tail[PER_BLOCK]; /* the partial block as it was when the reader opened */
    struct frame_rec out;  /* the frame frame_log_next gave */
    int failed;
    int nruns;
    size_t bytes;
    struct run_cursor runs[];
};

struct frame_log *frame_log_new(const char *dir)
{
    struct frame_log *g = calloc(1, sizeof *g);
    if (!g || !(g->dir = strdup(dir ? dir : "."))) {
        free(g);
        return NULL;
    }
    g->fd = -1;
    return g;
}

static int write_block(struct frame_log *g, struct track_log *t)
{
    if (g->fd < 0 && (g->fd = spill_temp_file(g->dir, "frames")) < 0)
        return -1;
    if (t->nblocks == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        uint64_t *nb = realloc(t->blocks, ncap * sizeof *nb);
        if (!nb)
            return -1;
        t->blocks = nb, t->cap = ncap;
    }
    size_t bytes = PER_BLOCK * sizeof *t->buf;
    if (pwrite(g->fd, t->buf, bytes, (off_t)g->file_end) != (ssize_t)bytes)
        return -1;
    t->blocks[t->nblocks++] = g->file_end;
    g->file_end += bytes;
    t->n = 0;
    return 0;
}

int frame_log_append(struct frame_log *g, uint32_t track, const struct frame_rec *r)
{
    if (track >= FRAME_LOG_TRACKS)
        return -1;
    if (!g->tracks && !(g->tracks = calloc(FRAME_LOG_TRACKS, sizeof *g->tracks)))
        return -1;
    struct track_log *t = &g->tracks[track];
    if (t->broken)
        return -1;
    if ((!t->buf && !(t->buf = malloc(PER_BLOCK * sizeof *t->buf))) || (t->n == PER_BLOCK && write_block(g, t) != 0)) {
        t->broken = 1;
        return -1;
    }
    t->buf[t->n++] = *r;
    return 0;
}

int frame_log_take_back(struct frame_log *g, uint32_t track, size_t n, struct frame_rec *out)
{
    if (track >= FRAME_LOG_TRACKS || !g->tracks)
        return -1;
    struct track_log *t = &g->tracks[track];
    uint64_t run_start = t->runs ? t->run_end[t->runs - 1] : 0;
    if (t->broken || n > t->n || t->nblocks * PER_BLOCK + t->n - n < run_start)
        return -1;
    t->n -= n;
    memcpy(out, t->buf + t->n, n * sizeof *out);
    return 0;
}

int frame_log_complete(const struct frame_log *g, uint32_t track)
{
    if (track >= FRAME_LOG_TRACKS || !g->tracks)
        return 0;
    const struct track_log *t = &g->tracks[track];
    return !t->broken && (t->n || t->nblocks);
}

struct frame_log_reader *frame_log_read(struct frame_log *g, uint32_t track)
{
    if (!frame_log_complete(g, track))
        return NULL;
    struct track_log *t = &g->tracks[track];
    size_t bytes = sizeof(struct frame_log_reader) + (size_t)(t->runs + 1) * sizeof(struct run_cursor);
    if (t->runs == FRAME_LOG_RUNS || g->reader_bytes + bytes > READER_BYTES)
        return NULL;
    struct frame_log_reader *r = malloc(bytes);
    if (!r)
        return NULL;
    t->run_end[t->runs++] = t->nblocks * PER_BLOCK + t->n;
    g->reader_bytes += bytes;
    r->g = g, r->t = t, r->nblocks = t->nblocks, r->failed = 0, r->nruns = t->runs, r->bytes = bytes;
    memcpy(r->tail, t->buf, t->n * sizeof *t->buf);
    for (int i = 0; i < t->runs; i++)
        r->runs[i] = (struct run_cursor){i ? t->run_end[i - 1] : 0, t->run_end[i], SIZE_MAX, {{0}}};
    return r;
}

/* Frame number i of the log, through c's block; NULL on a read error. */
static const struct frame_rec *frame_at(struct frame_log_reader *r, struct run_cursor *c, uint64_t i)
{
    size_t block = (size_t)(i / PER_BLOCK);
    if (block >= r->nblocks)
        return &r->tail[i % PER_BLOCK];
    if (c->block != block) {
        size_t bytes = PER_BLOCK * sizeof *c->buf;
        if (pread(r->g->fd, c->buf, bytes, (off_t)r->t->blocks[block]) != (ssize_t)bytes) {
            r->failed = 1;
            return NULL;
        }
        c->block = block;
    }
    return &c->buf[i % PER_BLOCK];
}

/* Whether a comes before b in the sweep's order (runs are appended in order: the earlier at a tie). */
static int before(const struct frame_rec *a, const struct frame_rec *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end > b->end;
    return a->id < b->id;
}

const struct frame_rec *frame_log_next(struct frame_log_reader *r)
{
    const struct frame_rec *best = NULL;
    struct run_cursor *from = NULL;
    for (int i = 0; i < r->nruns && !r->failed; i++) {
        struct run_cursor *c = &r->runs[i];
        if (c->at == c->end)
            continue;
        const struct frame_rec *f = frame_at(r, c, c->at);
        if (f && (!best || before(f, best)))
            best = f, from = c;
    }
    if (r->failed || !best)
        return NULL;
    r->out = *best;
    from->at++;
    return &r->out;
}

int frame_log_failed(const struct frame_log_reader *r)
{
    return r->failed;
}

void frame_log_reader_free(struct frame_log_reader *r)
{
    if (r)
        r->g->reader_bytes -= r->bytes;
    free(r);
}

void frame_log_reset(struct frame_log *g)
{
    for (size_t i = 0; g->tracks && i < FRAME_LOG_TRACKS; i++) {
        struct track_log *t = &g->tracks[i];
        t->n = t->nblocks = 0;
        t->runs = t->broken = 0;
    }
    g->file_end = 0;
}

void frame_log_free(struct frame_log *g)
{
    if (!g)
        return;
    for (size_t i = 0; g->tracks && i < FRAME_LOG_TRACKS; i++)
        free(g->tracks[i].buf), free(g->tracks[i].blocks);
    free(g->tracks);
    if (g->fd >= 0)
        close(g->fd);
    free(g->dir);
    free(g);
}
