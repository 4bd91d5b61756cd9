-- kernels_patterns: `tracedb kernels --patterns NAME`: HTA's frequent CUDA kernel sequences
-- (get_frequent_cuda_kernel_sequences, its CallGraph): per rank, the host events whose name holds :name
-- (a substring, as HTA matches it) at the least call-stack depth among them (so that no root holds
-- another) with at least :min_kernels GPU operations launched under them (kernels, memcpy, memset);
-- each root's pattern is its name and its GPU operations' names in time order, joined by '|'. Per
-- pattern: count, kernels (its length), gpu_ns (the operations' time summed over the occurrences),
-- cpu_ns (the roots' time). Depth is HTA's: a thread's own nesting, except that when a rank has one
-- thread holding ProfilerStep#N (HTA's main stack) and one other holding autograd:: calls (its backward
-- stack), the backward thread's top-level calls inside a "## backward ##" annotation of the main
-- thread (else a ProfilerStep#N) count as that annotation's children, as HTA links them.
-- This is the report in SQL alone: its C pass (analyzer/report/pattern_sweep.c) computes the same and serves
-- every database tracedb writes; this serves a foreign one (a value not an integer where tracedb writes one),
-- and the test hta/kernel_patterns_c_pass_equals_its_sql holds the two equal.
WITH RECURSIVE
named AS MATERIALIZED ( -- the names that matter, each with what it marks: 1 a candidate, 2 an autograd:: call, 4 a backward annotation
{sql:pattern_names}),
steps_names AS MATERIALIZED (SELECT id FROM string WHERE value GLOB 'ProfilerStep#*'),
host AS MATERIALIZED ( -- the window's host rows with a name that matters, in one pass (HTA's call stacks: no GPU
  -- work, no instants, memory or spans)
  SELECT e.id, e.thread_id, e.name_id, e.start_ns, e.dur_ns, e.depth, e.parent_id, n.mark, {sql:rank_of_event} AS rank
  FROM scope_event e CROSS JOIN named n ON n.id = e.name_id
  WHERE e.kind NOT IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:gpu_range}, {kind:sync},
                       {kind:memory}, {kind:instant}, {kind:trace}, {kind:async})
),
cand AS MATERIALIZED (SELECT * FROM host WHERE mark & 1),
main_thread AS MATERIALIZED ( -- HTA's labels: main holds a ProfilerStep#N (found by the range index); backward,
  -- else, an autograd:: call
  SELECT DISTINCT e.thread_id, {sql:rank_of_event} AS rank FROM event e
  WHERE e.kind = {kind:range} AND e.name_id IN (SELECT id FROM steps_names)
),
bwd_thread AS MATERIALIZED (
  SELECT DISTINCT thread_id, rank FROM host WHERE mark & 2 AND thread_id NOT IN (SELECT thread_id FROM main_thread)
),
linked AS MATERIALIZED ( -- per rank, its main and backward thread when it has exactly one of each
  SELECT m.rank, m.thread_id AS main, b.thread_id AS bwd
  FROM main_thread m JOIN bwd_thread b ON b.rank IS m.rank
  WHERE (SELECT count(*) FROM main_thread x WHERE x.rank IS m.rank) = 1 AND (SELECT count(*) FROM bwd_thread x WHERE x.rank IS m.rank) = 1
),
anchor AS MATERIALIZED ( -- the main thread's annotations the backward calls hang from: "## backward ##", else the steps
  SELECT l.bwd, h.start_ns, h.start_ns + h.dur_ns AS en, h.depth FROM linked l JOIN host h ON h.thread_id = l.main WHERE h.mark & 4
  UNION ALL
  SELECT l.bwd, e.start_ns, e.start_ns + e.dur_ns, e.depth FROM linked l JOIN event e ON e.thread_id = l.main
  WHERE e.kind = {kind:range} AND e.name_id IN (SELECT id FROM steps_names)
    AND NOT EXISTS (SELECT 1 FROM host x WHERE x.thread_id = l.main AND x.mark & 4)
),
up(cand_id, id, parent_id) AS ( -- each candidate on a linked backward thread up to its top-level call (UNION: a
  -- stranger's database may hold a loop of parents, which then ends)
  SELECT c.id, c.id, c.parent_id FROM cand c WHERE c.thread_id IN (SELECT bwd FROM linked)
  UNION SELECT u.cand_id, e.id, e.parent_id FROM up u JOIN event e ON e.id = u.parent_id
),
top AS MATERIALIZED ( -- their top-level calls
  SELECT u.cand_id, t.thread_id, t.start_ns, t.start_ns + t.dur_ns AS en FROM up u JOIN event t ON t.id = u.id WHERE u.parent_id IS NULL
),
lift AS MATERIALIZED ( -- how much deeper a linked candidate is: its top-level call hangs from the last annotation holding it
  SELECT p.cand_id, (SELECT a.depth + 1 FROM anchor a WHERE a.bwd = p.thread_id AND p.start_ns >= a.start_ns AND p.en <= a.en
                     ORDER BY a.start_ns DESC LIMIT 1) AS plus
  FROM top p
),
deep AS MATERIALIZED (
  SELECT c.id, c.rank, c.thread_id, c.name_id, c.start_ns, c.dur_ns, c.depth + coalesce(l.plus, 0) AS depth
  FROM cand c LEFT JOIN lift l ON l.cand_id = c.id
),
least AS MATERIALIZED (SELECT rank, min(depth) AS depth FROM deep GROUP BY rank),
root AS MATERIALIZED ( -- the candidates at the least depth of their rank's, numbered in (thread, start) order
  SELECT d.*, row_number() OVER (ORDER BY d.thread_id, d.start_ns, d.id) AS rn
  FROM deep d JOIN least m ON m.rank IS d.rank AND m.depth = d.depth
),
work AS MATERIALIZED ( -- the window's GPU operations with their launch call (HTA's rows on a stream: syncs on one too)
  SELECT g.id, g.name_id, g.start_ns, g.dur_ns, l.thread_id, l.start_ns AS ls, l.start_ns + l.dur_ns AS le
  FROM scope_gpu g CROSS JOIN event l ON l.id = g.launch_id -- (the GPU rows first: no index leads from a launch to its work)
  WHERE (g.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) OR (g.kind = {kind:sync} AND g.stream IS NOT NULL AND g.stream <> -1))
    AND l.thread_id IN (SELECT thread_id FROM root)
),
merged AS ( -- roots and launch calls on each thread in time order (a root before a launch at one time)
  SELECT thread_id, start_ns AS s, 0 AS is_work, rn, start_ns + dur_ns AS en, NULL AS name_id, NULL AS gs, NULL AS gd, NULL AS id
  FROM root
  UNION ALL SELECT thread_id, ls, 1, NULL, le, name_id, start_ns, dur_ns, id FROM work
),
held AS ( -- the last root before each launch, and its end: roots of one depth on a thread do not overlap, so the
  -- largest number and end so far are the last root's
  SELECT is_work, en, name_id, gs, gd, id, max(rn) OVER w AS rn, max(CASE WHEN is_work = 0 THEN en END) OVER w AS root_en
  FROM merged WINDOW w AS (PARTITION BY thread_id ORDER BY s, is_work, rn ROWS UNBOUNDED PRECEDING)
),
under AS ( -- each GPU operation of a root (its launch call inside the root)
  SELECT rn, name_id, gs AS start_ns, gd AS dur_ns, id FROM held WHERE is_work AND rn IS NOT NULL AND en <= root_en
),
seq AS MATERIALIZED ( -- each root's operations' names in time order (a window's order is kept)
  SELECT u.rn, count(*) OVER whole AS n, sum(u.dur_ns) OVER whole AS gpu_ns,
         group_concat(s.value, '|') OVER whole AS names, row_number() OVER (PARTITION BY u.rn ORDER BY u.start_ns, u.id) AS k
  FROM under u JOIN string s ON s.id = u.name_id
  WINDOW whole AS (PARTITION BY u.rn ORDER BY u.start_ns, u.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
),
occurrence AS ( -- each root with its operations (by grouping: a join on rn would scan one side for each row of the other)
  SELECT c.rank, s.value || '|' || c.names AS pattern, c.n, c.gpu_ns, c.cpu_ns
  FROM (SELECT rn, max(rank) AS rank, max(name_id) AS name_id, max(cpu_ns) AS cpu_ns, max(n) AS n, max(gpu_ns) AS gpu_ns,
               max(names) AS names
        FROM (SELECT rn, rank, name_id, dur_ns AS cpu_ns, NULL AS n, NULL AS gpu_ns, NULL AS names FROM root
              UNION ALL SELECT rn, NULL, NULL, NULL, n, gpu_ns, names FROM seq WHERE k = 1)
        GROUP BY rn) c
  CROSS JOIN string s ON s.id = c.name_id
  WHERE c.n >= :min_kernels
)
SELECT rank, count(*) AS count, n AS kernels, sum(gpu_ns) AS gpu_ns, sum(cpu_ns) AS cpu_ns, pattern
FROM occurrence
GROUP BY rank, pattern
ORDER BY rank, count DESC, pattern
LIMIT :limit;
