-- kernels_pattern_names: the names `tracedb kernels --patterns` looks for, with their marks
-- (queries/parts/pattern_names.sql), for its C pass (analyzer/report/pattern_sweep.c), by id.
{sql:pattern_names}ORDER BY id;
