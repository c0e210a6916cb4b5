package supervisor

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/atomicfile"
)

// Snapshot is the team's state as state.json holds it and `warden status`
// shows it, while the team runs or after.
type Snapshot struct {
	Team       string        `json:"team"`
	SignalFile string        `json:"signal_file"`
	Pid        int           `json:"pid"`
	Running    bool          `json:"running"`
	StartedAt  time.Time     `json:"started_at"`
	UpdatedAt  time.Time     `json:"updated_at"`
	Agents     []AgentStatus `json:"agents"`
	Tasks      []TaskStatus  `json:"tasks"`
}

// ReadSnapshot reads state.json from a state dir.
func ReadSnapshot(stateDir string) (*Snapshot, error) {
	b, err := os.ReadFile(filepath.Join(stateDir, "state.json"))
	if err != nil {
		return nil, fmt.Errorf("read team state: %w", err)
	}
	var s Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode %s: %w", filepath.Join(stateDir, "state.json"), err)
	}
	return &s, nil
}

// writeStatus writes state.json and STATUS.md, each atomically.
func writeStatus(dir *StateDir, s Snapshot) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	if err := atomicfile.Write(dir.Path("state.json"), append(b, '\n'), 0o600); err != nil {
		return err
	}
	return atomicfile.Write(dir.Path("STATUS.md"), []byte(statusMarkdown(s)), 0o600)
}

// statusMarkdown renders STATUS.md: Agent | Task | Progress | Last Update | Status.
func statusMarkdown(s Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nUpdated %s.\n\n", s.Team, s.UpdatedAt.UTC().Format(time.RFC3339))
	b.WriteString("| Agent | Task | Progress | Last Update | Status |\n|---|---|---|---|---|\n")
	for _, a := range s.Agents {
		progress, update := "-", "-"
		for _, t := range s.Tasks {
			if t.ID == a.Task && t.ID != "" {
				progress = fmt.Sprintf("%d%%", t.Progress)
				update = t.Summary
			}
		}
		if !a.LastCheckpoint.IsZero() {
			update = a.LastCheckpoint.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", a.Name, dash(a.Task), progress, update, a.State)
	}
	if len(s.Tasks) > 0 {
		b.WriteString("\n| Task | Title | Status | Owner | Progress | Blocked by |\n|---|---|---|---|---|---|\n")
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d%% | %s |\n", t.ID, t.Title, t.State, dash(t.Owner),
				t.Progress, dash(strings.Join(t.BlockedBy, ", ")))
		}
	}
	return b.String()
}

// RenderDashboard writes the human dashboard of a snapshot.
func RenderDashboard(w io.Writer, s Snapshot) {
	active := 0
	for _, a := range s.Agents {
		if a.State == StateRunning {
			active++
		}
	}
	c := counts(s.Tasks)
	state := "stopped"
	if s.Running {
		state = "running"
	}
	fmt.Fprintf(w, "== %s (%s) agents active %d/%d, tasks done %d/%d, available %d, blocked %d, pending verification %d\n",
		s.Team, state, active, len(s.Agents), c[TaskComplete], len(s.Tasks), c[TaskPending], c[TaskBlocked], c[TaskVerifying])
	for _, a := range s.Agents {
		fmt.Fprintf(w, "   agent %-12s %-9s task %-8s attempt %d %s\n", a.Name, a.State, dash(a.Task), a.Attempt, a.Reason)
	}
	for _, t := range s.Tasks {
		fmt.Fprintf(w, "   task  %-12s %-9s %3d%%  %s %s\n", t.ID, t.State, t.Progress, dash(t.Owner), t.Summary)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// DashboardEvery is how often `warden run` prints the dashboard, when
// something changed since the last one.
var DashboardEvery = time.Minute

// printDashboard prints the dashboard to stdout every interval while the
// team changes; it returns the function that stops it.
func (t *Team) printDashboard(every time.Duration) func() {
	stop := make(chan struct{})
	go func() {
		printed := -1
		// A display cadence on the wall clock, not a policy on the team's clock.
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-stop:
				return
			}
			t.pubMu.Lock()
			changes := t.changes
			t.pubMu.Unlock()
			if changes == printed {
				continue
			}
			printed = changes
			var b strings.Builder
			RenderDashboard(&b, t.snapshotNow(true))
			t.printf("%s", b.String())
		}
	}()
	return func() { close(stop) }
}
