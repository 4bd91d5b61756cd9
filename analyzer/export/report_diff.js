/* report_diff.js: the HTML report against a baseline (tracedb diff's sections): the gate's verdict on
 * top, then every comparison with both runs side by side, baseline and new. */

function verdict() {
  const d = DATA.diff;
  if (!d) return;
  const pass = d.gate_rc === 0;
  const v = el("div", {id: "verdict", class: "verdict " + (pass ? "pass" : "fail"), "data-rc": String(d.gate_rc)}, d.verdict);
  if (d.gpus_differ) document.getElementById("main").append(el("div", {id: "gpus-differ", class: "verdict warn"}, "Warning: " + d.gpus_differ));
  document.getElementById("main").append(v);
}

function diff() {
  const d = DATA.diff;
  if (!d) return;
  const RUNS = [["baseline", "#9aa9c4"], ["new", "#3b6fd8"]];
  const s = section("diff", "Changes from the baseline", "tracedb diff baseline new: operators and GPU work by change (largest increase first), step time, GPU time, memory peaks; each with the baseline and the new run.");
  const grow = d.ops.filter(r => (r.delta_ns ?? 0) > 0).sort((a, b) => b.delta_ns - a.delta_ns);
  if (grow.length) {
    s.append(el("h3", {}, "Largest increases in total time"));
    s.append(...bars(grow, "name", [["base_total_ns", "baseline", RUNS[0][1]], ["new_total_ns", "new", RUNS[1][1]]], 15, fmtTime));
  }
  const ops = d.ops.slice().sort((a, b) => (b.delta_ns ?? 0) - (a.delta_ns ?? 0));
  if (ops.length) s.append(table(ops, ["name", "kind", "base_calls", "new_calls", "base_total_ns", "new_total_ns", "delta_ns", "delta_pct", "status"], "name"));
  s.append(el("h3", {}, "Step time"));
  if (d.steps.length) s.append(table(d.steps, ["run", "count", "median_ns", "p25_ns", "p75_ns", "p90_ns", "p99_ns", "max_ns", "delta_median_pct", "p_value"], "run"));
  else emptyNote(s, "no steps to compare");
  s.append(el("h3", {}, "GPU time, whole run"));
  if (d.device.length) {
    const parts = [["run_ns", "run", "#3aa676"], ["io_wait_ns", "IO wait", "#e0823b"], ["idle_ns", "idle", "#c9ced8"]];
    const rows = d.device.flatMap(r => [["base", "baseline"], ["new", "new"]].map(([k, word]) => ({
      who: `${word}, GPU ${r[k + "_device"]}` + (r[k + "_gpu"] ? ` (${r[k + "_gpu"]})` : ""), device: r[k + "_device"], run: word,
      run_ns: r[k + "_run_ns"], io_wait_ns: r[k + "_io_wait_ns"], idle_ns: r[k + "_idle_ns"], busy_ns: r[k + "_busy_ns"], idle_pct: r[k + "_idle_pct"]})));
    s.append(legend(parts.map(([, t, c]) => [t, c])),
             stacked(s, rows, parts, r => r.who, r => ({"data-run": r.run, "data-device": String(r.device)}),
                     r => `${fmtTime(r.busy_ns)} busy, ${(r.idle_pct ?? 0).toFixed(1)}% idle`, "diff-device"),
             table(d.device, ["base_device", "new_device", "base_busy_ns", "new_busy_ns", "base_run_ns", "new_run_ns", "base_io_wait_ns", "new_io_wait_ns",
                              "base_idle_ns", "new_idle_ns", "base_idle_pct", "new_idle_pct"], null));
  } else emptyNote(s, "nothing to compare");
  s.append(el("h3", {}, "Memory peaks"));
  if (d.memory.length) s.append(table(d.memory, Object.keys(d.memory[0]).filter(c => c !== "rank").slice(0, 10), null));
  else emptyNote(s, "nothing to compare");
}
