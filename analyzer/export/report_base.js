/* report_base.js: the HTML report's building blocks (pasted into report.html by html_report.c): elements,
 * units, column headers in words, names shortened to fit and stay distinct, sortable tables with a
 * details row, bar charts and the hover box. Every figure keeps its exact value in data-value. */

const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#3b6fd8", "#e0823b", "#3aa676", "#c2459a", "#8a6fd1", "#d2b33a", "#4bb2c9", "#c95050"];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function sv(tag, attrs, ...kids) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

/* Times: ns in the unit that suits them, four significant digits ("345.8 ms", "7.993 µs"). */
const TIME_UNITS = [[1e9, "s"], [1e6, "ms"], [1e3, "\u00b5s"], [1, "ns"]];
function digits(v) { const a = Math.abs(v); return a >= 100 ? 1 : a >= 10 ? 2 : 3; }
function fmtTime(ns) {
  if (ns === null || ns === undefined) return "-";
  const [d, u] = TIME_UNITS.find(([d]) => Math.abs(ns) >= d) || [1, "ns"];
  return d === 1 ? `${Math.round(ns)} ns` : `${(ns / d).toFixed(digits(ns / d))} ${u}`;
}
/* Bytes in powers of 1000 (KB, MB, GB), as the tables print them and as GB/s is. */
const BYTE_UNITS = [[1e9, "GB"], [1e6, "MB"], [1e3, "KB"], [1, "B"]];
function fmtBytes(b) {
  if (b === null || b === undefined) return "-";
  const [d, u] = BYTE_UNITS.find(([d]) => Math.abs(b) >= d) || [1, "B"];
  return d === 1 ? `${b} B` : `${(b / d).toFixed(digits(b / d))} ${u}`;
}
function fmtCount(v) { return Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(3); }

/* Column headers in words, with the unit their cells are in. */
const WORDS = {
  name: "Name", calls: "Calls", self_cpu: "Self CPU", cpu_total: "CPU total", cpu_avg: "CPU average",
  self_device: "Self GPU", device_total: "GPU total", device_avg: "GPU average", cpu_mem: "CPU memory",
  self_cpu_mem: "Self CPU memory", device_mem: "GPU memory", self_device_mem: "Self GPU memory", flops: "FLOPs",
  input_shapes: "Input shapes", stack: "Stack", time: "Share of GPU time", total: "Total time", instances: "Instances",
  avg: "Average", med: "Median", min: "Shortest", max: "Longest", stddev: "Std. deviation", kind: "Kind",
  grid: "Grid", block: "Block", registers: "Registers per thread", shared_mem: "Shared memory", step: "Step",
  device: "Device", span: "Step time", busy: "Busy", run: "Run", io_wait: "IO wait", idle: "Idle", launches: "Launches",
  gpu_avg: "GPU average", delay_avg: "Launch delay, average", delay_p50: "Launch delay, median",
  delay_p99: "Launch delay, p99", delay_max: "Launch delay, longest", short_kernels: "Short kernels",
  runtime_outliers: "Runtime outliers", delay_outliers: "Delay outliers", rank: "Rank", stream: "Stream",
  host_wait: "Host wait", kernel_wait: "Kernel wait", other: "Other", comm: "Communication", compute: "Computation",
  overlap: "Overlap", peak_allocated: "Peak allocated", peak_allocated_at: "Peak at", peak_reserved: "Peak reserved",
  fragmentation: "Fragmentation", peak_op: "Operator at the peak", leaked: "Not freed", allocs: "Allocations",
  frees: "Frees", allocated: "Allocated", freed: "Freed", count: "Steps", mean: "Mean", median: "Median",
  p25: "p25", p75: "p75", iqr: "IQR", p90: "p90", p95: "p95", p97: "p97", p99: "p99", p999: "p99.9",
  p_value: "p-value (Mann-Whitney U)", status: "Status", gpu: "GPU model", idle_share: "Idle",
};
function colKind(c) {
  return /_ns$/.test(c) ? "time" : /bytes$/.test(c) ? "bytes" : /_pct$/.test(c) ? "pct" : "plain";
}
function colWords(c) {
  let m;
  if ((m = /^(base|new)_(.*)$/.exec(c))) return `${colWords(m[2])}, ${m[1] === "base" ? "baseline" : "new"}`;
  if (c === "delta_ns" || c === "delta_pct") return "Change";
  if ((m = /^delta_(.*)$/.exec(c))) return `Change in ${colWords(m[1]).toLowerCase()}`;
  if (c === "peak_allocated_ns") return WORDS.peak_allocated_at;
  const base = c.replace(/_(ns|bytes|pct)$/, "");
  return WORDS[base] || base.replace(/_/g, " ").replace(/^./, x => x.toUpperCase());
}
/* One unit a column, the one its largest value reads best in: [divisor, unit]. */
function colUnit(rows, c) {
  const k = colKind(c);
  if (k === "pct") return [1, "%"];
  if (k !== "time" && k !== "bytes") return null;
  const max = Math.max(0, ...rows.map(r => Math.abs(typeof r[c] === "number" ? r[c] : 0)));
  return (k === "time" ? TIME_UNITS : BYTE_UNITS).find(([d]) => max >= d) || [1, k === "time" ? "ns" : "B"];
}
function colHeader(c, unit) { return unit ? `${colWords(c)} (${unit[1]})` : colWords(c); }
function cellText(v, unit) {
  if (v === null || v === undefined) return "-";
  if (typeof v !== "number") return String(v);
  if (!unit) return fmtCount(v);
  const x = v / unit[0];
  return unit[0] === 1 && unit[1] !== "%" ? fmtCount(v) : x.toFixed(unit[1] === "%" ? 1 : 3);
}
function exact(c, v) {
  if (typeof v !== "number") return v === null || v === undefined ? "-" : String(v);
  const k = colKind(c);
  return k === "time" ? `${fmtTime(v)} (${v.toLocaleString("en-US")} ns)` : k === "bytes" ? `${fmtBytes(v)} (${v.toLocaleString("en-US")} B)` :
         k === "pct" ? `${v.toFixed(2)}%` : fmtCount(v);
}

/* Shortened names that fit px and stay distinct: the middle cut out ("void at::na…Functor<float>>"),
 * names that would still read alike cut where they differ, and any left alike numbered. */
const measurer = document.createElement("canvas").getContext("2d");
function fitNames(names, px, font) {
  measurer.font = font;
  const w = s => measurer.measureText(s).width, out = new Map();
  const cut = (n, from) => { /* head, "…", then n from `from` on, as much of both as fits */
    if (from === undefined && w(n) <= px) return n;
    let lo = 1, hi = n.length, best = n.slice(0, 1) + "\u2026";
    while (lo <= hi) {
      const k = (lo + hi) >> 1;
      const s = from === undefined ? n.slice(0, Math.ceil(k * 0.55)) + "\u2026" + n.slice(n.length - Math.floor(k * 0.45))
                                   : n.slice(0, Math.min(from, Math.ceil(k * 0.3))) + "\u2026" + n.slice(from, from + k - Math.min(from, Math.ceil(k * 0.3))) + (from + k < n.length ? "\u2026" : "");
      if (w(s) <= px) best = s, lo = k + 1; else hi = k - 1;
    }
    return best;
  };
  const uniq = [...new Set(names)];
  uniq.forEach(n => out.set(n, cut(n)));
  const groups = () => { const g = new Map(); uniq.forEach(n => { const l = out.get(n); g.set(l, [...(g.get(l) || []), n]); }); return [...g.values()].filter(x => x.length > 1); };
  for (const g of groups()) for (const n of g) { /* where it parts from the others, less a little context */
    let d = 0;
    for (const o of g) if (o !== n) { let k = 0; while (k < n.length && n[k] === o[k]) k++; d = Math.max(d, k); }
    out.set(n, cut(n, Math.max(0, d - 6)));
  }
  const taken = new Set(), first = new Set(); /* any still alike: numbered, each label once */
  for (const n of uniq) {
    const l = out.get(n);
    if (!first.has(l)) { first.add(l); taken.add(l); continue; }
    let k = 2, c;
    do c = cut(n).replace(/.{0,5}$/, "") + ` #${k++}`; while (taken.has(c) || first.has(c));
    out.set(n, c);
    taken.add(c);
  }
  return out;
}
/* An element's font as canvas takes it (the font shorthand of a computed style is empty when a part of
 * it, such as tabular numbers, has no place in the shorthand). */
function fontOf(cs) { return `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`; }
/* Layout-dependent work (fitting names to their boxes) runs once every section is in place. */
const afterLayout = [];

function section(id, title, note) {
  const s = el("section", {id: id, "data-section": id}, el("h2", {}, title));
  if (note) s.append(el("div", {class: "note"}, note));
  document.getElementById("main").append(s);
  return s;
}
function emptyNote(s, text) { s.append(el("div", {class: "empty"}, text)); }
function legend(items) {
  return el("div", {class: "legend"}, ...items.map(([title, color, dash]) =>
    el("span", {}, el("i", {style: `background:${color}` + (dash ? ";opacity:.55" : "")}), title)));
}

const TABLE_SHOWN = 500;
/* A sortable table: the columns `cols` shown (headers in words and units), every column of the row in
 * its details row (a click on the row); keyCol names each row (data-key), cells carry data-value. */
function table(rows, cols, keyCol, all) {
  all = all || Object.keys(rows[0] || {}).filter(c => c !== "rank" || cols.includes("rank"));
  const units = Object.fromEntries(all.map(c => [c, colUnit(rows, c)]));
  const textCol = c => rows.some(r => typeof r[c] === "string");
  const wide = cols.find(c => c === keyCol && textCol(c)) || cols.find(textCol); /* the names: the column that gives way */
  const cls = (c, v) => typeof v === "string" || v === undefined ? (c === wide ? "text wide" : "text") : "";
  const t = el("table", {});
  const head = el("tr", {});
  cols.forEach(c => head.append(el("th", {class: textCol(c) ? cls(c) : "", "data-col": c, title: `${colWords(c)}: click to sort`}, colHeader(c, units[c]))));
  t.append(el("thead", {}, head));
  const body = el("tbody", {});
  let labels = new Map();
  const fill = list => { /* the first TABLE_SHOWN rows in the order asked */
    body.replaceChildren(...list.slice(0, TABLE_SHOWN).map(r => {
      const tr = el("tr", {"data-key": keyCol ? String(r[keyCol]) : null});
      for (const c of cols) {
        const v = r[c];
        tr.append(el("td", {class: typeof v === "string" ? cls(c, v) : "", "data-col": c,
                            "data-value": v === null || v === undefined ? "" : String(v),
                            title: typeof v === "string" ? v : exact(c, v)},
                     typeof v === "string" && labels.has(v) ? labels.get(v) : cellText(v, units[c])));
      }
      tr.addEventListener("click", () => {
        if (tr.nextSibling?.classList.contains("details")) return tr.nextSibling.remove();
        const dl = el("dl", {});
        for (const c of all) dl.append(el("dt", {}, colWords(c)), el("dd", {"data-col": c}, exact(c, r[c])));
        tr.after(el("tr", {class: "details"}, el("td", {colspan: cols.length}, dl)));
      });
      return tr;
    }));
  };
  fill(rows);
  t.append(body);
  let sorted = null, desc = true, order = rows;
  head.querySelectorAll("th").forEach(th => th.addEventListener("click", () => {
    const c = th.dataset.col;
    desc = sorted === c ? !desc : true;
    sorted = c;
    head.querySelectorAll("th").forEach(h => h.classList.remove("sorted-asc", "sorted-desc"));
    th.classList.add(desc ? "sorted-desc" : "sorted-asc");
    order = rows.slice().sort((a, b) => {
      const x = a[c], y = b[c];
      const r = typeof x === "number" && typeof y === "number" ? x - y : String(x ?? "").localeCompare(String(y ?? ""));
      return desc ? -r : r;
    });
    fill(order);
  }));
  const box = el("div", {class: "scroll"}, t);
  if (rows.length > TABLE_SHOWN) box.append(el("div", {class: "note"}, `the first ${TABLE_SHOWN} of ${rows.length} rows in the order chosen (click a header to sort)`));
  afterLayout.push(() => { /* each text column's names shortened to its width, distinct */
    for (const c of cols.filter(c => c === wide)) {
      const td = body.querySelector(`td[data-col="${c}"]`);
      if (!td) continue;
      const cs = getComputedStyle(td);
      const px = td.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 2;
      for (const [k, v] of fitNames(rows.map(r => r[c]).filter(v => typeof v === "string"), px, fontOf(cs))) labels.set(k, v);
    }
    fill(order);
  });
  return box;
}

/* Horizontal bars, HTML: for each of the first n rows a label (the name, shortened to fit and distinct,
 * whole on hover) and a bar per series with its value at its end, inside the bar when it is long. */
function bars(rows, label, series, n, fmt) {
  const top = rows.slice(0, n);
  const max = Math.max(1, ...top.flatMap(r => series.map(([c]) => Math.abs(r[c] || 0))));
  const box = el("div", {class: "bars", "data-chart": "bars"});
  const labelEls = [];
  for (const r of top) {
    const name = String(r[label]);
    const lab = el("div", {class: "bar-label", title: name}, name);
    labelEls.push([lab, name]);
    const cells = el("div", {class: "bar-cells"});
    series.forEach(([c, title, color], k) => {
      const v = r[c] || 0, frac = Math.abs(v) / max;
      const bar = el("div", {class: "bar", style: `width:${(frac * 100).toFixed(2)}%;background:${color || COLORS[k]}`,
                             "data-key": name, "data-col": c, "data-value": String(v), title: `${name}\n${title}: ${fmt(v)}`});
      const text = el("span", {class: "bar-value"}, fmt(v));
      if (frac > 0.8) { text.classList.add("inside"); bar.append(text); cells.append(el("div", {class: "bar-line"}, bar)); }
      else cells.append(el("div", {class: "bar-line"}, bar, text));
    });
    box.append(el("div", {class: "bar-row", "data-key": name}, lab, cells));
  }
  afterLayout.push(() => {
    if (!labelEls.length) return;
    const cs = getComputedStyle(labelEls[0][0]);
    const fit = fitNames(labelEls.map(([, n]) => n), labelEls[0][0].clientWidth - 4, fontOf(cs));
    for (const [e, n] of labelEls) e.textContent = fit.get(n);
  });
  const out = [box];
  if (series.length > 1) out.unshift(legend(series.map(([, title, color], k) => [title, color || COLORS[k]])));
  return out;
}

/* The hover box: one per page, placed beside the pointer and kept inside the window. */
function tip() {
  let t = document.getElementById("tip");
  if (!t) document.body.append(t = el("div", {id: "tip", role: "tooltip"}));
  return t;
}
function showTip(ev, lines, attrs) {
  const t = tip();
  t.replaceChildren(...lines.map((l, i) => el("div", {class: i ? "" : "tip-head"}, l)));
  for (const a of [...t.attributes]) if (a.name.startsWith("data-")) t.removeAttribute(a.name);
  for (const [k, v] of Object.entries(attrs || {})) t.setAttribute(k, v);
  t.style.display = "block";
  const x = Math.min(ev.pageX + 14, window.scrollX + document.documentElement.clientWidth - t.offsetWidth - 8);
  t.style.left = Math.max(4, x) + "px";
  t.style.top = (ev.pageY + 16) + "px";
}
function hideTip() { tip().style.display = "none"; }
