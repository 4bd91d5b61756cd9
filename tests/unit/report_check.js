/* report_check.js: appended by tests/unit/test_html.c to a copy of a `tracedb report` page, run by headless
 * Chromium after the page's own script: it reads the page as laid out at 1,400 px and writes what it
 * found as JSON into a pre element (id check): text that overflows its box, labels cut so that they repeat,
 * table headers, the timeline's tracks and ticks, a hover reading and a zoom, and each section's box
 * (for a screenshot per section). CHECK (set before it) may name an event to hover. */
(function () {
  const out = {overflow: [], repeated: [], headers: [], tracks: [], runs: [], ticks: [], sections: [], hover: null, zoom: null, errors: []};
  const part = f => { try { f(); } catch (e) { out.errors.push(String(e)); } }; /* each reading on its own */
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  const say = (what, e) => out.overflow.push(what + ": " + (e.textContent || "").slice(0, 80));
  for (const sec of document.querySelectorAll("section")) part(() => {
    const box = sec.getBoundingClientRect();
    out.sections.push({id: sec.id, top: box.top + window.scrollY, height: box.height});
    if (sec.scrollWidth > sec.clientWidth + 1) say("section " + sec.id + " wider than its box", sec.querySelector("h2"));
    for (const s of sec.querySelectorAll(".scroll")) if (s.scrollWidth > s.clientWidth + 1) say("table wider than its box in " + sec.id, s.querySelector("th"));
    for (const e of sec.querySelectorAll("td, th, .bar-label, .bar-value, .legend span, .note, h2, h3"))
      if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== "inline") say("text cut in " + sec.id, e);
    for (const e of sec.querySelectorAll(".bar-value")) if (!inside(e.getBoundingClientRect(), e.closest(".bar-row").getBoundingClientRect())) say("bar value outside its row", e);
    for (const t of sec.querySelectorAll("svg text")) if (!inside(t.getBoundingClientRect(), t.ownerSVGElement.getBoundingClientRect())) say("chart text outside its chart in " + sec.id, t);
    for (const chart of sec.querySelectorAll(".bars")) {
      const seen = new Set();
      for (const l of chart.querySelectorAll(".bar-label")) { if (seen.has(l.textContent)) out.repeated.push(l.textContent); seen.add(l.textContent); }
    }
    for (const table of sec.querySelectorAll("table")) {
      const cols = [...table.querySelectorAll("th.text")].map(th => th.dataset.col);
      for (const c of cols) {
        const seen = new Map();
        for (const td of table.querySelectorAll(`tbody td[data-col="${c}"]`)) {
          const full = td.dataset.value;
          if (seen.has(td.textContent) && seen.get(td.textContent) !== full) out.repeated.push(td.textContent);
          seen.set(td.textContent, full);
        }
      }
      for (const th of table.querySelectorAll("th")) out.headers.push({col: th.dataset.col, text: th.textContent});
    }
  });
  const tl = document.querySelector("svg[data-chart=timeline]");
  if (tl) part(() => {
    const seen = new Set();
    for (const t of tl.querySelectorAll("text.track")) {
      const shown = t.firstChild.textContent;
      out.tracks.push({label: t.dataset.track, shown});
      if (seen.has(shown)) out.repeated.push(shown);
      seen.add(shown);
    }
    out.runs = [...tl.querySelectorAll("text.run-title")].map(t => t.textContent);
    out.ticks = [...tl.querySelectorAll("text.tick")].map(t => ({text: t.textContent, at: +t.dataset.tick}));
    out.classes = [...new Set([...tl.querySelectorAll("rect[data-name]")].map(r => r.getAttribute("fill") + " " + r.dataset.name))].slice(0, 4000);
    out.legend = [...tl.closest("section").querySelectorAll(".legend span")].map(s => [s.textContent, s.querySelector("i").style.background]);
    /* hovering an event: zoomed in around it (drags of 60 px, as a user would) until it is drawn alone */
    const want = typeof CHECK === "object" && CHECK.hover;
    const svgNow = () => document.querySelector("svg[data-chart=timeline]");
    const drag = (x0, x1) => {
      const g = svgNow(), b = g.getBoundingClientRect(), y = b.top + 40;
      g.dispatchEvent(new MouseEvent("mousedown", {clientX: x0, clientY: y, bubbles: true}));
      g.dispatchEvent(new MouseEvent("mousemove", {clientX: x1, clientY: y, bubbles: true}));
      window.dispatchEvent(new MouseEvent("mouseup", {clientX: x1, clientY: y, bubbles: true}));
    };
    const xOf = t => { /* from two ticks' positions */
      const ticks = [...svgNow().querySelectorAll("text.tick")], b = svgNow().getBoundingClientRect();
      const [p, q] = [ticks[0], ticks[ticks.length - 1]], tp = +p.dataset.tick, tq = +q.dataset.tick;
      return b.left + +p.getAttribute("x") + (t - tp) / (tq - tp) * (+q.getAttribute("x") - +p.getAttribute("x"));
    };
    const find = () => [...svgNow().querySelectorAll("rect.ev")].find(e => e.dataset.name === want.name && e.dataset.start === String(want.start));
    for (let i = 0; want && !find() && i < 10; i++) { const x = xOf(want.start + want.dur / 2); drag(x - 30, x + 30); }
    const r = want && find();
    if (r) {
      const b = r.getBoundingClientRect();
      const at = {clientX: b.left + b.width / 2, clientY: b.top + b.height / 2, pageX: b.left + b.width / 2 + window.scrollX,
                  pageY: b.top + b.height / 2 + window.scrollY, bubbles: true};
      r.dispatchEvent(new MouseEvent("mousemove", at));
      const tip = document.getElementById("tip");
      out.hover = {name: tip.dataset.name, start: tip.dataset.start, dur: tip.dataset.dur, text: tip.innerText, shown: tip.style.display};
    }
    document.getElementById("timeline-reset").click();
    /* a drag over the second quarter of the plot zooms to it */
    const box = svgNow().getBoundingClientRect(), x0 = box.left + 220, w = box.width - 232;
    drag(x0 + w / 4, x0 + w / 2);
    const after = document.querySelector("svg[data-chart=timeline]");
    out.zoom = {range: document.getElementById("timeline-range")?.textContent,
                ticks: [...after.querySelectorAll("text.tick")].map(t => +t.dataset.tick)};
  });
  part(() => {
  out.dots = [...document.querySelectorAll("svg[data-chart=latency] circle")].map(c => ({run: c.dataset.run, step: c.dataset.step, value: +c.dataset.value}));
  out.util = [...document.querySelectorAll("svg[data-chart=utilisation] circle")].map(c => ({run: c.dataset.run, device: +c.dataset.device,
    step: c.dataset.step, col: c.dataset.col, value: +c.dataset.value}));
  out.latency_kind = document.querySelector("svg[data-chart=latency]")?.dataset.kind || null;
  out.diff_device = [...document.querySelectorAll("svg[data-chart=diff-device] rect")].map(r => ({run: r.dataset.run, col: r.dataset.col, value: +r.dataset.value}));
  });
  document.body.append(Object.assign(document.createElement("pre"), {id: "check", textContent: JSON.stringify(out)}));
})();
