/* row_writer.h: rows into SQLite in batches, on a background thread or inline (see row_writer.c). */
#ifndef TDB_ROW_WRITER_H
#define TDB_ROW_WRITER_H
#include "event_pack.h"
#include "ingest.h"
#include <sqlite3.h>

struct row_writer;

/* What an M event sets (process_name, process_labels, process_sort_index, thread_name, thread_sort_index). */
enum row_meta_field { META_PROCESS_NAME, META_PROCESS_LABELS, META_PROCESS_SORT, META_THREAD_NAME, META_THREAD_SORT,
                      META_FIELDS };

/* Prepares the insert statements on db and starts the writer thread; with inline_writes, no thread:
 * the producer writes each full batch itself (a live recording, whose producer is already a
 * background thread, or an in-memory database). small: 64 KiB batches, not 4 MiB. NULL on failure. */
struct row_writer *row_writer_start(sqlite3 *db, const char *path, FILE *err, int inline_writes, int small);
/* Waits until every queued row is written; the caller may then use db until it queues again.
 * -1 when any write failed (printed). */
int row_writer_sync(struct row_writer *w);
/* Syncs, stops the thread, frees. Returns row_writer_sync's result. */
int row_writer_stop(struct row_writer *w);

/* Packs the event rows written from here on into table event_pack (event_pack.h), which the caller
 * made. 0, or -1 (printed). */
int row_writer_pack_start(struct row_writer *w);
/* Syncs and writes the last block: the rows packed since row_writer_pack_start, or -1 when none were
 * (not started, or memory ran out for a block: then the pack is not whole) or a write failed (printed;
 * row_writer_sync fails from then on). The self times it made less in rows already packed are in
 * event_pack_less. */
int64_t row_writer_pack_end(struct row_writer *w);

/* Queue rows; each copies what it needs. -1 when a write already failed or memory ran out. */
int row_writer_event(struct row_writer *w, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev);
/* Event id's self time, written already or waiting, is less by less. */
int row_writer_self_fix(struct row_writer *w, int64_t id, int64_t less);
int row_writer_string(struct row_writer *w, int64_t id, struct tdb_str s);
int row_writer_process(struct row_writer *w, int64_t id, int64_t trace_id, int pid_is_text, struct tdb_str pid);
int row_writer_thread(struct row_writer *w, int64_t id, int64_t process_id, int tid_is_text, struct tdb_str tid);
int row_writer_counter(struct row_writer *w, int64_t thread_id, int64_t name_id, int64_t ts_ns, double value);
int row_writer_meta(struct row_writer *w, int64_t thread_id, enum row_meta_field field, struct tdb_str text, int64_t number);
int row_writer_flow(struct row_writer *w, int64_t thread_id, int64_t flow_id, int64_t cat_id, char phase, int64_t ts_ns,
                    int bind_enclosing);

#endif
