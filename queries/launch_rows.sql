-- launch_rows: every launch `tracedb launches` counts, unsorted, with its track (whose rank the C pass,
-- analyzer/report/launch_sweep.c, looks up once). Ids (the GPU work's) :lo to :hi: the pass reads two
-- halves at once, each on its own connection. id: the GPU work's, said when a refused value is met;
-- device: the GPU work's (summary's worst launch delay per rank and device).
WITH l AS ({sql:launch_pairs})
SELECT thread_id, name_id, cpu_ns, gpu_ns, delay_ns, id, device FROM l WHERE id >= :lo AND id <= :hi;
