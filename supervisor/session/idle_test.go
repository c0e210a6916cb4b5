//go:build !e2e

package session

import (
	"testing"
	"time"
)

// idleRun drives a monitor the way the session's loop does, on a made-up
// clock: each request is answered answerIn later with a checkpoint (moves
// says whether that answer moves the checkpoints on), the answer is the
// agent's last output, and a nudge or agent_idle due while atPrompt is
// false (a turn runs, a dialog is open) is put off as the loop puts it off.
type idleRun struct {
	m        *monitor
	now, out time.Time
	answerIn time.Duration
	moves    func(n int) bool
	atPrompt func(now time.Time) bool
	answers  int
	nudges   []time.Time
	idles    []time.Time
	stale    int
}

func newIdleRun(t0 time.Time) *idleRun {
	m := testMonitor(t0)
	m.idle = idleClock{after: 20 * time.Minute, nudges: 2}
	return &idleRun{m: m, now: t0, out: t0, answerIn: 10 * time.Second,
		moves: func(n int) bool { return n == 1 }, atPrompt: func(time.Time) bool { return true }}
}

func (r *idleRun) until(end time.Time) {
	var answerAt time.Time
	for r.now.Before(end) {
		act, wake := r.m.next(r.now, r.out)
		switch act {
		case actRequest, actCorrect, actWarn:
			answerAt = r.now.Add(r.answerIn)
			continue
		case actNudge, actIdle:
			if !r.atPrompt(r.now) {
				r.m.idleNotYet(act, r.now)
				continue
			}
			if act == actNudge {
				r.nudges = append(r.nudges, r.now)
			} else {
				r.idles = append(r.idles, r.now)
			}
			continue
		case actStale, actStalled:
			r.stale++
			continue
		case actNone:
		default:
			continue
		}
		next := end
		if !wake.IsZero() && wake.Before(next) {
			next = wake
		}
		if !answerAt.IsZero() && answerAt.Before(next) {
			next = answerAt
		}
		r.now = next
		if !answerAt.IsZero() && !r.now.Before(answerAt) {
			answerAt = time.Time{}
			r.answers++
			r.out = r.now
			if r.moves(r.answers) {
				r.m.moved(r.now)
			}
			r.m.checkpoint(r.now, false)
		}
	}
}

// An agent that answers every request with the same block is nudged
// idle_nudges times, idle_after apart, then said idle once — and never
// more, however long the night.
func TestIdleAgentNudgedThenToldOnce(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newIdleRun(t0)
	r.until(t0.Add(8 * time.Hour))
	if len(r.nudges) != 2 || len(r.idles) != 1 {
		t.Fatalf("%d nudges, %d agent_idle in 8h (want 2, 1): nudges %v, idle %v", len(r.nudges), len(r.idles), r.nudges, r.idles)
	}
	first := t0.Add(5*time.Minute + 10*time.Second) // the first answer: the checkpoints' last move
	for i, want := range []time.Time{first.Add(20 * time.Minute), first.Add(40 * time.Minute)} {
		if !r.nudges[i].Equal(want) {
			t.Errorf("nudge %d at %v, want %v", i+1, r.nudges[i].Sub(t0), want.Sub(t0))
		}
	}
	if want := first.Add(60 * time.Minute); !r.idles[0].Equal(want) {
		t.Errorf("agent_idle at %v, want %v", r.idles[0].Sub(t0), want.Sub(t0))
	}
	if r.stale > 0 || r.answers < 90 {
		t.Errorf("an agent that answers on time: %d stale alarms, %d answers", r.stale, r.answers)
	}
}

// An agent whose checkpoints move (its progress or Completed list changes
// at every answer, or every third) is never nudged.
func TestMovingAgentNeverNudged(t *testing.T) {
	for _, every := range []int{1, 3} {
		t0 := time.Unix(1000, 0)
		r := newIdleRun(t0)
		r.moves = func(n int) bool { return n%every == 0 }
		r.until(t0.Add(8 * time.Hour))
		if len(r.nudges)+len(r.idles) > 0 {
			t.Errorf("moving every %d answers: nudged at %v, idle at %v", every, r.nudges, r.idles)
		}
	}
}

// A checkpoint that moves after agent_idle starts the watch again; the
// nudges spent stay spent (the cap is the task's): the next idle spell is
// told without one.
func TestIdleNudgesCapIsTheTasks(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newIdleRun(t0)
	r.moves = func(n int) bool { return n == 1 || n == 20 } // moves again after the first agent_idle
	r.until(t0.Add(8 * time.Hour))
	if len(r.nudges) != 2 || len(r.idles) != 2 {
		t.Fatalf("%d nudges, %d agent_idle (want 2, then 2: one a spell)", len(r.nudges), len(r.idles))
	}
}

// Nothing is typed while a turn runs: a nudge due then waits for the
// prompt, and is typed once the turn is over.
func TestNoNudgeWhileTheTurnRuns(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newIdleRun(t0)
	busyUntil := t0.Add(50 * time.Minute)
	r.atPrompt = func(now time.Time) bool { return !now.Before(busyUntil) }
	r.until(t0.Add(8 * time.Hour))
	if len(r.nudges) != 2 || len(r.idles) != 1 {
		t.Fatalf("%d nudges, %d agent_idle (want 2, 1)", len(r.nudges), len(r.idles))
	}
	if r.nudges[0].Before(busyUntil) || r.nudges[0].After(busyUntil.Add(2*time.Second)) {
		t.Errorf("first nudge at %v: want right after the turn ended at %v", r.nudges[0].Sub(t0), busyUntil.Sub(t0))
	}
}

// Nothing is typed into a dialog or a parked agent: the monitor says
// nothing while the agent waits or is held, and the time waited counts as
// activity (the idle clock starts again at the dialog's end).
func TestNoNudgeIntoADialogOrAPark(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newIdleRun(t0)
	r.until(t0.Add(24 * time.Minute)) // idle since 5m10s: a nudge due at 25m10s
	r.m.wait(true, r.now)
	if act, wake := r.m.next(t0.Add(3*time.Hour), r.out); act != actNone || !wake.IsZero() {
		t.Fatalf("waiting on a dialog: %v, wake %v", act, wake)
	}
	end := t0.Add(3 * time.Hour)
	r.m.wait(false, end)
	r.now = end
	r.until(end.Add(19 * time.Minute))
	if len(r.nudges) != 0 {
		t.Fatalf("nudged at %v: the dialog's end is activity", r.nudges)
	}
	r.m.hold()
	if act, wake := r.m.next(end.Add(5*time.Hour), r.out); act != actNone || !wake.IsZero() {
		t.Fatalf("parked: %v, wake %v", act, wake)
	}
	r.m.release(end.Add(5 * time.Hour))
	r.now = end.Add(5 * time.Hour)
	r.until(r.now.Add(19 * time.Minute))
	if len(r.nudges) != 0 {
		t.Fatalf("nudged at %v: the release is activity", r.nudges)
	}
	r.until(r.now.Add(3 * time.Minute))
	if len(r.nudges) != 1 {
		t.Fatalf("%d nudges 22m after the release, want 1", len(r.nudges))
	}
}

// idle_after 0 turns the watch off; idle_nudges 0 tells a person without
// typing anything.
func TestIdleWatchOffAndNoNudges(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newIdleRun(t0)
	r.m.idle.after = 0
	r.until(t0.Add(8 * time.Hour))
	if len(r.nudges)+len(r.idles) > 0 {
		t.Errorf("idle_after 0: nudged %v, idle %v", r.nudges, r.idles)
	}
	r = newIdleRun(t0)
	r.m.idle.nudges = 0
	r.until(t0.Add(8 * time.Hour))
	if len(r.nudges) != 0 || len(r.idles) != 1 {
		t.Errorf("idle_nudges 0: %d nudges, %d agent_idle (want 0, 1)", len(r.nudges), len(r.idles))
	}
}

// An agent that never answered, or stopped answering, is the stale
// alarms' case, not the idle watch's: it is never nudged.
func TestSilentAgentNotNudged(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newIdleRun(t0)
	r.answerIn = time.Hour // never in time
	r.until(t0.Add(29 * time.Minute))
	if len(r.nudges)+len(r.idles) > 0 || r.stale == 0 {
		t.Errorf("a silent agent: nudged %v, idle %v, %d stale alarms", r.nudges, r.idles, r.stale)
	}
}

// A blocked agent has said why it does not go on: it is not nudged.
func TestBlockedAgentNotNudged(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.idle = idleClock{after: 20 * time.Minute, nudges: 2}
	m.moved(t0)
	m.checkpoint(t0, true)
	if due := m.idleDue(t0); !due.IsZero() {
		t.Fatalf("a blocked agent's nudge due at %v", due)
	}
}

func TestNudgeText(t *testing.T) {
	got := nudgeText("T1", 20*time.Minute)
	want := "warden: your checkpoints have not moved for 20m0s and you are at your prompt. Carry on with task T1; " +
		"if it is done or you are blocked, say so in a checkpoint (Status: complete or blocked)."
	if got != want {
		t.Errorf("nudge text %q", got)
	}
}
