# tests/oracle/hta_critical_path.py: regenerates tests/data/hta_critical_path_expected.json and
# hta_critical_path_launches_expected.json (run once; tests never need HTA):
#   /usr/bin/python3 tests/oracle/hta_critical_path.py > tests/data/hta_critical_path_expected.json
#   /usr/bin/python3 tests/oracle/hta_critical_path.py --launch-edges > tests/data/hta_critical_path_launches_expected.json
# (HTA's source at /tmp/hta: git archive of f4d0062's hta/. Its default options: no zero-weight launch edges,
# negative weights counted 0; --launch-edges sets CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1, which links
# every kernel to its launch, at zero weight where HTA's rule adds no launch delay: tracedb's default.)
# For each case (trace, annotation, instance): HTA's critical_path_analysis on rank 0 in HTA's default
# trace window (its loader keeps what starts before the last ProfilerStep), then its path in order: each
# edge's type, weight (us) and the name of the event it is attributed to (or of the node it leads to;
# listed for paths of up to 4000 edges), a digest of the weights in path order (sum of position * weight),
# the sums per bound (HTA's summary() numerators) and the graph's size. The traces HTA fails on
# (cupti_profiler_trace: no queue length series; trace_file_list_inference: a TypeError in HTA) are left out.
import sys, json, os, shutil, tempfile, logging
if "--launch-edges" in sys.argv[1:]:
    os.environ["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"] = "1"
sys.path.insert(0, "/tmp/hta")
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data", "kineto")
CASES = [
    ("critical_path_alexnet_trace.json.gz", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("critical_path_alexnet_trace.json.gz", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 0),
    ("critical_path_alexnet_trace.json.gz", "", None),
    ("critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz", "", None),
] + [(t, "", None) for t in [
    "nccl_parser_config_nccl_data.json.gz", "ns_resolution_trace_rank-0.json.gz", "timeline_analysis_sampled_rank-0.json.gz",
    "trace_diff_control_control.json.gz", "trace_diff_test_test.json.gz", "trace_filter_sampled_rank-1.json.gz",
    "triton_example_triton_example.json.gz", "df_index_resolver_df_index_resolver.json.gz",
    "negative_queue_length_values_check_rank0.json.gz", "amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz"]]

TYPES = {"critical_path_operator": "operator", "critical_path_dependency": "dependency",
         "critical_path_kernel_launch_delay": "launch_delay", "critical_path_kernel_kernel_delay": "kernel_gap",
         "critical_path_sync_dependency": "sync"}
out = []
for trace, annotation, inst in CASES:
    d = tempfile.mkdtemp()
    shutil.copy(os.path.join(data, trace), d)
    ta = TraceAnalysis(trace_dir=d)
    rank = list(ta.t.traces)[0]
    res = ta.critical_path_analysis(rank=rank, annotation=annotation, instance_id=inst)
    case = {"trace": trace, "annotation": annotation, "instance": inst}
    if res is None or not res[1]:
        case["error"] = True
        out.append(case)
        continue
    g = res[0]
    df = g.trace_df
    names = g.symbol_table.get_sym_table()
    steps = []
    nodes = g.critical_path_nodes
    for u, v in zip(nodes, nodes[1:]):
        e = g.edges[u, v]["object"]
        ev = g.get_event_attribution_for_edge(e)
        if ev is None:
            ev = g.node_list[v].ev_idx
        w = max(int(e.weight), 0)
        steps.append([TYPES[e.type.value], w, names[int(df.name.loc[ev])] if ev >= 0 else None,
                      int(g.node_list[u].ts), int(g.node_list[v].ts)])
    edf = g.get_critical_path_breakdown()
    edf["duration"] = edf["duration"].clip(lower=0)
    bound = {k or "none": float(v) for k, v in edf.groupby("bound_by").duration.sum().items()}
    types = {}
    for s in steps:
        types[s[0]] = types.get(s[0], 0) + 1
    case.update({"path_us": sum(s[1] for s in steps), "bound_us": bound, "path_edges": len(steps), "types": types,
                 "digest": sum((i + 1) * s[1] for i, s in enumerate(steps)) % (1 << 61),
                 "steps": [s[:3] for s in steps] if len(steps) <= 4000 else None,
                 "path_events": len(g.critical_path_events_set), "graph_nodes": g.number_of_nodes(),
                 "graph_edges": g.number_of_edges()})
    out.append(case)
json.dump({"cases": out}, sys.stdout, indent=None, separators=(",", ":"))
print()
