-- overlap: per rank and device, the GPU time of communication kernels (collectives), of computation
-- kernels, and of both at once, as HTA's get_comm_comp_overlap computes it: each kind's intervals
-- merged (touching ones too), overlap = the time both kinds run; overlap_pct = overlap / communication
-- time (NULL when the rank has no communication). Kinds by kernel_type() (HTA's patterns; memory and
-- other GPU work count in neither). The rank column is always shown: this report is per rank.
WITH {sql:gpu_typed},
x AS (SELECT rank, device, type_unions(type, s, e) AS j FROM g GROUP BY rank, device),
u AS (SELECT rank, device, j ->> 1 AS comm_ns, j ->> 0 AS compute_ns, j ->> 3 AS either_ns FROM x)
SELECT rank, device, comm_ns, compute_ns, comm_ns + compute_ns - either_ns AS overlap_ns,
       CASE WHEN comm_ns > 0 THEN round(100.0 * (comm_ns + compute_ns - either_ns) / comm_ns, 2) END AS overlap_pct
FROM u
ORDER BY rank, device
LIMIT :limit;
