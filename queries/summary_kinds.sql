-- summary_kinds: event counts and summed durations by kind.
SELECT k.name AS kind, sum(st.calls) AS events, sum(st.total_ns) AS total_ns
FROM event_stats st JOIN kind k ON k.id = st.kind
GROUP BY st.kind ORDER BY events DESC, kind;
