/* stage_format.h: the layout of a recording's staging file ("run.db-stage"), written while the program
 * runs (recording_writer.c, cupti_inject.c) and turned into the database by stage_convert.c, at close or
 * by `tracedb finish` after a crash. Native byte order and alignment: a staging file is read back on
 * the machine that wrote it, and removed once the database is built.
 *
 *   file   = header chunk*
 *   header = "TDBSTG01" (8 bytes), then int64 pid of the recording process
 *   chunk  = struct stage_chunk, then `bytes` of payload (a multiple of 8):
 *     STAGE_PROCESS  the process: its name (argv[0] without its directory)
 *     STAGE_THREAD   a thread registered: struct stage_thread, then its name
 *     STAGE_RECORDS  a run of one thread's ring records (struct rec below), copied as they are
 *     STAGE_EVENTS   complete events from CUPTI, each a struct stage_event then its strings
 *     STAGE_CLOSE    the recording closed: struct stage_close
 *     STAGE_CLOCK    a (time-stamp counter, CLOCK_REALTIME ns) pair read together: when a file has them,
 *                    the records' ts are counter ticks, mapped to ns through the latest pair before
 *                    them at the rate between it and the first (else the records' ts are ns)
 * A chunk is written whole or not at all (a crash leaves at most a torn last chunk, which is ignored). */
#ifndef TDB_STAGE_FORMAT_H
#define TDB_STAGE_FORMAT_H
#include <stdint.h>

#define STAGE_MAGIC "TDBSTG01"
#define STAGE_HEADER_BYTES 16
#define STAGE_SUFFIX "-stage"

enum stage_chunk_type { STAGE_PROCESS = 1, STAGE_THREAD, STAGE_RECORDS, STAGE_EVENTS, STAGE_CLOSE, STAGE_CLOCK };

struct stage_chunk {
    uint32_t type;   /* enum stage_chunk_type */
    uint32_t bytes;  /* payload bytes that follow */
    int64_t thread;  /* the thread's number in this recording (STAGE_THREAD, STAGE_RECORDS), else 0 */
};

struct stage_thread {
    int64_t os_tid;
    uint32_t name_len, unused;
};

struct stage_clock {
    int64_t tsc, ns;
};

struct stage_close {
    int64_t end_ns;  /* after every event of the recording: where ranges still open end */
    int64_t dropped; /* records the program could not stage (its ring was full) */
};

/* ---- ring records (STAGE_RECORDS): a 16-byte head, an optional 24-byte extension, then the name, the
 * category and the args, padded to 8 bytes. Records never wrap the ring; R_PAD fills its end. */
enum rec_type { R_BEGIN = 1, R_END, R_INSTANT, R_COUNTER, R_MEMORY, R_START, R_STOP, R_PAD };
#define REC_EXT 1u /* flags: a struct rec_ext follows the head */

struct rec {
    uint8_t type;      /* enum rec_type */
    uint8_t kind;      /* the event kind of a range */
    uint8_t flags;     /* REC_EXT */
    uint8_t cat_len;   /* a category (NVTX domain) follows the name */
    uint16_t name_len;
    uint16_t args_len; /* a JSON object of args follows the category */
    int64_t ts;
};

/* R_PAD: the padding's whole length, from the start of the record, at byte 4 (a pad may be 8 bytes). */
#define REC_PAD_LEN(x) (*(const uint32_t *)((const unsigned char *)(x) + 4))

struct rec_ext {
    int64_t a; /* R_START/R_STOP: range id; R_MEMORY: address; R_BEGIN/R_END: NVTX domain (0: none) */
    int64_t b; /* R_MEMORY: bytes (negative: a free) */
    double v;  /* R_COUNTER: value; R_MEMORY: device (-1: host) */
};

static inline uint32_t rec_size(const struct rec *x)
{
    return (uint32_t)((sizeof *x + (x->flags & REC_EXT ? sizeof(struct rec_ext) : 0) + x->name_len + x->cat_len +
                       x->args_len + 7) & ~(uint32_t)7);
}

/* ---- CUPTI's events (STAGE_EVENTS), as cupti_translate.c makes them; the strings follow in order
 * name, cat, args (a length of UINT32_MAX: absent), then padding to 8. */
struct stage_event {
    int64_t pid, tid; /* the track: a process and thread, or a device and stream */
    int64_t start_ns, dur_ns, correlation, external_id, device, stream, bytes;
    int64_t grid[3], block[3], registers, shared_mem;
    int64_t addr, total_allocated, total_reserved, device_type;
    double blocks_per_sm, warps_per_sm, occupancy_pct;
    int32_t kind, has_launch;
    uint32_t name_len, cat_len, args_len, unused;
};

#endif
