/* frame_log.c: each track's first-run frames in 16 KiB blocks, full blocks in one shared temporary file
 * (see frame_log.h). Nothing is allocated per frame. */
#include "frame_log.h"
#include "spill_sort.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PER_BLOCK (16384 / sizeof(struct frame_rec)) /* 512 frames a write */

struct track_log {
    struct frame_rec *buf; /* the block being filled: n frames */
    size_t n;
    uint64_t *blocks;      /* file offsets of the full blocks, in order */
    size_t nblocks, cap;
    int broken;            /* a frame could not be kept: the log is incomplete */
};

struct frame_log {
    char *dir;
    int fd;                /* -1 until the first full block */
    uint64_t file_end;
    struct track_log *tracks; /* FRAME_LOG_TRACKS, made when first needed */
};

struct frame_log_reader {
    struct frame_log *g;
    const struct track_log *t;
    size_t block;          /* the next block to read; t->nblocks: then the tail */
    struct frame_rec buf[PER_BLOCK];
    size_t n, at;          /* frames in buf, the next one */
    struct frame_rec tail[PER_BLOCK]; /* the partial block as it was when the reader opened */
    size_t tail_n;
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
    struct frame_log_reader *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    const struct track_log *t = &g->tracks[track];
    r->g = g, r->t = t, r->block = 0, r->n = r->at = 0;
    r->tail_n = t->n;
    memcpy(r->tail, t->buf, t->n * sizeof *t->buf);
    r->block = 0;
    r->n = 0;
    return r;
}

const struct frame_rec *frame_log_next(struct frame_log_reader *r)
{
    if (r->at < r->n)
        return &r->buf[r->at++];
    const struct track_log *t = r->t;
    if (r->block < t->nblocks) {
        size_t bytes = PER_BLOCK * sizeof *r->buf;
        if (pread(r->g->fd, r->buf, bytes, (off_t)t->blocks[r->block]) != (ssize_t)bytes)
            return NULL;
        r->block++;
        r->n = PER_BLOCK, r->at = 0;
    } else if (r->block == t->nblocks && r->tail_n) {
        memcpy(r->buf, r->tail, r->tail_n * sizeof *r->buf);
        r->block++;
        r->n = r->tail_n, r->at = 0;
    } else {
        return NULL;
    }
    return &r->buf[r->at++];
}

void frame_log_reader_free(struct frame_log_reader *r)
{
    free(r);
}

void frame_log_reset(struct frame_log *g)
{
    for (size_t i = 0; g->tracks && i < FRAME_LOG_TRACKS; i++) {
        struct track_log *t = &g->tracks[i];
        t->n = t->nblocks = 0;
        t->broken = 0;
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
