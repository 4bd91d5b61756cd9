-- summary_kernels: the kernels that took the most device time. Parameter: :limit.
SELECT s.value AS name, sum(st.calls) AS calls, sum(st.total_ns) AS total_ns,
       CAST(round(1.0 * sum(st.total_ns) / sum(st.calls)) AS INTEGER) AS avg_ns
FROM event_stats st JOIN string s ON s.id = st.name_id
WHERE st.kind = {kind:kernel}
GROUP BY st.name_id
ORDER BY total_ns DESC, name
LIMIT :limit;
