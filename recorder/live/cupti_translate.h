/* cupti_translate.h: CUPTI activity records into rows (see cupti_translate.c). */
#ifndef TDB_CUPTI_TRANSLATE_H
#define TDB_CUPTI_TRANSLATE_H
#include "ingest.h"

#define CUPTI_TRANSLATE_DEVICES 64
#define CUPTI_TRANSLATE_MARKERS 256

struct cupti_marker { /* an NVTX range whose START came and END has not */
    int used;
    uint32_t id;
    int64_t start, pid, tid;
    char name[256], domain[64];
};

struct cupti_translate {
    struct tdb_ingest *ing;                        /* where events go, unless emit is set */
    /* or each event goes here, on the track (pid, tid) (a process and thread, or a device and stream) */
    int (*emit)(void *arg, int64_t pid, int64_t tid, const struct tdb_event *ev);
    void *emit_arg;
    int64_t pid;                                   /* this process, for records that name none */
    const char *(*api_name)(void *ctx, int driver, uint32_t cbid); /* cuptiGetCallbackName, or a test's */
    void *api_ctx;
    int64_t allocated[CUPTI_TRANSLATE_DEVICES];    /* running allocated bytes per device */
    struct cupti_marker open[CUPTI_TRANSLATE_MARKERS];
    int64_t unknown, incomplete;                   /* records of other kinds; records CUPTI left empty */
};

/* Translates one activity record (any CUpti_Activity* that CUPTI hands over). -1 on a database error. */
int cupti_translate_record(struct cupti_translate *t, const void *record);

#endif
