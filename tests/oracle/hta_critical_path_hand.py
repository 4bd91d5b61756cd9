# tests/oracle/hta_critical_path_hand.py: regenerates tests/data/critical_path_hand/expected.json (run once;
# tests never need HTA):
#   /usr/bin/python3 tests/oracle/hta_critical_path_hand.py > tests/data/critical_path_hand/expected.json
# (HTA's source at /tmp/hta.) The hand-written traces in tests/data/critical_path_hand/ each pin one rule
# of HTA's critical path that no real trace in tests/data decides: a tie between two predecessors
# (networkx keeps the first added), events of one call stack at equal times (compare_events' order),
# events that overlap without nesting (CallStackGraph's tree), kernels queued at their launch (the path
# with HTA's default graph, and with its zero-weight launch edges: HTA's
# set_critical_path_add_zero_weight_launch_edges, tracedb's default). For each: HTA's path, edge by edge,
# as (type, weight in us, the name of the event the edge is attributed to, or of the node it leads to).
import sys, json, os, shutil, tempfile, logging
sys.path.insert(0, "/tmp/hta")
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
from hta.configs.env_options import HTAEnvOptions

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data", "critical_path_hand")
TYPES = {"critical_path_operator": "operator", "critical_path_dependency": "dependency",
         "critical_path_kernel_launch_delay": "launch_delay", "critical_path_kernel_kernel_delay": "kernel_gap",
         "critical_path_sync_dependency": "sync"}
out = []
for trace, launch_edges in [("ties.json", False), ("equal_times.json", False), ("overlap.json", False),
                            ("queued.json", False), ("queued.json", True)]:
    HTAEnvOptions.instance().set_critical_path_add_zero_weight_launch_edges(launch_edges)
    d = tempfile.mkdtemp()
    shutil.copy(os.path.join(data, trace), d)
    ta = TraceAnalysis(trace_dir=d)
    rank = list(ta.t.traces)[0]
    g, ok = ta.critical_path_analysis(rank=rank, annotation="", instance_id=None)
    assert ok, trace
    names = g.symbol_table.get_sym_table()
    df = g.trace_df
    steps = []
    for u, v in zip(g.critical_path_nodes, g.critical_path_nodes[1:]):
        e = g.edges[u, v]["object"]
        ev = g.get_event_attribution_for_edge(e)
        if ev is None:
            ev = g.node_list[v].ev_idx
        steps.append([TYPES[e.type.value], int(e.weight), names[int(df.name.loc[ev])]])
    out.append({"trace": trace, "zero_weight_launch_edges": launch_edges, "steps": steps})
    shutil.rmtree(d)
json.dump({"cases": out}, sys.stdout, indent=1)
print()
