-- launch_rows: every launch `tracedb launches` counts, unsorted, with its track (whose rank the C pass,
-- analyzer/report/launch_sweep.c, looks up once).
WITH l AS ({sql:launch_pairs})
SELECT thread_id, name_id, cpu_ns, gpu_ns, delay_ns FROM l;
