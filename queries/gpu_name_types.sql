-- gpu_name_types: HTA's kernel type of each GPU work name (kernel_type() once per name), for the C pass of
-- analyzer/report/type_sweep.c (a row whose name is not here counts nowhere).
SELECT n.id, kernel_type(n.value) AS type FROM string n
WHERE n.id IN (SELECT name_id FROM event_stats WHERE kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync}));
