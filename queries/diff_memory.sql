-- diff_memory: memory high-water marks of both runs side by side, per trace and device: each run's
-- `tracedb memory` peaks (memory_sweep.c and queries/memory.sql on each database, in temp table
-- diff_memory_peaks, filled by diff_open in diff_gate.c).
SELECT rank, run, device, peak_allocated_bytes, peak_reserved_bytes
FROM temp.diff_memory_peaks
ORDER BY device, rank, run;
