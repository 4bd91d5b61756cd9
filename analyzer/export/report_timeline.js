/* report_timeline.js: the HTML report's timeline (data from html_timeline.c): a labelled track per CPU
 * thread and GPU stream (a CPU thread's nesting as up to three lanes), work coloured by class (one
 * legend), steps marked, a time axis with ticks in units, hover readings (name, start, duration), and
 * drag to zoom. With a baseline both runs are drawn on one time scale, each from its own start. */

const CLASSES = [["CPU operator", "#3b6fd8"], ["CPU runtime call", "#8a6fd1"], ["CPU other (ranges, Python)", "#9fb0cc"],
                 ["GPU compute", "#3aa676"], ["GPU communication", "#e0823b"], ["GPU memory (copy, set)", "#c2459a"],
                 ["GPU other (sync)", "#8a93a5"]];

/* Tick spacing: 1, 2 or 5 times a power of ten, about every `px` pixels. */
function niceStep(span, n) {
  const raw = span / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw) || 10 * p;
}
function tickUnit(step) { return TIME_UNITS.find(([d]) => step >= d) || [1, "ns"]; }
function tickText(t, step, unit) {
  const dec = Math.max(0, Math.ceil(-Math.log10(step / unit[0]) + 1e-9));
  return `${(t / unit[0]).toFixed(dec)} ${unit[1]}`;
}

/* One run's tracks, their events split by lane (sorted by start, as html_timeline.c wrote them). */
function prepareRun(title, T) {
  const tracks = T.tracks.map(tr => {
    const lanes = Array.from({length: Math.max(1, tr.lanes)}, () => []);
    for (let i = 0; i + 4 < tr.ev.length; i += 5)
      lanes[tr.ev[i + 4]]?.push({s: tr.ev[i], d: tr.ev[i + 1], n: T.names[tr.ev[i + 2]], c: tr.ev[i + 3]});
    const shown = tr.ev.length / 5;
    return {label: tr.label, gpu: tr.gpu, lanes, busy: tr.busy, cls: tr.cls, all: shown >= tr.events, events: tr.events};
  });
  return {title, T, tracks, span: T.t1 - T.t0, steps: T.steps.map(s => ({name: s.name, s: s.start - T.t0, e: s.end - T.t0}))};
}

function timeline() {
  const runs = [prepareRun(DATA.baseline ? "New run" : "", DATA.timeline)];
  if (DATA.baseline) runs.push(prepareRun("Baseline", DATA.baseline.timeline));
  const T = DATA.timeline;
  const s = section("timeline", "Timeline", (DATA.baseline ? "Both runs on one time scale, each from its own start. " : "") +
                    "A row per CPU thread (its nesting as lanes) and per GPU stream, coloured by the kind of work. " +
                    "Hover for an event's name, start and duration; drag across to zoom, double-click to zoom out.");
  const shownAll = runs.every(r => r.T.shown >= r.T.events);
  s.append(el("div", {class: "note", id: "timeline-shown"}, shownAll ? `Every event down to depth 2 is drawn (${T.events.toLocaleString("en-US")}).` :
    `Drawn one by one: the ${T.shown.toLocaleString("en-US")} longest of the ${T.events.toLocaleString("en-US")} events down to depth 2; ` +
    "where a track holds more, a lighter band shows how busy it was."));
  const full = el("div", {class: "note"}, "Every event, in Perfetto UI: ");
  if (DATA.meta.chrome_trace) full.append(el("a", {href: DATA.meta.chrome_trace, id: "chrome-trace"}, DATA.meta.chrome_trace));
  else full.append(el("code", {}, "tracedb export chrome " + DATA.meta.file + " -o trace.json.gz"));
  s.append(full);
  if (!runs.some(r => r.tracks.length)) return emptyNote(s, "no events with a duration");
  const used = new Set(runs.flatMap(r => r.tracks.flatMap(t => t.lanes.flatMap(l => l.map(e => e.c)).concat([...t.cls].filter(c => c !== "-").map(Number)))));
  s.append(legend(CLASSES.filter((_, i) => used.has(i))));
  const bar = el("div", {class: "tl-bar"});
  const reset = el("button", {type: "button", id: "timeline-reset"}, "Zoom out fully");
  const range = el("span", {class: "note", id: "timeline-range"});
  bar.append(reset, range);
  s.append(bar);
  const holder = el("div", {class: "tl-holder"});
  s.append(holder);
  const span = Math.max(...runs.map(r => r.span));
  let lo = 0, hi = span;
  const laneH = 12, left = 220, axisH = 24, headH = 18;
  const rows = []; /* y ranges -> what is there, for the hover */
  let svg = null, W = 0, sel = null;
  const draw = () => {
    W = Math.max(600, holder.clientWidth);
    const plotW = W - left - 12, x = t => left + (t - lo) / (hi - lo) * plotW;
    rows.length = 0;
    let y = axisH;
    const parts = [];
    for (const r of runs) {
      const y0 = y;
      y += headH;
      const tracksTop = y;
      for (const tr of r.tracks) {
        const h = tr.lanes.length * laneH + 4;
        rows.push({y0: y, y1: y + h, run: r, tr});
        y += h;
      }
      parts.push({r, y0, tracksTop, y1: y});
      y += 6;
    }
    const H = y + 4;
    const g = sv("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-chart": "timeline", class: "tl"});
    /* the axis: ticks with units, from the run's start */
    const step = niceStep(hi - lo, plotW / 110), unit = tickUnit(step);
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
      const tx = x(t);
      g.append(sv("line", {x1: tx, x2: tx, y1: axisH - 5, y2: H - 4, stroke: "#e3e7ee"}),
               sv("text", {x: tx, y: axisH - 8, "text-anchor": "middle", class: "tick", "data-tick": String(Math.round(t))}, tickText(t, step, unit)));
    }
    g.append(sv("text", {x: 4, y: axisH - 8, class: "axis-title"}, "time from start"));
    for (const {r, y0, tracksTop, y1} of parts) {
      g.append(sv("text", {x: 4, y: y0 + 13, class: "run-title"}, r.title || (r.steps.length ? "steps" : "")));
      for (const st of r.steps) {
        const a = Math.max(x(st.s), left), b = Math.min(x(st.e), W - 12);
        if (b <= a) continue;
        const band = sv("rect", {x: a, y: y0 + 2, width: b - a, height: y1 - y0 - 2, fill: "#eef2fb", stroke: "#c9d3ea", "data-step": st.name});
        band.append(sv("title", {}, `${st.name}: ${fmtTime(st.e - st.s)}`));
        g.append(band);
        const label = st.name.replace("ProfilerStep", "step ");
        if (b - a > label.length * 6.5 + 6) g.append(sv("text", {x: a + 3, y: y0 + 13, class: "step-label"}, label));
      }
      for (const row of rows.filter(q => q.run === r)) {
        const tr = row.tr;
        const lab = sv("text", {x: left - 6, y: row.y0 + Math.min(12, (row.y1 - row.y0) / 2 + 4), "text-anchor": "end", class: "track",
                                "data-track": tr.label}, tr.label);
        lab.append(sv("title", {}, `${tr.label}: ${tr.events.toLocaleString("en-US")} events`));
        g.append(lab, sv("line", {x1: left, x2: W - 12, y1: row.y1, y2: row.y1, stroke: "#f0f2f6"}));
        if (!tr.all) { /* the track's busy share where not every event is drawn */
          const bw = plotW / (hi - lo) * (r.T.t1 - r.T.t0) / r.T.bins;
          for (let k = 0; k < tr.busy.length; k++) {
            if (!tr.busy[k]) continue;
            const bx = x(k * (r.T.t1 - r.T.t0) / r.T.bins);
            if (bx + bw < left || bx > W - 12) continue;
            g.append(sv("rect", {x: Math.max(bx, left), y: row.y0 + 2, width: Math.max(0.5, Math.min(bw, W - 12 - bx)), height: laneH - 1,
                                 fill: CLASSES[+tr.cls[k]]?.[1] || "#999", "fill-opacity": (0.12 + 0.3 * tr.busy[k]).toFixed(2)}));
          }
        }
        tr.lanes.forEach((lane, li) => {
          const ly = row.y0 + 2 + li * laneH;
          let merged = null, mx = 0, mw = 0; /* events under a pixel join one rectangle */
          for (const e of lane) {
            if (e.s + e.d < lo || e.s > hi) continue;
            const a = Math.max(x(e.s), left), b = Math.min(x(e.s + e.d), W - 12);
            if (b - a >= 1.5) {
              merged = null;
              g.append(sv("rect", {x: a, y: ly, width: b - a, height: laneH - 2, fill: CLASSES[e.c][1], class: "ev",
                                   "data-name": e.n, "data-start": String(e.s), "data-dur": String(e.d)}));
            } else if (merged && a <= mx + mw + 0.5) {
              mw = Math.max(mw, b - mx, 0.8);
              merged.setAttribute("width", mw);
            } else {
              mx = a, mw = Math.max(b - a, 0.8);
              merged = sv("rect", {x: a, y: ly, width: mw, height: laneH - 2, fill: CLASSES[e.c][1], "data-name": e.n});
              g.append(merged);
            }
          }
        });
      }
    }
    afterLayoutNow(g);
    holder.replaceChildren(g);
    svg = g;
    range.textContent = `showing ${fmtTime(lo)} to ${fmtTime(hi)} of ${fmtTime(span)}`;
  };
  /* track labels shortened to the label column, distinct, whole on hover */
  const afterLayoutNow = g => {
    const labels = [...g.querySelectorAll("text.track")];
    const fit = fitNames(labels.map(t => t.dataset.track), left - 12, "11px system-ui, sans-serif");
    for (const t of labels) t.firstChild.textContent = fit.get(t.dataset.track);
  };
  const at = ev => { const r = svg.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; };
  const timeAt = px => lo + (px - left) / (W - left - 12) * (hi - lo);
  holder.addEventListener("mousemove", ev => {
    if (!svg) return;
    const [px, py] = at(ev);
    if (sel) {
      const a = Math.max(left, Math.min(sel.from, px)), b = Math.min(W - 12, Math.max(sel.from, px));
      sel.rect.setAttribute("x", a), sel.rect.setAttribute("width", b - a);
      return;
    }
    const row = rows.find(q => py >= q.y0 && py < q.y1);
    if (!row || px < left) return hideTip();
    const lane = row.tr.lanes[Math.floor((py - row.y0 - 2) / laneH)];
    const t = timeAt(px), tol = 2 * (hi - lo) / (W - left - 12);
    let best = null;
    if (lane) {
      let a = 0, b = lane.length; /* the last event starting at or before t + tol */
      while (a < b) { const m = (a + b) >> 1; if (lane[m].s <= t + tol) a = m + 1; else b = m; }
      for (let i = a - 1; i >= 0 && i >= a - 64; i--) {
        const e = lane[i];
        if (e.s + e.d >= t - tol && (!best || e.d < best.d)) best = e;
      }
    }
    if (!best) return hideTip();
    showTip(ev, [best.n, `${CLASSES[best.c][0]}, ${row.tr.label}${row.run.title ? " (" + row.run.title.toLowerCase() + ")" : ""}`,
                 `start ${fmtTime(best.s)} from the run's start`, `duration ${fmtTime(best.d)}`],
            {"data-name": best.n, "data-start": String(best.s), "data-dur": String(best.d)});
  });
  holder.addEventListener("mouseleave", hideTip);
  holder.addEventListener("mousedown", ev => {
    const [px] = at(ev);
    if (px < left) return;
    const rect = sv("rect", {x: px, y: 0, width: 0, height: svg.getAttribute("height"), class: "tl-sel"});
    svg.append(rect);
    sel = {from: px, rect};
    ev.preventDefault();
  });
  window.addEventListener("mouseup", ev => {
    if (!sel) return;
    const [px] = at(ev), from = sel.from;
    sel.rect.remove();
    sel = null;
    if (Math.abs(px - from) < 4) return;
    const a = timeAt(Math.max(left, Math.min(from, px))), b = timeAt(Math.min(W - 12, Math.max(from, px)));
    if (b - a > 100) { lo = a; hi = b; draw(); }
  });
  const zoomOut = () => { lo = 0; hi = span; draw(); };
  holder.addEventListener("dblclick", zoomOut);
  reset.addEventListener("click", zoomOut);
  afterLayout.push(draw);
}
