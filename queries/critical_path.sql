-- critical_path: per rank, the critical path through host operators, launches, GPU work and syncs
-- (HTA's critical_path_analysis: its graph, its longest path) and the share of its length each bound
-- has (HTA's CPGraph.summary(): cpu_bound, gpu_compute_bound, gpu_communication_bound,
-- gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead). The sums come from the C pass
-- (analyzer/report/critical_path.c and cp_graph.c, temp table critical_path_sums); start_ns is when the
-- path starts, after the trace's start.
SELECT rank, path_ns,
       cpu_ns, round(100.0 * cpu_ns / nullif(path_ns, 0), 2) AS cpu_pct,
       gpu_compute_ns, round(100.0 * gpu_compute_ns / nullif(path_ns, 0), 2) AS gpu_compute_pct,
       gpu_comm_ns, round(100.0 * gpu_comm_ns / nullif(path_ns, 0), 2) AS gpu_comm_pct,
       launch_ns, round(100.0 * launch_ns / nullif(path_ns, 0), 2) AS launch_pct,
       kernel_gap_ns, round(100.0 * kernel_gap_ns / nullif(path_ns, 0), 2) AS kernel_gap_pct,
       start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS start_ns,
       path_events, path_edges, graph_nodes, graph_edges
FROM temp.critical_path_sums
ORDER BY rank
LIMIT :limit;
