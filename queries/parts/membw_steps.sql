membw_op AS MATERIALIZED ( -- HTA's memory type of each memory name (utils.get_memory_kernel_type), once per name
  SELECT n.id, CASE WHEN substr(n.value, 1, 6) = 'Memset' THEN 'Memset'
                    WHEN substr(n.value, 1, 6) = 'Memcpy' THEN substr(n.value, 1, 11)
                    ELSE 'Memcpy Unknown' END AS op
  FROM string n
  WHERE n.id IN (SELECT name_id FROM event_stats WHERE kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync}))
    AND kernel_type(n.value) = 'memory'
),
membw_ops AS ( -- the window's memory work: a zero duration counts 1 us, a bandwidth missing or not a number 0 GB/s, as in HTA
  SELECT rank, op, s, CASE WHEN dur = 0 THEN s + 1000 ELSE s + dur END AS en,
         CASE WHEN typeof(bw) IN ('integer', 'real') THEN bw ELSE 0.0 END AS bw
  FROM (SELECT {sql:rank_of_event} AS rank, t.op, e.start_ns AS s, e.dur_ns AS dur,
               CASE WHEN json_valid(e.args) THEN json_extract(e.args, '$."memory bandwidth (GB/s)"') END AS bw
        FROM scope_gpu e CROSS JOIN membw_op t ON t.id = e.name_id
        WHERE e.kind IN ({kind:memcpy}, {kind:memset}) -- kernels and syncs only where one's name is memory work
           OR (e.kind IN ({kind:kernel}, {kind:sync}) AND (SELECT count(*) FROM event_stats x JOIN membw_op o ON o.id = x.name_id
                                                          WHERE x.kind IN ({kind:kernel}, {kind:sync})) > 0))
),
membw_change AS ( -- every step at one time at once: the change there and how many ops start minus end
  SELECT rank, op, t, sum(d) AS d, sum(n) AS n
  FROM (SELECT rank, op, s AS t, bw AS d, 1 AS n FROM membw_ops UNION ALL SELECT rank, op, en, -bw, -1 FROM membw_ops)
  GROUP BY rank, op, t
),
membw_series AS ( -- the concurrent bandwidth from each change to the next; 0, not a float residue, when none runs
  SELECT rank, op, t, next_t, running, CASE WHEN running > 0 THEN total ELSE 0.0 END AS gbps
  FROM (SELECT rank, op, t, sum(n) OVER w AS running, sum(d) OVER w AS total, lead(t) OVER w AS next_t
        FROM membw_change WINDOW w AS (PARTITION BY rank, op ORDER BY t ROWS UNBOUNDED PRECEDING))
)
