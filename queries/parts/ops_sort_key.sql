-- ops_sort_key: the value ops.sql sorts by (descending), from :sort (ops_sweep.c's sort_key, the same)
CASE :sort WHEN 'name' THEN 0
           WHEN 'calls' THEN calls
           WHEN 'cpu_total_ns' THEN cpu_total_ns
           WHEN 'self_device_ns' THEN self_device_ns
           WHEN 'device_total_ns' THEN device_total_ns
           WHEN 'cpu_mem_bytes' THEN cpu_mem_bytes
           WHEN 'self_cpu_mem_bytes' THEN self_cpu_mem_bytes
           WHEN 'device_mem_bytes' THEN device_mem_bytes
           WHEN 'self_device_mem_bytes' THEN self_device_mem_bytes
           WHEN 'flops' THEN coalesce(flops, -1)
           ELSE self_cpu_ns END
