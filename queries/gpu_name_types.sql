-- gpu_name_types: HTA's kernel type of each GPU work name, as parts/gpu_typed.sql's gpu_name_type, for the
-- C pass of analyzer/report/type_sweep.c (a row whose name is not here counts nowhere, as the join drops it).
WITH {sql:gpu_typed}
SELECT id, type FROM gpu_name_type;
