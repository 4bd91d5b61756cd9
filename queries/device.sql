-- device: per device, for the whole trace and for each step (or range instance named --steps):
--   span    the window: the whole trace's from the device's first GPU event start to its last end
--           (HTA's temporal breakdown), a step's its CPU range;
--   busy    the time any GPU work runs (the union of intervals: overlaps across streams count once);
--   run     the time computation kernels run;
--   io_wait busy minus run: memcpy/memset and communication not overlapped by computation;
--   idle    span minus busy.  Total = run + io_wait (Furiosa's NPU Total = Run + IoWait).
-- Shares are of the span, to 0.01% (with :hta_rounding as HTA's temporal breakdown rounds them: numpy's
-- round of 100 * (time / span)). GPU work is clipped to the window. The sums come from one C pass
-- (analyzer/report/device_sweep.c, temp table device_agg: each device's work merged once, each window
-- measured against it, the whole trace (or window: step NULL) and each step alike).
WITH agg AS (SELECT trace_id, step, device, ws, span_ns, busy_ns, run_ns FROM temp.device_agg)
SELECT (SELECT rank FROM trace WHERE id = agg.trace_id) AS rank, step, device, span_ns, busy_ns, run_ns, busy_ns - run_ns AS io_wait_ns, span_ns - busy_ns AS idle_ns,
       CASE WHEN :hta_rounding THEN hta_share(busy_ns, span_ns, 2) ELSE round(100.0 * busy_ns / nullif(span_ns, 0), 2) END AS busy_pct,
       CASE WHEN :hta_rounding THEN hta_share(run_ns, span_ns, 2) ELSE round(100.0 * run_ns / nullif(span_ns, 0), 2) END AS run_pct,
       CASE WHEN :hta_rounding THEN hta_share(busy_ns - run_ns, span_ns, 2) ELSE round(100.0 * (busy_ns - run_ns) / nullif(span_ns, 0), 2) END
         AS io_wait_pct,
       CASE WHEN :hta_rounding THEN hta_share(span_ns - busy_ns, span_ns, 2) ELSE round(100.0 * (span_ns - busy_ns) / nullif(span_ns, 0), 2) END
         AS idle_pct
FROM agg
ORDER BY trace_id, step IS NOT NULL, ws, device
LIMIT :limit;
