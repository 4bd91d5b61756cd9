/* report_charts.js: the HTML report's charts of steps, devices, memory and HTA's analyses. SVG drawn at
 * the section's own width in pixels, so every label is placed where it fits; with a baseline, both runs. */

/* The width charts are drawn at: a section's, measured once (every section is as wide, and measuring
 * after the long tables are in would lay the whole page out again). */
let sectionWidth = 0;
function plotWidth(s) { return Math.max(600, (sectionWidth = sectionWidth || s.clientWidth) - 34); }

/* An x axis of times with ticks in units, from lo to hi mapped onto [x0, x1] at height y. */
function timeAxis(g, lo, hi, x0, x1, y, title) {
  const X = t => x0 + (hi > lo ? (t - lo) / (hi - lo) : 0.5) * (x1 - x0);
  const step = niceStep(hi - lo || 1, (x1 - x0) / 110), unit = tickUnit(step);
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    g.append(sv("line", {x1: X(t), x2: X(t), y1: y - 4, y2: y, stroke: "#8a93a5"}),
             sv("text", {x: X(t), y: y + 12, "text-anchor": "middle", class: "tick"}, tickText(t, step, unit)));
  g.append(sv("line", {x1: x0, x2: x1, y1: y, y2: y, stroke: "#8a93a5"}));
  if (title) g.append(sv("text", {x: x1, y: y + 26, "text-anchor": "end", class: "axis-title"}, title));
  return X;
}

/* Step durations: a dot per step when a run has fewer than 30 (a distribution of six says little), a
 * histogram otherwise; the median, p90 and p99 that tracedb latency computes marked on each run. */
function latency() {
  const s = section("latency", "Step time", "ProfilerStep#N durations (tracedb latency), with the median, p90 and p99 as the report computes them; a dot per step when there are few.");
  const runs = [{title: DATA.baseline ? "new" : "", steps: DATA.steps, L: DATA.latency[0], color: COLORS[0]}];
  if (DATA.baseline) runs.push({title: "baseline", steps: DATA.baseline.steps, L: DATA.baseline.latency[0], color: COLORS[1]});
  const live = runs.filter(r => r.L && r.steps.length);
  if (!live.length) return emptyNote(s, "no ProfilerStep#N steps in this trace");
  const all = live.flatMap(r => r.steps.map(x => x.dur_ns));
  const few = live.every(r => r.steps.length < 30);
  const W = plotWidth(s), left = 90, right = W - 30, rowH = few ? 64 : 150, top = 34;
  const H = top + live.length * rowH + 40;
  let lo = Math.min(...all), hi = Math.max(...all);
  const pad = (hi - lo) * 0.05 || lo * 0.05 || 1;
  lo = Math.max(0, lo - pad), hi += pad;
  const g = sv("svg", {width: W, height: H, "data-chart": "latency", "data-kind": few ? "strip" : "histogram"});
  const X = timeAxis(g, lo, hi, left, right, H - 34, "step time");
  live.forEach((r, ri) => {
    const y0 = top + ri * rowH, mid = y0 + rowH / 2;
    g.append(sv("text", {x: 4, y: mid + 4, class: "run-title"}, r.title || `${r.steps.length} steps`));
    if (few) {
      g.append(sv("line", {x1: left, x2: right, y1: mid, y2: mid, stroke: "#e3e7ee"}));
      r.steps.forEach((x, i) => {
        const dot = sv("circle", {cx: X(x.dur_ns), cy: mid + ((i % 3) - 1) * 7, r: 5, fill: r.color, "fill-opacity": 0.75,
                                  "data-run": r.title || "run", "data-step": x.name, "data-value": String(x.dur_ns)});
        dot.append(sv("title", {}, `${x.name}: ${fmtTime(x.dur_ns)}`));
        g.append(dot);
      });
    } else {
      const nb = Math.min(40, Math.max(8, Math.ceil(Math.sqrt(r.steps.length)) * 2)), width = (hi - lo) / nb;
      const counts = new Array(nb).fill(0);
      for (const x of r.steps) counts[Math.min(nb - 1, Math.floor((x.dur_ns - lo) / width))]++;
      const maxc = Math.max(...counts);
      counts.forEach((c, k) => {
        const h = (rowH - 30) * c / maxc, xa = X(lo + k * width), xb = X(lo + (k + 1) * width);
        const bar = sv("rect", {x: xa + 1, y: y0 + rowH - 8 - h, width: Math.max(0, xb - xa - 2), height: h, fill: r.color, "fill-opacity": 0.6, "data-count": String(c)});
        bar.append(sv("title", {}, `${c} steps from ${fmtTime(lo + k * width)} to ${fmtTime(lo + (k + 1) * width)}`));
        g.append(bar);
      });
    }
    let lastEnd = -1e9, level = 0;
    [["median_ns", "p50", "#1d2330"], ["p90_ns", "p90", "#b4561c"], ["p99_ns", "p99", "#c95050"]].forEach(([c, label, color]) => {
      const x = X(r.L[c]), text = `${label} ${fmtTime(r.L[c])}`, tw = text.length * 6.2;
      const anchorEnd = x + tw + 4 > right;
      const a = anchorEnd ? x - tw - 3 : x + 3;
      level = a < lastEnd + 4 ? level + 1 : 0; /* labels that would touch step down a line */
      lastEnd = a + tw;
      g.append(sv("line", {x1: x, x2: x, y1: y0 + 4, y2: y0 + rowH - 6, stroke: color, "stroke-width": 1.5, "stroke-dasharray": "4 3",
                           "data-p": label, "data-value": String(r.L[c]), "data-run": r.title || "run"}),
               sv("text", {x: anchorEnd ? x - 3 : x + 3, y: y0 + 2 + level * 11 - (ri ? 0 : 8) + 8, fill: color,
                           "text-anchor": anchorEnd ? "end" : "start", "data-p": label}, text));
    });
  });
  if (live.length > 1) s.append(legend(live.map(r => [r.title, r.color])));
  s.append(g);
  const rows = DATA.baseline ? [...DATA.latency.map(r => ({run: "new", ...r})), ...DATA.baseline.latency.map(r => ({run: "baseline", ...r}))] : DATA.latency;
  s.append(table(rows, [...(DATA.baseline ? ["run"] : []), "name", "count", "min_ns", "median_ns", "mean_ns", "p90_ns", "p99_ns", "max_ns"], DATA.baseline ? null : "name"));
}

/* Stacked horizontal bars in pixels: a row per item, parts side by side, the total after them. */
function stacked(s, rows, parts, label, attrs, after, chart) {
  const W = plotWidth(s), left = 230, right = W - 170, rowH = 20, H = rows.length * rowH + 8;
  const max = Math.max(1, ...rows.map(r => parts.reduce((a, [c]) => a + (r[c] || 0), 0)));
  const g = sv("svg", {width: W, height: H, "data-chart": chart});
  const labels = rows.map(label), fit = fitNames(labels, left - 12, "11px system-ui, sans-serif");
  rows.forEach((r, i) => {
    const y = i * rowH + 4;
    const t = sv("text", {x: left - 6, y: y + 11, "text-anchor": "end"}, fit.get(labels[i]));
    t.append(sv("title", {}, labels[i]));
    g.append(t);
    let x = left;
    for (const [c, name, col] of parts) {
      const w = (right - left) * (r[c] || 0) / max;
      const rect = sv("rect", {x: x, y: y, width: Math.max(0, w), height: rowH - 6, fill: col, ...attrs(r), "data-col": c, "data-value": String(r[c])});
      rect.append(sv("title", {}, `${labels[i]}: ${name} ${fmtTime(r[c])}`));
      g.append(rect);
      x += w;
    }
    g.append(sv("text", {x: x + 5, y: y + 11}, after(r)));
  });
  return g;
}

/* Device time per step (tracedb device) and GPU utilisation per step over time, both runs with a baseline. */
function device() {
  const s = section("device", "GPU time per step", "Per step and GPU (tracedb device): run (computing), IO wait (memory copies and sets with no computation) and idle, merged over streams.");
  if (!DATA.device.length) return emptyNote(s, "no GPU work in this trace");
  const rows = DATA.device.filter(r => r.step !== null);
  const parts = [["run_ns", "run", "#3aa676"], ["io_wait_ns", "IO wait", "#e0823b"], ["idle_ns", "idle", "#c9ced8"]];
  if (rows.length > 60) /* a bar a step reads no more: the utilisation chart shows them all */
    s.append(el("div", {class: "note"}, `${rows.length} step rows: each step's share is on the utilisation chart below and in the table.`));
  else if (rows.length)
    s.append(legend(parts.map(([, t, c]) => [t, c])),
             stacked(s, rows, parts, r => `${r.step}, GPU ${r.device}`, r => ({"data-step": r.step, "data-device": String(r.device)}),
                     r => `${fmtTime(r.span_ns)}, ${r.busy_pct.toFixed(1)}% busy`, "device"));
  if (rows.length) utilisation(s);
  s.append(table(DATA.device.map(r => r.step === null ? {...r, step: "whole trace"} : r), ["step", "device", "span_ns", "busy_ns", "run_ns", "io_wait_ns", "idle_ns", "busy_pct", "run_pct", "idle_pct"], null));
}

/* GPU utilisation per step over time: busy (run + IO wait) and run, in % of each step, at the step's start. */
function utilisation(s) {
  const runs = [{title: DATA.baseline ? "new" : "", D: DATA.device, steps: DATA.steps, t0: DATA.timeline.t0, dash: null}];
  if (DATA.baseline) runs.push({title: "baseline", D: DATA.baseline.device, steps: DATA.baseline.steps, t0: DATA.baseline.timeline.t0, dash: "5 3"});
  const series = [];
  for (const r of runs) {
    const at = new Map(r.steps.map(x => [x.name, x.start_ns - r.t0 + x.dur_ns / 2]));
    const devices = [...new Set(r.D.filter(x => x.step !== null).map(x => x.device))];
    for (const d of devices) for (const [col, what, color] of [["busy_pct", "busy", "#1f7a53"], ["run_pct", "computing", "#7cc6a2"]]) {
      const pts = r.D.filter(x => x.device === d && x.step !== null && at.has(x.step)).map(x => ({t: at.get(x.step), v: x[col], row: x}));
      if (pts.length) series.push({name: `GPU ${d} ${what}` + (r.title ? ` (${r.title})` : ""), run: r.title || "run", device: d, col, color, dash: r.dash,
                                   pts: pts.sort((a, b) => a.t - b.t)});
    }
  }
  if (!series.length) return;
  s.append(el("h3", {}, "GPU utilisation per step"));
  const W = plotWidth(s), left = 60, right = W - 20, top = 10, H = 200, bottom = H - 40;
  const g = sv("svg", {width: W, height: H, "data-chart": "utilisation"});
  const ts = series.flatMap(x => x.pts.map(p => p.t)), lo = 0, hi = Math.max(...ts) * 1.04 || 1;
  const X = timeAxis(g, lo, hi, left, right, bottom, "step middle, from the run's start"), Y = v => bottom - (bottom - top) * v / 100;
  for (const v of [0, 25, 50, 75, 100])
    g.append(sv("line", {x1: left, x2: right, y1: Y(v), y2: Y(v), stroke: "#edf0f4"}), sv("text", {x: left - 6, y: Y(v) + 4, "text-anchor": "end", class: "tick"}, `${v}%`));
  for (const se of series) {
    g.append(sv("path", {d: se.pts.map((p, i) => `${i ? "L" : "M"}${X(p.t).toFixed(1)} ${Y(p.v).toFixed(1)}`).join(""), fill: "none",
                         stroke: se.color, "stroke-width": 1.5, "stroke-dasharray": se.dash}));
    for (const p of se.pts.length <= 300 ? se.pts : []) { /* dots while they stay apart */
      const c = sv("circle", {cx: X(p.t), cy: Y(p.v), r: 4, fill: se.dash ? "#fff" : se.color, stroke: se.color, "stroke-width": 1.5,
                              "data-util": se.name, "data-run": se.run, "data-device": String(se.device), "data-step": p.row.step,
                              "data-col": se.col, "data-value": String(p.v)});
      c.append(sv("title", {}, `${p.row.step}, ${se.name}: ${p.v.toFixed(1)}% of ${fmtTime(p.row.span_ns)}`));
      g.append(c);
    }
  }
  s.append(legend(series.map(x => [x.name, x.color, x.dash])), g);
}

/* Memory over time per device: allocated bytes (the highest in each bin), the high-water mark and the operator at it. */
function memory() {
  const s = section("memory", "Memory", "Allocated bytes over time per device ([memory] events; the highest value in each of " +
                    (DATA.memory_series.bins || 0) + " bins), with the high-water mark and the operator running at it (tracedb memory).");
  if (!DATA.memory.length) return emptyNote(s, "no [memory] events in this trace (profile with profile_memory=True)");
  const M = DATA.memory_series, W = plotWidth(s), H = 190, left = 80, right = W - 20, bottom = 40;
  const g = sv("svg", {width: W, height: (H + 10) * M.series.length, "data-chart": "memory"});
  M.series.forEach((ser, si) => {
    const y0 = si * (H + 10), peak = DATA.memory.find(r => r.device === ser.device);
    const max = Math.max(1, ...ser.max.filter(v => v !== null), peak ? peak.peak_allocated_bytes : 0);
    const X = timeAxis(g, 0, M.span_ns, left, right, y0 + H - bottom, si === M.series.length - 1 ? "time from start" : null);
    const Y = v => y0 + H - bottom - (H - bottom - 22) * v / max, Xk = k => X(k * M.span_ns / M.bins);
    let d = "";
    ser.max.forEach((v, k) => { if (v !== null) d += (d ? "L" : "M") + Xk(k).toFixed(1) + " " + Y(v).toFixed(1); });
    g.append(sv("text", {x: left, y: y0 + 12, class: "run-title"}, ser.device), sv("path", {d: d, fill: "none", stroke: COLORS[si % COLORS.length], "stroke-width": 1.5}));
    if (peak) {
      const py = Y(peak.peak_allocated_bytes), px = Xk(Math.min(M.bins - 1, Math.floor(peak.peak_allocated_ns / M.span_ns * M.bins)));
      const text = `peak ${fmtBytes(peak.peak_allocated_bytes)} at ${fmtTime(peak.peak_allocated_ns)}` + (peak.peak_op ? ` in ${peak.peak_op}` : "");
      const fit = fitNames([text], Math.max(200, right - left - 10), "11px system-ui, sans-serif").get(text);
      const end = px > (left + right) / 2;
      const label = sv("text", {x: end ? px - 6 : px + 6, y: Math.max(y0 + 24, py - 6), fill: "#c95050", "text-anchor": end ? "end" : "start",
                                "data-peak-device": ser.device, "data-value": String(peak.peak_allocated_bytes), "data-op": peak.peak_op ?? ""}, fit);
      label.append(sv("title", {}, text));
      g.append(sv("line", {x1: left, x2: right, y1: py, y2: py, stroke: "#c95050", "stroke-dasharray": "4 3"}),
               sv("circle", {cx: px, cy: py, r: 4, fill: "#c95050"}), label);
    }
    g.append(sv("text", {x: left - 6, y: y0 + H - bottom, "text-anchor": "end", class: "tick"}, "0"),
             sv("text", {x: left - 6, y: Y(max) + 4, "text-anchor": "end", class: "tick"}, fmtBytes(max)));
  });
  s.append(g);
  s.append(table(DATA.memory, ["device", "peak_allocated_bytes", "peak_allocated_ns", "peak_reserved_bytes", "peak_op", "allocs", "frees", "leaked_bytes"], "device"));
}

/* GPU efficiency, HTA's analyses: communication overlap per rank, idle time per stream by cause, and the
 * kernels with the longest launch delays (tracedb overlap, idle, launches). */
function efficiency() {
  const s = section("efficiency", "GPU efficiency (HTA's analyses)", "Over the whole trace: communication overlapped by computation (tracedb overlap), idle time per stream by cause (tracedb idle: host wait, kernel wait under 30 \u00b5s, other) and the kernels waiting longest after their launch call (tracedb launches).");
  if (!DATA.idle.length && !DATA.overlap.length) return emptyNote(s, "no GPU work in this trace");
  if (DATA.overlap.length) s.append(table(DATA.overlap, Object.keys(DATA.overlap[0]), null));
  const parts = [["host_wait_ns", "host wait", "#c95050"], ["kernel_wait_ns", "kernel wait", "#e0823b"], ["other_ns", "other", "#8a93a5"]];
  if (DATA.idle.length) {
    s.append(el("h3", {}, "Idle time per stream, by cause"), legend(parts.map(([, t, c]) => [t, c])),
             stacked(s, DATA.idle, parts, r => `rank ${r.rank ?? "-"}, GPU ${r.device}, stream ${r.stream}`, r => ({"data-stream": String(r.stream)}),
                     r => `${fmtTime(r.idle_ns)} idle`, "idle"),
             table(DATA.idle, Object.keys(DATA.idle[0]), null));
  }
  if (DATA.launches.length) {
    s.append(el("h3", {}, "Launch delay by kernel (from the launch call's end to the kernel's start)"));
    s.append(...bars(DATA.launches, "name", [["delay_avg_ns", "average delay"], ["delay_p99_ns", "p99 delay"]], 15, fmtTime));
    s.append(table(DATA.launches, ["name", "launches", "cpu_avg_ns", "gpu_avg_ns", "delay_avg_ns", "delay_p50_ns", "delay_p99_ns", "delay_max_ns"], "name"));
  }
}
