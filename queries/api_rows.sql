-- api_rows: the runtime and driver calls `tracedb api` sums, in table order, for the C pass that groups
-- them without sorting them (analyzer/report/kernel_sweep.c, as kernels' rows): rank, name, kind,
-- duration, id; ids :lo to :hi, as there.
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank, e.name_id, e.kind, e.dur_ns, e.id
FROM scope_event e
WHERE e.id >= :lo AND e.id <= :hi AND (e.kind = {kind:runtime} OR e.kind = {kind:driver});
