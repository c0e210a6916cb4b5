//go:build !e2e

package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/asciicast"
)

// makeCast records one session of agent that started at start.
func makeCast(t *testing.T, l Layout, agent, session string, start time.Time) {
	t.Helper()
	w, err := asciicast.Create(hclog.NewNullLogger(), l.AgentCast(agent, session),
		asciicast.Options{Cols: 80, Rows: 24, Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("hello from " + session))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func sessions(cs []Cast) string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.Session)
	}
	return strings.Join(ids, " ")
}

func TestAgentCastsAreListedOldestFirstAndOnlyTheAgents(t *testing.T) {
	l := NewLayout(t.TempDir())
	t0 := time.Unix(1700000000, 0)
	makeCast(t, l, "a", "cc03", t0.Add(3*time.Hour))
	makeCast(t, l, "a", "aa01", t0)
	makeCast(t, l, "a", "bb02", t0.Add(time.Hour))
	makeCast(t, l, "a-b", "dd04", t0.Add(2*time.Hour)) // another agent, whose name starts with "a-"
	os.Symlink(l.AgentCast("a", "cc03"), l.AgentCast("a", "ee05"))
	os.WriteFile(filepath.Join(l.Logs(), "a.log"), []byte("log"), 0o600)

	cs, err := l.AgentCasts("a")
	if err != nil {
		t.Fatal(err)
	}
	if got := sessions(cs); got != "aa01 bb02 cc03" {
		t.Fatalf("agent a: %q, want aa01 bb02 cc03", got)
	}
	if cs[0].Header.Width != 80 || !cs[0].Started().Equal(t0) || cs[0].Size == 0 {
		t.Errorf("first cast %+v", cs[0])
	}
	if cs, _ := l.AgentCasts("a-b"); sessions(cs) != "dd04" {
		t.Errorf("agent a-b: %q", sessions(cs))
	}
	if cs, err := NewLayout(t.TempDir()).AgentCasts("a"); err != nil || len(cs) != 0 {
		t.Errorf("no logs dir: %v %v", cs, err)
	}
	if _, err := l.AgentCasts("../x"); err == nil {
		t.Error("an agent name with a path accepted")
	}
}

func TestPruneCastsKeepsTheNewest(t *testing.T) {
	l := NewLayout(t.TempDir())
	t0 := time.Unix(1700000000, 0)
	for i, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		makeCast(t, l, "w", id, t0.Add(time.Duration(i)*time.Minute))
	}
	makeCast(t, l, "other", "o1", t0)
	if n, err := l.PruneCasts("w", 2); err != nil || n != 3 {
		t.Fatalf("pruned %d, %v; want 3", n, err)
	}
	if cs, _ := l.AgentCasts("w"); sessions(cs) != "s4 s5" {
		t.Errorf("left %q, want s4 s5", sessions(cs))
	}
	if cs, _ := l.AgentCasts("other"); len(cs) != 1 {
		t.Error("another agent's recording was pruned")
	}
	if n, _ := l.PruneCasts("w", 2); n != 0 {
		t.Errorf("pruned %d more", n)
	}
}

func TestFindCast(t *testing.T) {
	l := NewLayout(t.TempDir())
	t0 := time.Unix(1700000000, 0)
	makeCast(t, l, "w", "ab12", t0)
	makeCast(t, l, "w", "ab34", t0.Add(time.Minute))
	makeCast(t, l, "w", "cd56", t0.Add(-time.Minute))
	for _, c := range []struct{ session, want, err string }{
		{"", "ab34", ""},
		{"cd56", "cd56", ""},
		{"ab1", "ab12", ""},
		{"ab", "", "ambiguous"},
		{"zz", "", "no recorded session"},
	} {
		got, err := l.FindCast("w", c.session)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error saying %q", c.session, err, c.err)
			}
			continue
		}
		if err != nil || got.Session != c.want {
			t.Errorf("%q: %q %v, want %q", c.session, got.Session, err, c.want)
		}
	}
	if _, err := l.FindCast("nobody", ""); err == nil || !strings.Contains(err.Error(), "no recording") {
		t.Errorf("an agent without recordings: %v", err)
	}
}
