-- kernel_rows: the GPU work `tracedb kernels` sums per name (its ranks and the kinds :kernel, :memcpy,
-- :memset), in table order, for the C pass that sums it without sorting it (analyzer/report/kernel_sweep.c);
-- with :by_step, the instant that picks its step (its launch's start, else its own: step_index.h's rule). Ids :lo to :hi:
-- the pass reads two halves at once, each on its own connection.
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank, e.name_id, e.kind, e.dur_ns, e.id,
       CASE WHEN :by_step THEN coalesce(e.launch_ns, e.start_ns) END AS step_t
FROM scope_event e
WHERE e.id >= :lo AND e.id <= :hi
  AND ((e.kind = {kind:kernel} AND :kernel) OR (e.kind = {kind:memcpy} AND :memcpy) OR (e.kind = {kind:memset} AND :memset));
