-- launches_each: every launch that `launches` counts: the launch call's start (ns after the trace start),
-- its duration, the GPU work's, and the launch delay (clipped at 0), in launch order.
WITH l AS ({sql:launch_pairs})
SELECT rank, (SELECT value FROM string WHERE id = l.name_id) AS name, launch_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS launch_ns,
       cpu_ns, gpu_ns, delay_ns
FROM l
ORDER BY rank, launch_ns, name
LIMIT :limit;
