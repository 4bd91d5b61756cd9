-- queue: per rank, device and stream, how many launched operations wait for the GPU (HTA's queue length:
-- +1 when a launch call starts, -1 when the work it launched starts; launch calls cudaLaunchKernel(ExC),
-- cuLaunchKernel(Ex), cudaMemcpyAsync, cudaMemsetAsync and their hip* twins). A step function: samples
-- (its changes, as HTA's describe() counts them), max_queue, mean_queue weighted by how long each value
-- lasted (HTA's mean weighs each sample alike: sample_mean), p50 over the samples, and the time spent
-- with :blocked_at (1024, CUDA's queue depth) or more queued, and its share of the stream's span.
WITH {sql:queue_steps}
SELECT rank, device, stream, count(*) AS samples, max(queue) AS max_queue,
       round(sum(queue * (next_ts - ts)) * 1.0 / nullif(max(ts) - min(ts), 0), 3) AS mean_queue,
       round(avg(queue), 3) AS sample_mean, percentile(queue, 50) AS p50_queue, min(queue) AS min_queue,
       coalesce(sum(CASE WHEN queue >= :blocked_at THEN next_ts - ts END), 0) AS blocked_ns,
       round(100.0 * coalesce(sum(CASE WHEN queue >= :blocked_at THEN next_ts - ts END), 0) / nullif(max(ts) - min(ts), 0), 2)
         AS blocked_pct
FROM queue_series
GROUP BY rank, device, stream
ORDER BY rank, device, stream
LIMIT :limit;
