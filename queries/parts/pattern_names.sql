-- pattern_names: `tracedb kernels --patterns :name`'s names (kernels_pattern_names.sql),
-- each with what it marks: 1 a candidate (its name holds :name, as HTA matches it), 2 an autograd:: call
-- (HTA's backward thread), 4 a "## backward ##" annotation (where the backward calls hang).
SELECT id, (instr(value, :name) > 0) + 2 * (instr(value, 'autograd::') > 0) + 4 * (value GLOB '## backward ##*') AS mark
FROM string WHERE instr(value, :name) > 0 OR instr(value, 'autograd::') > 0 OR value GLOB '## backward ##*'
