-- latency_stats: Furiosa print_summary's figures of the durations dur_ns (latency.sql, summary_latency.sql):
-- count, min, max, mean, median, the 90, 95, 97, 99 and 99.9th percentiles (linear between closest ranks,
-- numpy/pandas' default), cut to whole ns as Furiosa's int() cuts them
count(*) AS count, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns,
       CAST(avg(dur_ns) AS INTEGER) AS mean_ns,
       CAST(median(dur_ns) AS INTEGER) AS median_ns,
       CAST(percentile(dur_ns, 90) AS INTEGER) AS p90_ns,
       CAST(percentile(dur_ns, 95) AS INTEGER) AS p95_ns,
       CAST(percentile(dur_ns, 97) AS INTEGER) AS p97_ns,
       CAST(percentile(dur_ns, 99) AS INTEGER) AS p99_ns,
       CAST(percentile(dur_ns, 99.9) AS INTEGER) AS p999_ns
