-- critical_path: per rank, the critical path through host operators, launches, GPU work and syncs
-- (HTA's critical_path_analysis: its graph, its longest path) and the share of its length each bound
-- has (HTA's CPGraph.summary(): cpu_bound, gpu_compute_bound, gpu_communication_bound,
-- gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead). The sums come from the C pass
-- (analyzer/report/critical_path.c and cp_graph.c, temp table critical_path_sums). What the path
-- covers, in ns after the trace's start: it runs from start_ns to end_ns, within the window's events
-- (window_start_ns to window_end_ns: the host events in the window and the GPU work they launched).
-- path_ns is the sum of its edges' weights, so it is shorter than end_ns - start_ns by what its
-- zero-weight edges span (blocking calls such as cudaDeviceSynchronize, syncs, dependencies between
-- top-level calls, launches of work that waited behind other work).
SELECT s.rank, s.path_ns,
       s.cpu_ns, round(100.0 * s.cpu_ns / nullif(s.path_ns, 0), 2) AS cpu_pct,
       s.gpu_compute_ns, round(100.0 * s.gpu_compute_ns / nullif(s.path_ns, 0), 2) AS gpu_compute_pct,
       s.gpu_comm_ns, round(100.0 * s.gpu_comm_ns / nullif(s.path_ns, 0), 2) AS gpu_comm_pct,
       s.launch_ns, round(100.0 * s.launch_ns / nullif(s.path_ns, 0), 2) AS launch_pct,
       s.kernel_gap_ns, round(100.0 * s.kernel_gap_ns / nullif(s.path_ns, 0), 2) AS kernel_gap_pct,
       s.start_ns - b.t0 AS start_ns, s.end_ns - b.t0 AS end_ns,
       s.window_lo - b.t0 AS window_start_ns, s.window_hi - b.t0 AS window_end_ns,
       s.path_events, s.path_edges, s.graph_nodes, s.graph_edges
FROM temp.critical_path_sums s,
     (SELECT coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS t0) b
ORDER BY s.rank
LIMIT :limit;
