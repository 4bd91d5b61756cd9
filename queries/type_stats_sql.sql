-- type_stats_sql: temp.type_stats by SQL's GROUP BY (per rank, and per device when :by_device), for keys
-- that are neither NULL nor integers (a foreign database): type_sweep.c's groups found by key, SQL's way.
WITH {sql:gpu_typed},
x AS (SELECT rank, CASE WHEN :by_device THEN device END AS device, type_unions(type, s, e) AS j FROM g GROUP BY 1, 2)
INSERT INTO temp.type_stats
SELECT rank, device, j ->> 0, j ->> 1, j ->> 2, j ->> 3, j ->> 4, j ->> 5, j ->> 6, j ->> 7, j ->> 8, j ->> 9, j ->> 10, j ->> 11
FROM x;
