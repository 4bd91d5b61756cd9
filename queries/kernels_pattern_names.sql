-- kernels_pattern_names: the names `tracedb kernels --patterns :name` looks for (analyzer/report/pattern_sweep.c),
-- each with what it marks: 1 a candidate (its name holds :name, as HTA matches it), 2 an autograd:: call
-- (HTA's backward thread), 4 a "## backward ##" annotation (where the backward calls hang). The same marks
-- as queries/kernels_patterns.sql's (the whole report in SQL, for a foreign database).
SELECT id, (instr(value, :name) > 0) + 2 * (instr(value, 'autograd::') > 0) + 4 * (value GLOB '## backward ##*') AS mark
FROM string WHERE instr(value, :name) > 0 OR instr(value, 'autograd::') > 0 OR value GLOB '## backward ##*'
ORDER BY id;
