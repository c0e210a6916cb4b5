//go:build e2e

package supervisor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
)

// tapped collects what an attached viewer gets.
type tapped struct {
	mu      sync.Mutex
	screens []string
	out     strings.Builder
	notes   []string
	end     string
	done    chan struct{}
}

func watchStream(st *control.Stream) *tapped {
	v := &tapped{done: make(chan struct{})}
	go func() {
		defer close(v.done)
		for {
			kind, p, err := st.Next()
			if err != nil {
				return
			}
			v.mu.Lock()
			switch kind {
			case control.FrameScreen:
				v.screens = append(v.screens, string(p[1:]))
			case control.FrameOutput:
				v.out.Write(p)
			case control.FrameNote:
				v.notes = append(v.notes, string(p))
			case control.FrameEnd:
				v.end = string(p)
			}
			v.mu.Unlock()
		}
	}()
	return v
}

// String is what the viewer got: its notes, its screens' ends and its
// output's end.
func (v *tapped) String() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "notes %q, end %q, %d screens", v.notes, v.end, len(v.screens))
	for _, sc := range v.screens {
		fmt.Fprintf(&b, "\n  screen ending %q", sc[max(0, len(sc)-300):])
	}
	out := v.out.String()
	fmt.Fprintf(&b, "\n  output (%d bytes) ending %q", len(out), out[max(0, len(out)-600):])
	return b.String()
}

// has reports whether the viewer was shown s: in a screen or the stream.
func (v *tapped) has(s string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.Contains(strings.Join(v.screens, "")+v.out.String(), s)
}

// streamed counts s in the live output (not the screens).
func (v *tapped) streamed(s string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.Count(v.out.String(), s)
}

// The control socket in the same process as the team (so that -race sees
// both sides): two viewers follow the agent across a restart, send and ps
// answer, and a stop ends the viewers' streams with warden's word.
func TestControlSocketInProcess(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "300ms"
checkpoint_timeout = "5s"
shutdown_timeout = "2s"
[[task]]
id = "T1"
prompt = "Do it."
`, fakeAgent{name: "w", mode: "worker:steps=30"})
	team, out, wait := startTeamCfg(t, cfg)
	c := control.NewClient(cfg.StateDir)
	waitFor(t, "a checkpoint", func() bool { return strings.Contains(out.String(), "CHECKPOINT: T1 - implementing (3%)") })

	var views []*tapped
	for _, rw := range []bool{false, true} {
		st, err := c.Attach("w", rw)
		if err != nil {
			t.Fatal(err)
		}
		if st.Rows != 50 || st.Cols != 200 || st.RW != rw {
			t.Errorf("attached: %+v", st.Attached)
		}
		views = append(views, watchStream(st))
	}
	waitFor(t, "both viewers see the next checkpoint", func() bool {
		return views[0].streamed("Estimated Progress:") > 0 && views[1].streamed("Estimated Progress:") > 0
	})
	for _, v := range views {
		if v.mu.Lock(); len(v.screens) != 1 || !strings.Contains(v.screens[0], "CHECKPOINT: T1") {
			t.Errorf("the first frame is not the screen so far: %q", v.screens)
		}
		v.mu.Unlock()
	}

	res, err := c.Send("w", "a note from a person", false, 10*time.Second)
	if err != nil || res.Outcome != "submitted" {
		t.Errorf("send: %+v %v", res, err)
	}
	r, err := c.Restart("w")
	if err != nil || r.Pid == 0 || !strings.HasPrefix(r.Checkpoint, "w-T1-") {
		t.Fatalf("restart: %+v %v", r, err)
	}
	defer func() { // seen once beside a whole run: what each viewer got
		if t.Failed() {
			for i, v := range views {
				t.Logf("viewer %d: %s", i, v)
			}
			log, _ := os.ReadFile(team.dir.AgentLog("w"))
			t.Logf("w's log (its last 3000 bytes):\n%s", log[max(0, len(log)-3000):])
		}
	}()
	waitFor(t, "both viewers follow the agent into its new session", func() bool {
		return views[0].has("RESUME-SEEN: You are resuming") && views[1].has("RESUME-SEEN: You are resuming")
	})
	for _, v := range views {
		v.mu.Lock()
		if len(v.notes) != 1 || !strings.HasPrefix(v.notes[0], "[warden] w's session ended; waiting for its next one") || len(v.screens) != 2 {
			t.Errorf("across the restart the viewer got notes %q and %d screens", v.notes, len(v.screens))
		}
		v.mu.Unlock()
	}
	ps, err := c.PS()
	if err != nil || len(ps.Agents) != 1 || ps.Agents[0].Pid != r.Pid || ps.Agents[0].Viewers != 2 {
		t.Errorf("ps: %+v %v", ps, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Stop(ctx, false, true); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if res := wait(); !res.Stopped {
		t.Errorf("the team did not stop as the user asked: %+v", res)
	}
	for _, v := range views {
		<-v.done
		if v.end != "warden is done" {
			t.Errorf("a viewer's stream ended with %q", v.end)
		}
	}
	evs := eventsOf(t, cfg)
	for _, name := range []string{event.ViewerAttached, event.TextSent, event.RestartRequested, event.StopRequested} {
		if countEvents(evs, name, "") == 0 {
			t.Errorf("no %s event", name)
		}
	}
}
