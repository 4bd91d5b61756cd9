-- summary_memory: per device, `tracedb memory`'s high-water marks (queries/parts/memory_peaks.sql over
-- its C pass, analyzer/report/memory_sweep.c): the highest allocated bytes ("Total Allocated", or where
-- the trace gives no totals the running sum of allocations minus frees), the highest reserved, the gap
-- between them at their peaks (fragmentation) and the allocations and frees counted. The full picture,
-- with when, the operator at the peak and leaks: `tracedb memory`.
SELECT rank, device, peak_allocated_bytes, peak_reserved_bytes, fragmentation_pct, allocs, frees
FROM ({sql:memory_peaks});
