-- summary_kernels: the kernels that took the most device time. Parameter: :limit.
SELECT s.value AS name, count(*) AS calls, sum(e.dur_ns) AS total_ns,
       CAST(round(avg(e.dur_ns)) AS INTEGER) AS avg_ns
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = 7
GROUP BY e.name_id
ORDER BY total_ns DESC, name
LIMIT :limit;
