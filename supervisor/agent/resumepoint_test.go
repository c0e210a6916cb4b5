//go:build !e2e

package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// printTeam is a Team that keeps the lines printed and pins one record.
type printTeam struct {
	mu     sync.Mutex
	lines  []string
	pinned *protocol.Checkpoint
}

func (p *printTeam) Printf(_ string, format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, strings.TrimSuffix(fmt.Sprintf(format, a...), "\n"))
}
func (p *printTeam) Publish()                              {}
func (p *printTeam) TeamCheckpoint(string, string, string) {}
func (p *printTeam) CanTake(config.Task, string) bool      { return false }
func (p *printTeam) Pinned(string) *protocol.Checkpoint    { return p.pinned }
func (p *printTeam) Spent(string, string, protocol.Usage)  {}
func (p *printTeam) printed() string                       { return strings.Join(p.lines, "\n") }
func (p *printTeam) reset()                                { p.lines = nil }

var _ Team = (*printTeam)(nil)

// A record older than stale_failure is resumed with its age said as it is:
// the WARNING line, the resume_stale event and the note in the prompt give
// one age, true (never rounded up, nor down to the limit or below) and to
// the second under an hour — a record 10 s old past a limit of 8 s was
// said to be "0s old (older than stale_failure 8s)".
func TestStaleResumeSaysATrueAge(t *testing.T) {
	dir := t.TempDir()
	fc := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	log := hclog.NewNullLogger()
	store, err := state.NewStore(log, filepath.Join(dir, "checkpoints"), fc.Now)
	if err != nil {
		t.Fatal(err)
	}
	events, err := state.OpenEventLog(log, filepath.Join(dir, "events.jsonl"), fc.Now)
	if err != nil {
		t.Fatal(err)
	}
	var emitted []state.Event
	events.OnEmit = func(e state.Event, _ []byte) { emitted = append(emitted, e) }
	task := config.Task{ID: "T1", Title: "the task"}
	team := &printTeam{}
	a := New(config.Agent{Name: "w", Restart: config.RestartOnFailure, MaxRestarts: 3}, &Deps{
		Config: &config.Team{StaleFailure: 8 * time.Second}, Team: team, Log: log, Clock: fc,
		Events: events, Store: store, Queue: queue.New([]config.Task{task}), RunID: "run1",
	})
	for _, c := range []struct {
		age, limit time.Duration
		want       string
	}{
		{10 * time.Second, 8 * time.Second, "10s"},
		{8*time.Second + 400*time.Millisecond, 8 * time.Second, "8.4s"},
		{12*time.Minute + 34*time.Second + 500*time.Millisecond, 10 * time.Minute, "12m34s"},
		{2*time.Hour + 3*time.Minute + 59*time.Second, 30 * time.Minute, "2h3m0s"},
		{time.Hour + 30*time.Second, time.Hour, "1h0m30s"},
	} {
		team.reset()
		emitted = nil
		a.d.Config.StaleFailure = c.limit
		team.pinned = &protocol.Checkpoint{CheckpointID: "cp1", TaskID: "T1", Status: protocol.StatusImplementing,
			Resumable: true, UpdatedAt: fc.Now().Add(-c.age)}
		cp, said := a.resumeFrom(&task)
		if cp == nil {
			t.Fatalf("age %s: not resumed", c.age)
		}
		line := fmt.Sprintf("WARNING: T1 resumes from a checkpoint %s old (older than stale_failure %s)", c.want, c.limit)
		if !strings.Contains(team.printed(), line) {
			t.Errorf("age %s: printed %q, want %q", c.age, team.printed(), line)
		}
		if !strings.Contains(said, "The checkpoint below is "+c.want+" old") {
			t.Errorf("age %s: the prompt says %q, want %s", c.age, said, c.want)
		}
		var got any
		for _, e := range emitted {
			if e.Event == event.ResumeStale {
				got = e.Fields["age"]
			}
		}
		if got != c.want {
			t.Errorf("age %s: resume_stale age %v, want %s", c.age, got, c.want)
		}
	}
}
