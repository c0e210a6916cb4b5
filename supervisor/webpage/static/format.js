// What the page says of a task, in the words of warden's STATUS.md and
// dashboard (Go: queue.Status.Label, IsBlocked, BlockedOn, Subtasks and
// queue.WorkedText). TestPageSaysWhatStatusSays runs these under node
// against the Go functions.
"use strict";

const Fmt = (() => {
  const open = (t) => t.state !== "complete" && t.state !== "failed";
  // Blocked on something a person may have to do: its agent said so, or it
  // is held (its worktree's branches conflict).
  const isBlocked = (t) => open(t) && (t.summary === "blocked" || !!t.held);
  const blockedOn = (t) => (t.held && t.reason ? [t.reason] : []).concat(t.blockers || []);
  // "blocked", "waiting" (for its blocked_by tasks) or its state.
  const label = (t) => (isBlocked(t) ? "blocked" : t.state === "blocked" ? "waiting" : t.state);
  // A duration in seconds as a person writes it: 40s, 25m, 2h, 1h10m.
  function short(sec) {
    const s = Math.floor(sec);
    if (s < 60) return s + "s";
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    if (h === 0) return m + "m";
    return m === 0 ? h + "h" : h + "h" + m + "m";
  }
  // Time worked beside the estimate: "1h10m / est. 2h", "… (over by 30m)".
  function worked(t) {
    const w = t.worked_seconds || 0, e = t.estimate_seconds || 0;
    if (e <= 0 && w <= 0) return "";
    if (e <= 0) return short(w);
    if (w > e) return short(w) + " / est. " + short(e) + " (over by " + short(w - e) + ")";
    return short(w) + " / est. " + short(e);
  }
  const subtasks = (t) => (t.subtasks_total > 0 ? (t.subtasks_done || 0) + "/" + t.subtasks_total : "");
  // The seed fields and time worked of a task, on one line.
  function details(t) {
    const bits = [];
    if (t.phase) bits.push("phase " + t.phase);
    if (t.current_step) bits.push("step: " + t.current_step);
    if (subtasks(t)) bits.push("subtasks " + subtasks(t));
    if (t.errors) bits.push(t.errors + (t.errors === 1 ? " error" : " errors"));
    if (worked(t)) bits.push("worked " + worked(t));
    return bits.join(" · ");
  }
  return { isBlocked, blockedOn, label, short, worked, subtasks, details };
})();

if (typeof module !== "undefined") module.exports = Fmt;
