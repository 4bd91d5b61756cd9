-- device: per device, for the whole trace and for each step (or range instance named :steps):
--   span    the window: the whole trace's from the device's first GPU event start to its last end
--           (HTA's temporal breakdown), a step's its CPU range;
--   busy    the time any GPU work runs (the union of intervals: overlaps across streams count once);
--   run     the time computation kernels run;
--   io_wait busy minus run: memcpy/memset and communication not overlapped by computation;
--   idle    span minus busy.  Total = run + io_wait (Furiosa's NPU Total = Run + IoWait).
-- Shares are of the span. GPU work is clipped to the window. :filtered says a window applies (else
-- the whole-trace rows come from device_stats, which the import computed the same way).
WITH RECURSIVE
devices AS (SELECT DISTINCT trace_id, device FROM gpu),
windows AS (
  SELECT trace_id, NULL AS step, device, min(s) AS ws, max(e) AS we FROM gpu WHERE :filtered GROUP BY trace_id, device
  UNION ALL
  SELECT d.trace_id, n.value, d.device, r.start_ns, r.start_ns + r.dur_ns
  FROM scope_event r JOIN string n ON n.id = r.name_id
  JOIN thread t ON t.id = r.thread_id JOIN process p ON p.id = t.process_id
  JOIN devices d ON d.trace_id = p.trace_id
  WHERE r.kind = {kind:range} AND r.name_id IN (SELECT id FROM string WHERE value = :steps OR value GLOB :steps)
),
agg AS MATERIALIZED (
  SELECT w.trace_id, w.step, w.device, w.ws, w.we - w.ws AS span_ns,
         (SELECT interval_union(max(g.s, w.ws), min(g.e, w.we)) FROM gpu g
          WHERE g.trace_id = w.trace_id AND g.device = w.device
            AND g.s >= w.ws - (SELECT d FROM gpu_maxdur) AND g.s < w.we AND g.e > w.ws) AS busy_ns,
         (SELECT interval_union(max(g.s, w.ws), min(g.e, w.we)) FROM gpu g
          WHERE g.trace_id = w.trace_id AND g.device = w.device AND g.class = 'computation'
            AND g.s >= w.ws - (SELECT d FROM gpu_maxdur) AND g.s < w.we AND g.e > w.ws) AS run_ns
  FROM windows w
  UNION ALL /* without a window the whole-trace rows were computed at import (device_stats) */
  SELECT trace_id, NULL, device, first_ns, last_ns - first_ns, busy_ns, run_ns FROM device_stats WHERE NOT :filtered
)
SELECT (SELECT rank FROM trace WHERE id = agg.trace_id) AS rank, step, device, span_ns, busy_ns, run_ns, busy_ns - run_ns AS io_wait_ns, span_ns - busy_ns AS idle_ns,
       round(100.0 * busy_ns / nullif(span_ns, 0), 2) AS busy_pct,
       round(100.0 * run_ns / nullif(span_ns, 0), 2) AS run_pct,
       round(100.0 * (busy_ns - run_ns) / nullif(span_ns, 0), 2) AS io_wait_pct,
       round(100.0 * (span_ns - busy_ns) / nullif(span_ns, 0), 2) AS idle_pct
FROM agg
ORDER BY trace_id, step IS NOT NULL, ws, device
LIMIT :limit;
