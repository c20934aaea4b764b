// mur view: the page. It opens one EventSource on /api/events: a snapshot,
// then member, task and call events, each carrying the whole object, and a
// status event when the view's live flag changes. A click on a task fetches
// its timeline from /api/timeline. Plain DOM and SVG, no library.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const NODE_W = 210, NODE_H = 80, COL_GAP = 130, ROW_GAP = 40, MAX_ROWS = 6, PAD = 30;
const BAD = new Set(["failed", "timed_out", "no_answer", "unreachable", "rejected", "canceled", "abandoned"]);
const MAX_CALL_ROWS = 400;

const S = { kind: "", id: "", live: true, connected: false, members: new Map(), calls: new Map(), tasks: new Map(), filter: null, open: null, openRecords: -1 };
const token = new URLSearchParams(location.search).get("token");
const $ = (id) => document.getElementById(id);

function api(path, params) {
  const q = new URLSearchParams(params || {});
  if (token) q.set("token", token);
  const s = q.toString();
  return s ? path + "?" + s : path;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function clock(ms) {
  const d = new Date(ms);
  const p = (n, w) => String(n).padStart(w || 2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function since(ms, from) {
  return "+" + ((ms - from) / 1000).toFixed(3) + "s";
}

function short(id) { return id ? id.slice(0, 12) + "…" : ""; }

function callClass(state) {
  if (state === "started" || state === "busy" || state === "completed") return "c-" + state;
  return "c-bad";
}

function callLabel(c) {
  if (c.state === "busy") return c.offers > 1 ? `busy ×${c.offers}` : "busy";
  return c.state;
}

// ---- the event stream ----

// schedule renders soon, at most every RENDER_EVERY ms: a burst of events
// (a formation of many members calling each other) costs one repaint of the
// lists, while each call's arrow is updated at once (updateArrow).
const RENDER_EVERY = 100;
let renderTimer = 0, lastRender = 0;
function schedule() {
  if (renderTimer) return;
  renderTimer = setTimeout(() => { renderTimer = 0; render(); }, Math.max(0, RENDER_EVERY - (Date.now() - lastRender)));
}

function connect() {
  const es = new EventSource(api("/api/events"));
  es.addEventListener("snapshot", (ev) => {
    const s = JSON.parse(ev.data);
    S.kind = s.kind; S.id = s.id; S.live = s.live; S.connected = true;
    S.members = new Map(s.members.map((m) => [m.name, m]));
    S.tasks = new Map(s.tasks.map((t) => [t.member + "/" + t.id, t]));
    S.calls = new Map(s.calls.map((c) => [c.id, c]));
    render();
  });
  es.addEventListener("member", (ev) => { const m = JSON.parse(ev.data); S.members.set(m.name, m); schedule(); });
  es.addEventListener("task", (ev) => { const t = JSON.parse(ev.data); S.tasks.set(t.member + "/" + t.id, t); schedule(); });
  es.addEventListener("call", (ev) => {
    const c = JSON.parse(ev.data);
    S.calls.set(c.id, c);
    updateArrow(c); // at once: every state a call enters is shown, however soon the next one comes
    schedule();
  });
  es.addEventListener("status", (ev) => { S.live = JSON.parse(ev.data).live; renderHeader(); });
  es.onerror = () => { S.connected = false; renderHeader(); };
  es.onopen = () => { S.connected = true; renderHeader(); };
}

// ---- layout: members in columns by their longest call path from the entry ----

function layout() {
  const names = [...S.members.keys()];
  const depth = new Map(names.map((n) => [n, 0]));
  for (let round = 0; round < names.length; round++) { // longest path, bounded so a cycle cannot loop
    let moved = false;
    for (const n of names) for (const c of S.members.get(n).callees || []) {
      if (depth.has(c) && depth.get(c) < depth.get(n) + 1 && depth.get(n) + 1 < names.length) { depth.set(c, depth.get(n) + 1); moved = true; }
    }
    if (!moved) break;
  }
  const layers = [];
  for (const n of names) {
    const m = S.members.get(n);
    const d = m.entry ? 0 : depth.get(n);
    (layers[d] = layers[d] || []).push(n);
  }
  const cols = [];
  for (const l of layers) if (l) for (let i = 0; i < l.length; i += MAX_ROWS) cols.push(l.slice(i, i + MAX_ROWS));
  // Every column sits on one grid of rows, each centred by whole rows, so the
  // gaps between rows line up across columns and an edge can run along one.
  const rows = Math.max(1, ...cols.map((c) => c.length));
  const height = PAD * 2 + rows * NODE_H + (rows - 1) * ROW_GAP + NODE_H; // a row's room above for edges that pass over
  const pos = new Map();
  cols.forEach((col, ci) => {
    const first = Math.floor((rows - col.length) / 2);
    col.forEach((n, ri) => {
      pos.set(n, { x: PAD + ci * (NODE_W + COL_GAP) + NODE_W / 2, y: PAD + NODE_H + (first + ri) * (NODE_H + ROW_GAP) + NODE_H / 2 });
    });
  });
  const width = PAD * 2 + Math.max(1, cols.length) * NODE_W + Math.max(0, cols.length - 1) * COL_GAP + 80;
  return { pos, width, height };
}

// route is the path from a to b, shifted by off pixels, and a point on it
// for a label. An edge to the next column is one curve; an edge that passes
// columns runs along the gap above b's row, so it crosses no node.
function route(a, b, off) {
  const half = NODE_W / 2, q = COL_GAP / 4;
  const y1 = a.y + off, y2 = b.y + off;
  if (Math.abs(a.x - b.x) < 1) { // same column: bow out to the right
    const x1 = a.x + half, x2 = b.x + half + 2;
    return { d: `M${x1},${y1} C${x1 + 80 + off},${y1} ${x2 + 80 + off},${y2} ${x2},${y2}`, mx: x1 + 60 + off, my: (y1 + y2) / 2 };
  }
  if (b.x > a.x && b.x - a.x > NODE_W + COL_GAP + 1) {
    const x1 = a.x + half, x2 = b.x - half - 2, gy = b.y - NODE_H / 2 - ROW_GAP / 2 + off / 2;
    const ax = x1 + COL_GAP / 2, bx = x2 - COL_GAP / 2;
    return { d: `M${x1},${y1} C${x1 + q},${y1} ${ax - q},${gy} ${ax},${gy} L${bx},${gy} C${bx + q},${gy} ${x2 - q},${y2} ${x2},${y2}`, mx: (ax + bx) / 2, my: gy };
  }
  const x1 = b.x > a.x ? a.x + half : a.x - half, x2 = b.x > a.x ? b.x - half - 2 : b.x + half + 2;
  const cx = (x1 + x2) / 2;
  return { d: `M${x1},${y1} C${cx},${y1} ${cx},${y2} ${x2},${y2}`, mx: cx, my: (y1 + y2) / 2 };
}

let L = { pos: new Map(), width: 400, height: 200 };

function renderGraph() {
  L = layout();
  const g = $("graph");
  g.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
  const nodes = $("nodes"), edges = $("edges");
  for (const m of S.members.values()) {
    let n = nodes.querySelector(`g.node[data-member="${CSS.escape(m.name)}"]`);
    if (!n) {
      n = svg("g", { "data-member": m.name, tabindex: "0", role: "button" });
      n.append(svg("rect", { width: NODE_W, height: NODE_H, rx: 8 }));
      for (const [cls, y] of [["name", 27], ["cap", 49], ["state", 69]]) {
        const t = svg("text", { x: 12, y, class: cls }); n.append(t);
      }
      const e = svg("text", { x: NODE_W - 12, y: 18, class: "entry", "text-anchor": "end" }); n.append(e);
      n.addEventListener("click", () => selectMember(m.name));
      n.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); selectMember(m.name); } });
      nodes.append(n);
    }
    const p = L.pos.get(m.name) || { x: 0, y: 0 };
    n.setAttribute("transform", `translate(${p.x - NODE_W / 2},${p.y - NODE_H / 2})`);
    n.setAttribute("class", `node st-${m.state}` + (S.filter === m.name ? " selected" : ""));
    n.setAttribute("data-state", m.state);
    const cap = m.capsule ? `${m.capsule}@${m.version}` : "not started yet";
    const state = m.state + (m.live_tasks > 1 ? ` · ${m.live_tasks} tasks` : "") + (m.state === "ended" && m.exit ? ` (${m.exit})` : "");
    n.setAttribute("aria-label", `member ${m.name}, ${cap}, ${state}; show its tasks`);
    n.querySelector(".name").textContent = m.name;
    n.querySelector(".cap").textContent = cap;
    n.querySelector(".state").textContent = state;
    n.querySelector(".entry").textContent = m.entry ? "ENTRY" : "";
  }
  const want = new Set();
  for (const m of S.members.values()) for (const c of m.callees || []) {
    const a = L.pos.get(m.name), b = L.pos.get(c);
    if (!a || !b) continue;
    const key = m.name + "\u0000" + c;
    want.add(key);
    let e = [...edges.children].find((x) => x.dataset.key === key);
    if (!e) {
      e = svg("path", { class: "edge", "marker-end": "url(#m-edge)", "data-from": m.name, "data-to": c });
      e.dataset.key = key;
      e.append(svg("title"));
      edges.append(e);
    }
    e.firstChild.textContent = `roster: ${m.name} may call ${c}`;
    e.setAttribute("d", route(a, b, -6).d);
  }
  for (const e of [...edges.children]) if (!want.has(e.dataset.key)) e.remove();
}

// updateArrow shows a call on its pair's arrow: the latest call between two
// members wins; the arrow keeps its element, so each state it enters is an
// attribute change on one element.
function updateArrow(c) {
  const a = L.pos.get(c.from), b = L.pos.get(c.to);
  if (!a || !b) return;
  const arrows = $("arrows");
  const key = c.from + "\u0000" + c.to;
  let g = [...arrows.children].find((x) => x.dataset.key === key);
  if (g && g.dataset.at && Number(g.dataset.at) > c.at && g.dataset.call !== c.id) return; // a newer call holds the arrow
  if (!g) {
    g = svg("g", { role: "img" });
    g.dataset.key = key;
    g.append(svg("path"), svg("text", { "text-anchor": "middle" }));
    arrows.append(g);
  }
  const n = [...S.calls.values()].filter((x) => x.from === c.from && x.to === c.to).length;
  const r = route(a, b, 8);
  const cls = callClass(c.state);
  g.setAttribute("class", `call ${cls}`);
  g.setAttribute("data-from", c.from);
  g.setAttribute("data-to", c.to);
  g.setAttribute("data-call", c.id);
  g.setAttribute("data-at", String(c.at));
  g.setAttribute("data-history", c.history.map((s) => s.state).join(" "));
  if (c.history.length) g.setAttribute("data-step-at", String(c.history[c.history.length - 1].at)); // when its trace recorded the state shown
  if (g.getAttribute("data-state") !== c.state) g.setAttribute("data-state", c.state);
  g.setAttribute("aria-label", `call ${c.id} from ${c.from} to ${c.to}: ${callLabel(c)}` + (n > 1 ? ` (${n} calls on this edge)` : ""));
  const p = g.querySelector("path");
  p.setAttribute("d", r.d);
  p.setAttribute("marker-end", `url(#m-${cls.slice(2)})`);
  const t = g.querySelector("text");
  t.setAttribute("x", r.mx); t.setAttribute("y", r.my - 6);
  t.textContent = callLabel(c) + (n > 1 ? ` ×${n}` : "");
}

function renderArrows() {
  const latest = new Map();
  for (const c of S.calls.values()) {
    const k = c.from + "\u0000" + c.to;
    if (!latest.has(k) || latest.get(k).at <= c.at) latest.set(k, c);
  }
  for (const c of latest.values()) updateArrow(c);
}

// ---- the side panes ----

function selectMember(name) {
  S.filter = S.filter === name ? null : name;
  render();
}

function chips(history, from) {
  const box = el("span", { class: "steps" });
  for (const s of history) {
    box.append(el("span", { class: "chip " + s.state, title: clock(s.at) + (s.note ? " — " + s.note : ""), text: `${s.state} ${since(s.at, from)}` }));
  }
  return box;
}

function renderTasks() {
  const ul = $("tasks");
  ul.replaceChildren();
  let shown = 0;
  for (const m of S.members.values()) {
    if (S.filter && S.filter !== m.name) continue;
    const ts = [...S.tasks.values()].filter((t) => t.member === m.name);
    if (!ts.length) continue;
    ul.append(el("li", { class: "group-h", text: `${m.name} — ${ts.length} task${ts.length > 1 ? "s" : ""}` }));
    for (const t of ts) {
      shown++;
      const from = t.caller ? `from ${t.caller}` : t.source === "task_md" ? "the launch task" : "at its door";
      const b = el("button", { type: "button", class: "task", "data-member": t.member, "data-task": t.id, "data-state": t.state,
        "aria-label": `task ${t.id} of ${t.member}, ${from}, ${t.state}; open its timeline` },
        el("span", { class: "id", text: short(t.id) }), " ",
        el("span", { class: "meta", text: `${from} · ${t.turns} turn${t.turns === 1 ? "" : "s"} · ${t.input_tokens} in / ${t.output_tokens} out tokens` + (t.status ? ` · ${t.status}` : "") }),
        chips(t.history, t.at));
      b.addEventListener("click", () => openTimeline(t.member, t.id));
      ul.append(el("li", {}, b));
    }
  }
  $("no-tasks").hidden = shown > 0;
  $("show-all").hidden = !S.filter;
}

function renderCalls() {
  const tb = $("calls").tBodies[0];
  tb.replaceChildren();
  const all = [...S.calls.values()].sort((a, b) => b.at - a.at).slice(0, MAX_CALL_ROWS);
  for (const c of all) {
    tb.append(el("tr", { "data-call": c.id, "data-state": c.state },
      el("td", { class: "t", text: clock(c.at) }),
      el("td", { title: c.id, text: `${c.from} → ${c.to}` }),
      el("td", {}, chips(c.history, c.at)),
      el("td", { class: "t", text: c.duration_ms != null ? `${c.duration_ms} ms` : "…" })));
  }
  $("no-calls").hidden = all.length > 0;
}

function renderHeader() {
  const what = S.kind === "session" ? "session" : "formation";
  $("title").textContent = S.id ? `${what} ${S.id}` : "connecting…";
  const live = $("live");
  if (!S.connected) { live.className = "pill lost"; live.textContent = "reconnecting…"; return; }
  live.className = S.live ? "pill live" : "pill ended";
  live.textContent = S.live ? "live" : "ended — replayed from its records";
  document.title = `mur view — ${S.id}`;
}

function render() {
  lastRender = Date.now();
  renderHeader();
  renderGraph();
  renderArrows();
  renderTasks();
  renderCalls();
  if (S.open) {
    const t = S.tasks.get(S.open.member + "/" + S.open.id);
    if (t && (t.records !== S.openRecords || t.state !== S.openState)) loadTimeline();
  }
}

// ---- a task's timeline ----

function openTimeline(member, id) {
  S.open = { member, id }; S.openRecords = -1; S.openState = "";
  $("timeline-pane").hidden = false;
  $("timeline-h").textContent = `Timeline — ${member}`;
  $("timeline-sub").textContent = id;
  $("close-timeline").focus();
  loadTimeline();
}

async function loadTimeline() {
  const o = S.open;
  const t = S.tasks.get(o.member + "/" + o.id);
  if (t) { S.openRecords = t.records; S.openState = t.state; }
  const r = await fetch(api("/api/timeline", { member: o.member, task: o.id }));
  if (!r.ok || S.open !== o) return;
  const tl = await r.json();
  const ol = $("timeline");
  ol.replaceChildren();
  const from = tl.items.length ? tl.items[0].at : 0;
  for (const it of tl.items) {
    const nums = [];
    if (it.ms != null) nums.push(it.kind === "inference" ? `latency ${it.ms} ms` : `${it.ms} ms`);
    if (it.in != null) nums.push(`${it.in} in / ${it.out} out tokens`);
    ol.append(el("li", { class: it.kind, "data-kind": it.kind, "data-call": it.call_id || null },
      el("span", { class: "when", title: clock(it.at), text: since(it.at, from) }),
      el("span", { class: "title", text: it.title }),
      it.status ? el("span", { class: "chip " + it.status, text: it.status }) : null,
      nums.length ? el("span", { class: "num", text: nums.join(" · ") }) : null,
      it.call_id ? el("div", { class: "detail", text: `call ${it.call_id}` + (it.detail ? " · " + it.detail : "") }) :
        it.detail ? el("div", { class: "detail", text: it.detail }) : null));
  }
  if (t && t.status && !["completed", "failed", "canceled", "rejected"].includes(t.state)) {
    ol.append(el("li", { class: "waiting", "data-kind": "waiting" }, el("span", { class: "title", text: t.status })));
  }
}

function closeTimeline() {
  const o = S.open;
  S.open = null;
  $("timeline-pane").hidden = true;
  if (o) { const b = document.querySelector(`button.task[data-task="${CSS.escape(o.id)}"]`); if (b) b.focus(); }
}

document.addEventListener("DOMContentLoaded", () => {
  $("close-timeline").addEventListener("click", closeTimeline);
  $("show-all").addEventListener("click", () => { S.filter = null; render(); });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && S.open) closeTimeline(); });
  connect();
});
