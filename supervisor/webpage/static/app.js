// The dashboard page: the team's state, events and screens arrive over
// server-sent events (/api/events); everything is drawn with textContent,
// never HTML from the team.
"use strict";

const S = { ps: null, skew: 0, screens: {}, events: [], seen: new Set(), cards: {}, down: "", lost: "", refused: false, disk: null };
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const MAX_EVENTS = 200;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// now is the team's clock, estimated from its last answer.
function now() { return Date.now() - S.skew; }

function dur(ms) {
  if (!isFinite(ms)) return "-";
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + "s";
  const m = Math.round(s / 60);
  if (m < 60) return m + "m";
  return Math.floor(m / 60) + "h" + (m % 60 ? (m % 60) + "m" : "");
}
function ago(t) { return t ? dur(now() - Date.parse(t)) + " ago" : "never"; }
function zero(t) { return !t || t.startsWith("0001-"); }

let queued = false;
function redraw() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => { queued = false; draw(); });
}

function draw() {
  const ps = S.ps;
  const conn = $("conn");
  const p = S.refused ? { text: "refused", cls: "down" } : Head.pill(ps, S.disk, S.down, S.lost);
  conn.textContent = p.text;
  conn.className = "pill " + p.cls;
  if (S.down || S.lost || !ps) $("summary").textContent = (S.lost || S.down) + diskNote();
  if (!ps) return;
  $("team").textContent = ps.team;
  document.title = "warden · " + ps.team;
  // Who needs a person, first: the agents on dialogs (their cards come
  // first too), a budget reached, the blocked tasks.
  const needs = Head.needsLine(Head.needs(ps, Fmt.isBlocked, Fmt.blockedOn));
  $("needs").textContent = needs;
  $("needs").hidden = !needs;
  if (!S.down && !S.lost) {
    const n = {};
    for (const t of ps.tasks) n[Fmt.label(t)] = (n[Fmt.label(t)] || 0) + 1;
    $("summary").textContent = `pid ${ps.pid} · up ${dur(now() - Date.parse(ps.started_at))} · ` +
      `${ps.agents.length} agents · tasks done ${n.complete || 0}/${ps.tasks.length} · ` +
      `blocked ${n.blocked || 0} · waiting ${n.waiting || 0}`;
  }
  const prog = ps.tasks.length ? ps.tasks.reduce((a, t) => a + (t.state === "complete" ? 100 : t.progress), 0) / ps.tasks.length : 0;
  $("teambar").style.width = prog + "%";
  const carried = Head.carried(ps.carried_on, ago, ps.now);
  $("carried").textContent = carried;
  $("carried").hidden = !carried;
  // The run's own land (land_by): what landed, what stopped it, the land
  // task it went to or that it waits for a person.
  $("land").textContent = ps.land ? "land: " + ps.land.text : "";
  $("land").hidden = !ps.land;
  drawSpent(ps.usage, ps.budget);
  drawAgents(ps);
  drawMemory(ps.memory);
  drawBlocked(ps.tasks);
  drawGraph(ps.tasks);
  drawEvents();
}

// stamp is t as every date on the page is written: "2026-12-07 03:10",
// in the team's zone.
function stamp(t) { return Head.stamp(t, S.ps && S.ps.now); }

// drawSpent says what the run spent against the team's budget, as warden
// status does (state.TeamSpend), and a budget reached: with on_budget =
// "pause" the agents are parked until `warden resume`.
function drawSpent(u, b) {
  const box = $("spent");
  box.hidden = !u && !b;
  if (box.hidden) return;
  const tokens = u ? u.tokens.input + u.tokens.output : 0, cost = u && u.cost_usd != null ? u.cost_usd : null;
  let text = "spent " + count(tokens) + " tokens";
  if (cost !== null) text += ", " + dollars(cost);
  if (u && u.unpriced && u.unpriced.length) text += " (unpriced: " + u.unpriced.join(", ") + ")";
  const shares = [];
  if (b && !b.lifted && b.max_cost) shares.push("max_cost " + dollars(b.max_cost) + ": " + Math.floor(100 * (cost || 0) / b.max_cost) + "%");
  if (b && !b.lifted && b.max_tokens) shares.push("max_tokens " + b.max_tokens + ": " + Math.floor(100 * tokens / b.max_tokens) + "%");
  if (shares.length) text += " (" + shares.join(", ") + ")";
  if (b && b.paused) text += " — " + b.reached + ": agents parked until `warden resume`";
  else if (b && b.lifted) text += " — budget lifted by `warden resume`";
  else if (b && b.reached) text += " — " + b.reached;
  box.textContent = text;
  box.classList.toggle("paused", !!(b && b.paused));
  $("resumebox").hidden = !(b && b.paused);
}

// resumeAll lets the agents parked at the team's budget go on, the budget
// lifted for this run: `warden resume` from the page (budget_resumed, via
// page). Raising the budget instead is warden resume --max-cost's.
async function resumeAll() {
  const btn = $("resume"), said = $("resumesaid");
  btn.disabled = true;
  said.textContent = "resuming…";
  try {
    const r = await fetch("api/resume", { method: "POST", headers: { "Content-Type": "application/json" },
      credentials: "same-origin", body: "{}" });
    const body = await r.json().catch(() => ({}));
    said.textContent = r.ok ? (body.agents.length ? body.agents.join(", ") + " resumed" : "no agent was parked") :
      "not resumed: " + (body.error || r.status);
  } catch (e) {
    said.textContent = "not resumed: " + e;
  }
  btn.disabled = false;
}

// count writes a number of tokens short, as state.Count does: 950, 12.3k,
// 4.56M.
function count(n) {
  const trim = (s) => s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
  if (n < 1000) return String(n);
  if (n < 1e6) return trim((n / 1e3).toFixed(1)) + "k";
  return trim((n / 1e6).toFixed(2)) + "M";
}

// dollars writes an amount as config.Dollars does: $5.00, $0.0123.
function dollars(v) {
  return v !== 0 && Math.abs(v) < 0.01 ? "$" + v.toFixed(4) : "$" + v.toFixed(2);
}

// diskNote says the page shows the team as its state dir last held it (no
// warden runs it: the morning after): when that was written, how it ended.
function diskNote() {
  const d = S.disk;
  if (!d) return "";
  const how = d.ended === "finished" ? "the run finished" : d.ended === "stopped" ? "the run was stopped" : "its supervisor is gone";
  return " · " + how + "; its last state, written " + ago(d.updated_at) +
    " (" + stamp(d.updated_at) + "), and its last events";
}

function card(name) {
  let c = S.cards[name];
  if (c) return c;
  const root = el("article", "agent");
  root.dataset.agent = name;
  const top = el("div", "top");
  c = { root, name: el("span", "name", name), state: el("span", "state"), meta: el("span", "meta"),
    bar: el("div"), pct: el("span"), times: el("div", "times"), seed: el("div", "seed"), dialog: el("div", "dialog"),
    done: el("ul"), left: el("ul"), screen: el("pre", "screen") };
  // On a phone the screen is shown on demand (app.css hides it there).
  c.toggle = el("button", "showscreen", "screen");
  c.toggle.type = "button";
  c.toggle.addEventListener("click", () => {
    root.classList.toggle("screenon");
    c.toggle.textContent = root.classList.contains("screenon") ? "hide screen" : "screen";
  });
  top.append(c.name, c.state, c.meta, c.toggle);
  const progress = el("div", "progress");
  const bar = el("div", "bar");
  bar.append(c.bar);
  progress.append(bar, c.pct);
  const lists = el("div", "lists");
  const l1 = el("div"), l2 = el("div");
  l1.append(el("h3", "", "Completed"), c.done);
  l2.append(el("h3", "", "Remaining"), c.left);
  lists.append(l1, l2);
  c.answer = answerBox(c);
  c.limit = limitBox(c);
  root.append(top, progress, c.times, c.seed, c.dialog, c.answer, c.limit, lists, c.screen);
  c.progress = progress;
  c.lists = lists;
  S.cards[name] = c;
  return c;
}

// answerBox holds the two answers a person gives the dialog an agent waits
// on: shown only while it waits; each POSTs the choice with the dialog as
// the page showed it, so that warden answers that dialog or none.
function answerBox(c) {
  const box = el("div", "answer");
  const allow = el("button", "allow", "Allow once"), deny = el("button", "deny", "Deny");
  c.said = el("span", "said");
  for (const [b, choice] of [[allow, "allow-once"], [deny, "deny"]]) {
    b.type = "button";
    b.dataset.choice = choice;
    b.addEventListener("click", () => answer(c, choice));
  }
  box.append(allow, deny, c.said);
  box.hidden = true;
  return box;
}

// limitBox ends the usage-limit park of an agent's account (or of the
// agent alone, parked on its own word) for a person: `warden resume
// --account` from the page (account_resumed, by person, via page). Shown
// only while the agent is parked at a limit.
function limitBox(c) {
  const box = el("div", "limit");
  const go = el("button", "limitgo", "End its usage-limit wait");
  go.type = "button";
  c.limitSaid = el("span", "said");
  go.addEventListener("click", async () => {
    go.disabled = true;
    c.limitSaid.textContent = "resuming…";
    try {
      const r = await fetch("api/resume", { method: "POST", headers: { "Content-Type": "application/json" },
        credentials: "same-origin", body: JSON.stringify({ account: c.root.dataset.agent }) });
      const body = await r.json().catch(() => ({}));
      c.limitSaid.textContent = r.ok ? (body.agents || []).join(", ") + " go on" : "not resumed: " + (body.error || r.status);
    } catch (e) {
      c.limitSaid.textContent = "not resumed: " + e;
    }
    go.disabled = false;
  });
  box.append(go, c.limitSaid);
  box.hidden = true;
  return box;
}

function showAnswer(c, a) {
  const waits = a.state === "waiting" && !!a.dialog;
  if (waits && c.shown !== a.dialog) c.said.textContent = "";
  c.shown = waits ? a.dialog : "";
  c.shownID = waits ? a.dialog_id || "" : "";
  // No warden answers (the page the morning after, from disk): nobody
  // could type the answer, so no buttons.
  c.answer.hidden = !waits || !!S.down;
}

async function answer(c, choice) {
  const dialog = c.shown;
  if (!dialog) return;
  for (const b of c.answer.querySelectorAll("button")) b.disabled = true;
  c.said.textContent = choice === "deny" ? "denying…" : "allowing once…";
  try {
    const r = await fetch("api/answer/" + encodeURIComponent(c.root.dataset.agent), {
      method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
      body: JSON.stringify({ choice, dialog, dialog_id: c.shownID }),
    });
    const body = await r.json().catch(() => ({}));
    c.said.textContent = r.ok ? "answered " + body.choice + ": the dialog closed" : "not answered: " + (body.error || r.status);
  } catch (e) {
    c.said.textContent = "not answered: " + e;
  }
  for (const b of c.answer.querySelectorAll("button")) b.disabled = false;
}

function fill(ul, items, last) {
  ul.replaceChildren();
  const list = items || [];
  const shown = last ? list.slice(-3) : list.slice(0, 3);
  for (const it of shown) ul.append(el("li", "", it));
  if (!list.length) ul.append(el("li", "empty", "-"));
}

function drawAgents(ps) {
  const box = $("agents");
  const names = ps.agents.map((a) => a.name);
  for (const n of Object.keys(S.cards)) if (!names.includes(n)) { S.cards[n].root.remove(); delete S.cards[n]; }
  // The agents waiting for a person first (with their question and the
  // two answers), the rest in ps's order.
  const order = ps.agents.slice().sort((x, y) => (y.state === "waiting") - (x.state === "waiting"));
  order.forEach((a, i) => {
    const c = card(a.name);
    if (box.children[i] !== c.root) box.insertBefore(c.root, box.children[i] || null);
    c.root.classList.toggle("waiting", a.state === "waiting");
    c.state.textContent = a.state;
    c.state.className = "state " + a.state;
    const bits = [];
    if (a.task) bits.push("task " + a.task);
    if (a.attempt) bits.push("attempt " + a.attempt);
    if (a.pid && !zero(a.session_started)) bits.push("pid " + a.pid + " · up " + dur(now() - Date.parse(a.session_started)));
    if (a.viewers) bits.push(a.viewers + " attached");
    c.meta.textContent = bits.join(" · ");
    const task = ps.tasks.find((t) => t.id === (a.task || (a.checkpoint && a.checkpoint.task_id)));
    const cp = a.checkpoint;
    const pct = cp ? cp.progress_percent : task ? task.progress : 0;
    c.bar.style.width = pct + "%";
    c.pct.textContent = pct + "%";
    let next = "";
    if (a.state === "waiting") next = "no requests while it waits";
    else if (a.budget_held) next = "parked at the team's budget: no requests until warden resume";
    else if (a.overlap_held) next = "held until " + a.overlap_held + " ends (on_overlap = serialize)";
    else if (!zero(a.paused_until)) next = "parked at a usage limit until " + stamp(a.paused_until);
    else if (a.state === "admission") next = a.reason || "waits its turn";
    else if (!zero(a.requested_at)) next = "request typed " + ago(a.requested_at) + ", awaiting the answer";
    else if (!zero(a.next_request)) {
      const left = Date.parse(a.next_request) - now();
      next = left > 0 ? "next request in " + dur(left) : "next request due now";
    }
    // Its last record may be one from disk (a run carried on, the page the
    // morning after): its time is the record's.
    const lastAt = !zero(a.last_checkpoint) ? a.last_checkpoint : cp && !zero(cp.updated_at) ? cp.updated_at : "";
    c.times.textContent = "last checkpoint " + (lastAt ? ago(lastAt) : "never") +
      (cp ? " (" + cp.status + ")" : "") + (next ? " · " + next : "");
    // The task's seed fields and time worked, and whether it is blocked.
    const seed = task ? Fmt.details(task) : "";
    const blocked = task && Fmt.isBlocked(task) ? "blocked on: " + (Fmt.blockedOn(task).join("; ") || "-") : "";
    const overlaps = (ps.overlaps || []).filter((o) => (o.agents || []).includes(a.name)).map(Head.overlap);
    c.seed.textContent = [blocked, ...overlaps, seed].filter(Boolean).join(" · ");
    c.seed.hidden = !c.seed.textContent;
    c.root.classList.toggle("blocked", !!blocked);
    // The dialog it waits on; else what a person's answer to its last
    // one did ("declined", whatever the CLI's transcript says after it).
    const o = a.last_dialog;
    const waitsOn = a.state === "waiting" && !!a.dialog;
    c.dialog.hidden = !waitsOn && !o;
    c.dialog.classList.toggle("outcome", !waitsOn && !!o);
    c.dialog.textContent = waitsOn ? a.question || a.dialog : o ? Head.outcome(o, ago) : "";
    showAnswer(c, a);
    c.limit.hidden = zero(a.paused_until) || !!S.down;
    c.progress.hidden = c.lists.hidden = !task && !cp; // an agent without tasks
    fill(c.done, cp && cp.completed, true);
    fill(c.left, cp && cp.remaining, false);
    const scr = S.screens[a.name];
    const text = scr ? scr.rows.join("\n") : "(no screen: " + a.state + ")";
    if (c.screen.textContent !== text) {
      const pre = c.screen;
      const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.textContent = text;
      if (atEnd || !pre.dataset.drawn) pre.scrollTop = pre.scrollHeight; // follow the newest lines
      pre.dataset.drawn = "1";
    }
  });
}

const COLORS = { complete: "#22a06b", running: "#3b82f6", verifying: "#14b8a6", pending: "#6b7785",
  blocked: "#e5a50a", waiting: "#4b5563", failed: "#e5484d" };

// The Blocked list: task, agent, blockers — as STATUS.md and the dashboard
// list them.
function drawBlocked(tasks) {
  const blocked = tasks.filter(Fmt.isBlocked);
  $("blockedbox").hidden = !blocked.length;
  const key = JSON.stringify(blocked.map((t) => [t.id, t.owner, Fmt.blockedOn(t)]));
  const ul = $("blocked");
  if (ul.dataset.key === key) return;
  ul.dataset.key = key;
  ul.replaceChildren(...blocked.map((t) => {
    const li = el("li");
    li.dataset.task = t.id;
    li.append(el("span", "id", t.id), el("span", "owner", t.owner || "-"),
      el("span", "why", Fmt.blockedOn(t).join("; ") || "-"));
    return li;
  }));
}

// size is n bytes as config.FormatSize writes them: in the unit it is a
// whole number of, as a team file writes it ("4 GiB", "200 MB"), else in
// powers of 1024 as /proc/meminfo counts them.
function size(n) {
  for (const [b, name] of [[2 ** 30, "GiB"], [1e9, "GB"], [2 ** 20, "MiB"], [1e6, "MB"]]) {
    if (n >= b && n % b === 0 && (n / b < 1000 || b >= 1e9)) return n / b + " " + name;
  }
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n, i = 0;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i && Math.abs(v) < 10 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)) + " " + u[i];
}

// drawMemory shows max_running, memory_floor and memory_max at work, and
// the footprint warden expects of each CLI (learned, or its default).
function drawMemory(m) {
  $("memorybox").hidden = !m;
  if (!m) return;
  const head = [m.running + " running" + (m.max_running ? " (max_running " + m.max_running + ")" : ""),
    (m.waiting || 0) + " waiting their turn"];
  if (m.memory_floor) head.push("MemAvailable " + (m.memory_available ? size(m.memory_available) : "-") + " · memory_floor " + size(m.memory_floor));
  if (m.memory_max_by) head.push("memory_max held by " + (m.memory_max_by === "cgroup" ? "cgroups" : "the RSS watch"));
  const fps = m.footprints || [];
  const key = JSON.stringify([head, m.memory_max_note, fps]);
  const box = $("memory");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const note = el("div", "note", m.memory_max_note ? "no cgroup: " + m.memory_max_note : "");
  note.hidden = !m.memory_max_note;
  const ul = el("ul", "footprints");
  for (const f of fps) {
    const li = el("li");
    li.dataset.profile = f.profile;
    li.append(el("span", "id", f.profile), el("span", "", size(f.bytes)),
      el("span", "why", !f.learned ? "default: not learned yet" : f.sessions ?
        "learned: the highest peak of " + f.sessions + " ended session" + (f.sessions === 1 ? "" : "s") + " and those running" :
        "learned from the sessions running"));
    ul.append(li);
  }
  if (!fps.length) ul.append(el("li", "empty", "no footprint yet: the trees are read while agents run"));
  box.replaceChildren(el("div", "sum", head.join(" · ")), note, el("h3", "", "footprint per CLI"), ul);
}

function drawGraph(tasks) {
  const box = $("graph");
  if (!tasks.length) { box.replaceChildren(el("span", "empty", "no tasks")); return; }
  const byId = Object.fromEntries(tasks.map((t) => [t.id, t]));
  const depth = {};
  const deep = (id, seen) => {
    if (depth[id] !== undefined) return depth[id];
    if (seen.has(id) || !byId[id]) return 0;
    seen.add(id);
    const deps = byId[id].blocked_by || [];
    return (depth[id] = deps.length ? 1 + Math.max(...deps.map((d) => deep(d, seen))) : 0);
  };
  const cols = [];
  for (const t of tasks) (cols[deep(t.id, new Set())] ||= []).push(t);
  const W = 170, H = 44, GX = 60, GY = 14, pos = {};
  cols.forEach((col, x) => col.forEach((t, y) => { pos[t.id] = { x: 10 + x * (W + GX), y: 10 + y * (H + GY) }; }));
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("width", 20 + cols.length * (W + GX));
  svg.setAttribute("height", 20 + Math.max(...cols.map((c) => c.length)) * (H + GY));
  for (const t of tasks) for (const d of t.blocked_by || []) {
    if (!pos[d]) continue;
    const a = pos[d], b = pos[t.id];
    const p = document.createElementNS(SVG, "path");
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
    p.setAttribute("d", `M${x1},${y1} C${x1 + GX / 2},${y1} ${x2 - GX / 2},${y2} ${x2},${y2}`);
    p.setAttribute("class", "edge");
    svg.append(p);
  }
  for (const t of tasks) {
    const { x, y } = pos[t.id];
    const g = document.createElementNS(SVG, "g");
    g.dataset.task = t.id;
    const r = document.createElementNS(SVG, "rect");
    r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", W); r.setAttribute("height", H);
    r.setAttribute("rx", 6); r.setAttribute("fill", COLORS[Fmt.label(t)] || "#6b7785");
    const t1 = document.createElementNS(SVG, "text");
    t1.setAttribute("x", x + 8); t1.setAttribute("y", y + 17);
    t1.textContent = t.id + " · " + Fmt.label(t);
    const t2 = document.createElementNS(SVG, "text");
    t2.setAttribute("x", x + 8); t2.setAttribute("y", y + 34);
    t2.textContent = ((t.title || "").slice(0, 18)) + "  " + (t.state === "complete" ? 100 : t.progress) + "%" + (t.owner ? " " + t.owner : "");
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = [t.title || t.id, Fmt.details(t)].filter(Boolean).join("\n");
    g.append(r, t1, t2, tip);
    svg.append(g);
  }
  box.replaceChildren(svg);
}

function drawEvents() {
  const ol = $("events");
  if (ol.dataset.count === String(S.events.length) && ol.dataset.last === (S.events[0] || {}).ts) return;
  ol.dataset.count = S.events.length;
  ol.dataset.last = (S.events[0] || {}).ts;
  ol.replaceChildren(...S.events.map((e) => {
    const li = el("li");
    li.dataset.event = e.event;
    const rest = Object.entries(e).filter(([k, v]) => !["ts", "event", "agent", "task"].includes(k) && v !== "")
      .map(([k, v]) => k + "=" + (typeof v === "string" ? v : JSON.stringify(v))).join(" ");
    li.append(el("span", "ts", Head.clock(e.ts, S.ps && S.ps.now)), el("span", "ev", e.event),
      el("span", "", [e.agent, e.task].filter(Boolean).join(" · ")), el("span", "kv", rest));
    li.title = rest;
    return li;
  }));
}

function eventKey(e) { return e.ts + " " + e.event + " " + (e.agent || "") + " " + (e.task || ""); }

function connect() {
  const src = new EventSource("api/events");
  src.addEventListener("ps", (m) => {
    S.ps = JSON.parse(m.data);
    S.skew = Date.now() - Date.parse(S.ps.now);
    S.down = "";
    S.disk = null;
    S.refused = false;
    S.lost = "";
    redraw();
  });
  // No warden runs the team: its last state from the state dir (the
  // "down" that follows says why), drawn as it was.
  src.addEventListener("disk", (m) => {
    const d = JSON.parse(m.data);
    S.ps = d.ps;
    S.skew = Date.now() - Date.parse(d.ps.now);
    S.disk = d;
    S.lost = "";
    redraw();
  });
  src.addEventListener("screen", (m) => {
    const s = JSON.parse(m.data);
    S.screens[s.agent] = s;
    redraw();
  });
  src.addEventListener("event", (m) => {
    const e = JSON.parse(m.data);
    const key = eventKey(e);
    if (S.seen.has(key)) return; // sent again after a reconnect
    S.seen.add(key);
    S.events.unshift(e);
    if (S.events.length > MAX_EVENTS) S.seen.delete(eventKey(S.events.pop()));
    redraw();
  });
  src.addEventListener("down", (m) => {
    S.down = "no warden answers for this team: " + JSON.parse(m.data).error;
    S.lost = "";
    redraw();
  });
  // A stream the server refused (503: the page has as many viewers as it
  // serves; 401: the token changed) is not retried by the browser: again
  // in a few seconds.
  src.onerror = () => {
    if (src.readyState !== EventSource.CLOSED) {
      // The browser tries again by itself: meanwhile the team is not
      // shown as running (the page's own server may have died with its
      // warden, under warden run --http).
      S.lost = "the page lost its connection to its server: trying again (warden run --http's page goes with its warden)";
      redraw();
      return;
    }
    S.down = "the page's event stream was refused (as many viewers as it serves, or a new token): trying again";
    S.refused = true;
    redraw();
    setTimeout(connect, 5000);
  };
}

$("resume").addEventListener("click", resumeAll);
connect();
setInterval(redraw, 1000); // ages and countdowns move
