-- kernel_launch_rows: kernel_rows.sql with each kernel's launch configuration (NULL where it has none),
-- for `tracedb kernels --group-by launch` (analyzer/report/kernel_sweep.c); apart, because the join
-- costs kernel_rows.sql a third of its time even when it matches nothing. Ids :lo to :hi, as there.
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank, e.name_id, e.kind, e.dur_ns, e.id,
       l.event_id IS NOT NULL AS launch, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z,
       l.registers, l.shared_mem,
       CASE WHEN :by_step THEN coalesce(e.launch_ns, e.start_ns) END AS step_t
FROM scope_event e LEFT JOIN kernel_launch l ON l.event_id = e.id
WHERE e.id >= :lo AND e.id <= :hi
  AND ((e.kind = {kind:kernel} AND :kernel) OR (e.kind = {kind:memcpy} AND :memcpy) OR (e.kind = {kind:memset} AND :memset));
