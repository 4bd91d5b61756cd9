-- launch_rows: every launch `tracedb launches` counts, unsorted, for its C pass (analyzer/report/launch_sweep.c).
WITH l AS ({sql:launch_pairs})
SELECT rank, name_id, cpu_ns, gpu_ns, delay_ns FROM l;
