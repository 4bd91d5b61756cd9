/* diff_gate.h: comparing two runs (see diff_gate.c). */
#ifndef TDB_DIFF_GATE_H
#define TDB_DIFF_GATE_H
#include "report.h"
#include <sqlite3.h>
#include <stddef.h>

/* Opens base read-only with new_path attached as "new" (both checked as tracedb databases), with each
 * run's `tracedb memory` peaks (run 'base' or 'new', rank, device, peak_allocated_bytes,
 * peak_reserved_bytes) in temp table diff_memory_peaks and its `tracedb ops` rows (run, kind, name,
 * shapes, calls, total: self CPU time of CPU-side rows, device time of GPU work; per input shapes with
 * by_shape, as `ops --group-by shape`) in temp table diff_ops, each from that command's own pass over the
 * run's database. NULL on error (printed). */
sqlite3 *diff_open(const char *base, const char *new_path, int by_shape, struct report_io *io);

/* When the runs did their GPU work on different GPUs (models, count or memory: queries/diff_gpus.sql), 1
 * with the sentence that says so, naming both, in line; 0 when they are the same (or neither used a GPU);
 * -1 on error (printed). */
int diff_gpus_differ(sqlite3 *db, char *line, size_t n, struct report_io *io);

/* The gate's options as typed: --fail-above PCT (fail_text; NULL: no gate, *threshold 0), --alpha P in (0, 1),
 * --metric one of the five. 0, or -1 with what is wrong said on io->err. */
int diff_gate_options(const char *fail_text, const char *alpha_text, const char *metric, double *threshold, double *alpha,
                      struct report_io *io);

/* The gate on metric (step_median, step_p99, kernel_total, device_busy, memory_peak): 0 pass, 3 regression
 * (or a change the samples cannot decide, when inconclusive_fails), 1 error. The verdict, one line
 * ("FAIL: step_median 76.834ms -> 114.689ms (+49.27%, limit +5.00%); Mann-Whitney U p = ..."), in line. */
int diff_gate(sqlite3 *db, const char *metric, double threshold, double alpha, int inconclusive_fails, char *line,
              size_t n, struct report_io *io);

#endif
