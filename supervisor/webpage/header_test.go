//go:build !e2e

package webpage

import (
	"os/exec"
	"strings"
	"testing"
)

// What a person on a phone reads first in the page's header
// (static/header.js, run under node): two agents on dialogs make "3 need
// you" with each agent named and its question, and the blocked task — not
// "blocked 0 · waiting 0"; of three carry-ons only the last is said, the
// others counted; every date in one style ("2026-12-07 03:10", in the
// team's zone, as warden's own "last update at …" is written); the badge
// of a team whose supervisor died says dead, not a green running; an
// agent's card after a person's Deny says its last dialog was declined
// (issue 35); two tasks that modify the same files are said on their
// agents' cards in one line (issue 37).
func TestTheHeaderSaysWhoNeedsYou(t *testing.T) {
	bin := node(t)
	script := `const H = require(process.argv[1]), F = require(process.argv[2]);
const ps = { now: "2026-12-07T07:40:00+01:00", agents: [
  { name: "w1", state: "running" },
  { name: "asker", state: "waiting", dialog: "Bash command\n  curl x\nDo you want to proceed?\n1. Yes", question: "Bash command: curl x — Do you want to proceed?" },
  { name: "zz", state: "waiting", dialog: "Do you want to make this edit?\n1. Yes" }],
  tasks: [{ id: "T1", state: "running", summary: "blocked", blockers: ["needs a key"] }, { id: "T2", state: "blocked", blocked_by: ["T1"] }] };
const ago = () => "5m ago";
const carried = [1, 2, 3].map((i) => ({ at: "2026-12-07T0" + i + ":10:00Z", after: "its supervisor died; last update at 2026-12-07 0" + (i + 1) + ":05",
  resumed: [{ task: "T1", agent: "w1", progress: 10 * i, status: "implementing", updated_at: "2026-12-07T0" + i + ":05:00Z" }] }));
console.log([
  H.needsLine(H.needs(ps, F.isBlocked, F.blockedOn)),
  H.needsLine(H.needs({ agents: [{ name: "w1", state: "running" }], tasks: [] }, F.isBlocked, F.blockedOn)) || "(none)",
  H.carried(carried, ago, ps.now),
  H.stamp("2026-12-07T02:10:00Z", ps.now) + " | " + H.stamp("2026-12-07T02:10:00Z", "2026-12-07T07:40:00Z") + " | " + H.clock("2026-12-07T23:59:58Z", ps.now),
  ["running", "finished", "stopped", "dead", "no warden running", "connection lost"].map((want, i) => {
    const args = [[ps, null, "", ""], [ps, { ended: "finished" }, "", ""], [ps, { ended: "stopped" }, "", ""],
      [ps, { died: true }, "", ""], [ps, null, "down", ""], [ps, null, "", "lost"]][i];
    const p = H.pill(...args);
    return p.text + (p.cls === "running" ? " (green)" : "");
  }).join(", "),
  H.outcome({ outcome: "declined", via: "page", at: "x", question: "Bash command\n  curl x\nDo you want to proceed?" }, ago),
  H.overlap({ tasks: ["T1", "T2"], agents: ["a", "b"], paths: ["src/x.go", "go.mod"], action: "serialize" }),
].join("\n"));`
	got, err := exec.Command(bin, "-e", script, "./static/header.js", "./static/format.js").CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, got)
	}
	want := []string{
		"3 need you: asker waits on a dialog: Bash command: curl x — Do you want to proceed? · zz waits on a dialog: Do you want to make this edit? · T1 is blocked: needs a key",
		"(none)",
		"Resumed 2026-12-07 04:10 (5m ago) after its supervisor died; last update at 2026-12-07 04:05: T1 from w1's checkpoint at 30% (implementing, 5m ago) · carried on 3 times (warden status lists each)",
		"2026-12-07 03:10 | 2026-12-07 02:10 | 00:59:58",
		"running (green), finished, stopped, dead, no warden running, connection lost",
		"last dialog declined by a person through the page, 5m ago: Bash command curl x Do you want to proceed?",
		"overlap: T1 (a) and T2 (b) both modify src/x.go, go.mod; T2 held until T1 ends",
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("node printed:\n%s", got)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("the header says\n  %q\nwant\n  %q", lines[i], want[i])
		}
	}
}
