-- memory: high-water marks per device (and the host) from [memory] events:
--   peak_allocated_bytes  the highest "Total Allocated" (or, when the trace has no totals, the highest
--                         running sum of allocations minus frees), and when (ns after the trace start);
--   peak_reserved_bytes   the highest "Total Reserved" (the caching allocator's footprint), when given;
--   fragmentation_pct     (reserved - allocated) / reserved at their peaks: RAF's max used vs max
--                         allocated gap, a sign of fragmentation;
--   peak_op               the operator running at the peak (the event holding the [memory] event);
--   leaked_bytes          allocations never freed by the end (no later free of the same address); where
--                         allocations carry no address, allocated minus freed (NULL when below zero);
--   allocs, frees, allocated_bytes, freed_bytes.
-- The sums come from one C pass over the events in time order (analyzer/report/memory_sweep.c, temp
-- table memory_agg); the columns are queries/parts/memory_peaks.sql, which summary's memory section
-- (summary_memory.sql) reads too: one definition of a peak.
{sql:memory_peaks}
LIMIT :limit;
