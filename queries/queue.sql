-- queue: per rank, device and stream, how many launched operations wait for the GPU (HTA's queue length:
-- +1 when a launch call starts, -1 when the work it launched starts; launch calls cudaLaunchKernel(ExC),
-- cuLaunchKernel(Ex), cudaMemcpyAsync, cudaMemsetAsync and their hip* twins). A step function: samples
-- (its changes, as HTA's describe() counts them), max_queue, mean_queue weighted by how long each value
-- lasted (HTA's mean weighs each sample alike: sample_mean), p50 over the samples, and the time spent
-- with :blocked_at (1024, CUDA's queue depth) or more queued, and its share of the stream's span.
-- The per-stream sums come from one pass over the steps in order (analyzer/report/queue_sweep.c, temp table
-- queue_stats; HTA's and SQL window functions' definitions, see queue_timeline.sql for the series).
SELECT rank, device, stream, samples, max_queue,
       round(weighted * 1.0 / nullif(span_ns, 0), 3) AS mean_queue,
       round(sum_queue * 1.0 / samples, 3) AS sample_mean, p50 AS p50_queue, min_queue,
       blocked_ns, round(100.0 * blocked_ns / nullif(span_ns, 0), 2) AS blocked_pct
FROM queue_stats
ORDER BY rank, device, stream
LIMIT :limit;
