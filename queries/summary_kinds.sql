-- summary_kinds: event counts and busy time by kind.
SELECT k.name AS kind, count(*) AS events, sum(e.dur_ns) AS total_ns
FROM event e JOIN kind k ON k.id = e.kind
GROUP BY e.kind ORDER BY events DESC, kind;
