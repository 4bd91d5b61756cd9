-- kernel_rows: the GPU work `tracedb kernels` sums per name (kernels.sql's ranks and kinds), in table
-- order, for the C pass that sums it without sorting it (analyzer/report/kernel_sweep.c); with
-- :group_by 'launch', each kernel's launch configuration (NULL where it has none).
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank, e.name_id, e.kind, e.dur_ns, e.id,
       l.event_id IS NOT NULL AS launch, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z,
       l.registers, l.shared_mem
FROM scope_event e LEFT JOIN kernel_launch l ON :group_by = 'launch' AND l.event_id = e.id
WHERE (e.kind = {kind:kernel} AND :kernel) OR (e.kind = {kind:memcpy} AND :memcpy) OR (e.kind = {kind:memset} AND :memset);
