-- overlap: per rank and device, the GPU time of communication kernels (collectives), of computation
-- kernels, and of both at once, as HTA's get_comm_comp_overlap computes it: each kind's intervals
-- merged (touching ones too), overlap = the time both kinds run; overlap_pct = overlap / communication
-- time (NULL when the rank has no communication), to 0.01%: with :hta_rounding as HTA rounds it (numpy's
-- round of 100 * (overlap / communication)). Kinds by kernel_type() (HTA's patterns; memory and other GPU
-- work count in neither). The rank column is always shown: this report is per rank.
-- The unions come from one pass over the GPU rows (analyzer/report/type_sweep.c, temp table type_stats).
WITH u AS (SELECT rank, device, b AS comm_ns, a AS compute_ns, ab AS either_ns FROM temp.type_stats)
SELECT rank, device, comm_ns, compute_ns, comm_ns + compute_ns - either_ns AS overlap_ns,
       CASE WHEN comm_ns > 0 THEN CASE WHEN :hta_rounding THEN hta_share(comm_ns + compute_ns - either_ns, comm_ns, 2)
                                       ELSE round(100.0 * (comm_ns + compute_ns - either_ns) / comm_ns, 2) END END AS overlap_pct
FROM u
ORDER BY rank, device
LIMIT :limit;
