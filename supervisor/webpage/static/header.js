// What the page's header says before anything else: who needs a person
// (a count, then each agent and task), the last carry-on only, whether the
// team is live, finished, stopped or dead, and every date in one style —
// "2026-12-07 03:10", in the team's zone, as warden's own lines write it.
// TestTheHeaderSaysWhoNeedsYou runs these under node.
"use strict";

const Head = (() => {
  const pad = (n) => String(n).padStart(2, "0");
  // zoneOf is the team's offset from UTC in minutes, read from a time the
  // team wrote (ps.now: "…+01:00", "…Z").
  function zoneOf(teamTime) {
    const m = /([+-])(\d\d):(\d\d)$/.exec(teamTime || "");
    return m ? (m[1] === "-" ? -1 : 1) * (60 * Number(m[2]) + Number(m[3])) : 0;
  }
  // stamp writes t as "YYYY-MM-DD HH:MM" in the team's zone (that of
  // teamTime), the style of warden's lines ("last update at …").
  function stamp(t, teamTime) {
    const ms = Date.parse(t);
    if (!isFinite(ms)) return "-";
    const d = new Date(ms + zoneOf(teamTime) * 60000);
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " +
      pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
  }
  // clock is t's time of day, "HH:MM:SS", in the team's zone.
  function clock(t, teamTime) {
    const ms = Date.parse(t);
    if (!isFinite(ms)) return "-";
    const d = new Date(ms + zoneOf(teamTime) * 60000);
    return pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + ":" + pad(d.getUTCSeconds());
  }
  const firstLine = (s) => String(s || "").split("\n").map((l) => l.trim()).find(Boolean) || "";
  // oneLine is a question on one line, its middle cut past 100 characters
  // so that what it asks ("Do you want to proceed?") stays.
  function oneLine(s) {
    const t = String(s || "").replace(/\s+/g, " ").trim();
    return t.length <= 100 ? t : t.slice(0, 40).trimEnd() + " … " + t.slice(-56).trimStart();
  }
  // needs lists who waits on a person, most urgent first: each agent on a
  // dialog (by name, with its question), the team's budget reached with
  // its agents parked, each task its agent said is blocked (or held).
  // Live is false on the page from disk: nobody can answer there, but the
  // dialog is still said.
  function needs(ps, isBlocked, blockedOn) {
    const out = [];
    for (const a of ps.agents || []) {
      if (a.state === "waiting" && a.dialog) out.push(a.name + " waits on a dialog: " + ((a.question ? oneLine(a.question) : firstLine(a.dialog)) || "?"));
    }
    if (ps.budget && ps.budget.paused) out.push("the team's budget is reached: agents parked until you resume");
    for (const t of (ps.tasks || []).filter(isBlocked)) out.push(t.id + " is blocked: " + (blockedOn(t).join("; ") || "-"));
    return out;
  }
  // needsLine is the header's first line: "2 need you: …; …" ("" when
  // nobody waits on a person).
  const needsLine = (list) => (list.length ? list.length + (list.length === 1 ? " needs" : " need") + " you: " + list.join(" · ") : "");
  // carried says the last carry-on only (when, after what, from which
  // checkpoints); earlier ones are counted, `warden status` lists them.
  function carried(list, ago, teamTime) {
    if (!list || !list.length) return "";
    const c = list[list.length - 1];
    let text = "Resumed " + stamp(c.at, teamTime) + " (" + ago(c.at) + ") after " + c.after + ": ";
    text += c.resumed && c.resumed.length ?
      c.resumed.map((r) => `${r.task} from ${r.agent}'s checkpoint at ${r.progress}% (${r.status}, ${ago(r.updated_at)})`).join("; ") :
      "no task had a checkpoint to resume from";
    if (list.length > 1) text += " · carried on " + list.length + " times (warden status lists each)";
    return text;
  }
  // pill is the team's badge: running or stopping while a warden answers;
  // from disk, how the run ended — finished, stopped, or dead (its
  // supervisor died); "no warden running" with no state; "connection lost"
  // while the page's own stream is down (a page served by a warden that
  // died with it). Only a live team is green.
  function pill(ps, disk, down, lost) {
    if (lost) return { text: "connection lost", cls: "down" };
    if (disk) {
      if (disk.ended === "finished") return { text: "finished", cls: "ended" };
      if (disk.ended === "stopped") return { text: "stopped", cls: "ended" };
      if (disk.died) return { text: "dead", cls: "down" };
    }
    if (down || !ps) return { text: down ? "no warden running" : "connecting", cls: "down" };
    return ps.stopping ? { text: "stopping", cls: "stopping" } : { text: "running", cls: "running" };
  }
  // outcome says what a person's answer to an agent's last dialog did,
  // as warden ps does: "last dialog declined by a person through the
  // page, 3m ago: Bash command …".
  function outcome(o, ago) {
    const via = o.via === "page" ? " through the page" : o.via === "cli" ? " through warden answer" : o.via ? " through " + o.via : "";
    return "last dialog " + o.outcome + " by a person" + via + ", " + ago(o.at) + (o.question ? ": " + oneLine(o.question) : "");
  }
  // overlap is two open tasks that modify the same files, in one line
  // (state.Overlap.Line's words).
  function overlap(o) {
    const [t1, t2] = o.tasks || [], [a1, a2] = o.agents || [];
    let s = "overlap: " + t1 + " (" + a1 + ") and " + t2 + " (" + a2 + ") both modify " + (o.paths || []).join(", ");
    if (o.action === "serialize") s += "; " + t2 + " held until " + t1 + " ends";
    return oneLine(s);
  }

  return { zoneOf, stamp, clock, needs, needsLine, carried, pill, outcome, overlap };
})();

if (typeof module !== "undefined") module.exports = Head;
