-- diff_gpus: the GPUs each run did its work on (kernels, memcpy, memset), as "2 x NVIDIA A100-SXM4-40GB
-- (39.6 GiB)", models in name order ('' for a run with no GPU work), and whether they differ: other models
-- or counts, or a model's memory more than 10% apart (the same card reports a little less or more with
-- other drivers and ECC settings: 39.4 and 39.6 GiB A100s are the same hardware).
WITH worked AS (
  SELECT 'base' AS run, d.name, json_extract(d.properties, '$.totalGlobalMem') AS mem
  FROM main.device d
  WHERE EXISTS (SELECT 1 FROM main.event_stats s WHERE s.trace_id = d.trace_id AND s.device = d.id
                AND s.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}))
  UNION ALL
  SELECT 'new', d.name, json_extract(d.properties, '$.totalGlobalMem')
  FROM new.device d
  WHERE EXISTS (SELECT 1 FROM new.event_stats s WHERE s.trace_id = d.trace_id AND s.device = d.id
                AND s.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}))
),
models AS (
  SELECT run, count(*) || ' x ' || coalesce(name, 'an unnamed GPU')
              || coalesce(' (' || printf('%.1f', mem / 1073741824.0) || ' GiB)', '') AS text
  FROM worked GROUP BY run, name, mem ORDER BY run, name, mem
),
kinds AS (SELECT run, name, count(*) AS n, max(mem) AS mem FROM worked GROUP BY run, name),
b AS (SELECT * FROM kinds WHERE run = 'base'),
n AS (SELECT * FROM kinds WHERE run = 'new')
SELECT coalesce((SELECT group_concat(text, ', ') FROM (SELECT text FROM models WHERE run = 'base')), '') AS base_gpus,
       coalesce((SELECT group_concat(text, ', ') FROM (SELECT text FROM models WHERE run = 'new')), '') AS new_gpus,
       EXISTS (SELECT 1 FROM b FULL OUTER JOIN n ON n.name IS b.name
               WHERE b.n IS NOT n.n
                  OR abs(coalesce(b.mem, 0) - coalesce(n.mem, 0)) > 0.1 * max(coalesce(b.mem, 0), coalesce(n.mem, 0))) AS differ;
