//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// askedTask is the task id a checkpoint request names.
var askedTask = regexp.MustCompile(`CHECKPOINT REQUEST: (T\d+)`)

// The real Claude Code, Codex and Gemini CLI as a team of three with
// max_running = 2, offline against the fake provider: never more than two
// sessions at once, the third agent waits its turn (admission_waiting, state
// admission) and starts when one ends, every task completes, and warden
// learns each CLI's footprint from the RSS of its running tree — what the
// page shows. Learned after 2 s here (10 s by default), from sessions of a
// few seconds: a start-up figure, not a night's.
func TestRealCLIMemoryFootprints(t *testing.T) {
	clis := []string{"claude", "codex", "gemini"}
	bins := map[string]string{}
	for _, cli := range clis {
		bins[cli] = realCLI(t, cli)
	}
	useWardenBin(t)
	defer proctest.AssertNone(t)

	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		m := askedTask.FindStringSubmatch(r.Prompt)
		if m == nil {
			return fakeprovider.Answer{Text: "ready", InputTokens: 2000}
		}
		return fakeprovider.Answer{InputTokens: 3000, Text: fmt.Sprintf(
			"CHECKPOINT: %s\nStatus: complete\nCompleted:\n- said ready\nRemaining:\n- nothing\nFiles Modified: notes.md\nEstimated Progress: 100%%\n", m[1])}
	}})
	defer srv.Close()

	var header strings.Builder
	header.WriteString("checkpoint_interval = \"8s\"\ncheckpoint_timeout = \"30s\"\nshutdown_timeout = \"10s\"\n" +
		"stale_warning = \"60s\"\nstale_failure = \"120s\"\nmax_running = 2\nmemory_floor = \"1MB\"\n")
	agents := make([]fakeAgent, len(clis))
	for i, cli := range clis {
		fmt.Fprintf(&header, "[[task]]\nid = \"T%d\"\nprompt = \"Say ready.\"\nagent = %q\n", i+1, cli)
		agents[i] = fakeAgent{name: cli, mode: "unused"}
	}
	cfg := writeTeamB(t, header.String(), agents...)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for i, cli := range clis {
		home, project := filepath.Join(root, cli, "home"), filepath.Join(root, cli, "project")
		os.MkdirAll(home, 0o700)
		os.MkdirAll(project, 0o700)
		env := seed(t, cli, home, project, srv.URL())
		a := &cfg.Agents[i]
		env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
		env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
		a.Command, a.Profile, a.Dir, a.Env = []string{bins[cli]}, cli, project, env
	}
	saw := watchStates(t, cfg, "max_running 2")
	team, out, wait := startTeamWith(t, cfg, func(team *Team) {
		m := team.deps.Memory
		m.LearnAfter, m.SampleEvery = 2*time.Second, 250*time.Millisecond
	})
	waitForD(t, "three tasks complete", 150*time.Second, func() bool {
		return countEvents(eventsOf(t, cfg), event.TaskCompleted, "") == len(clis)
	})
	res := wait()
	st := team.deps.Memory.Status() // what the page showed last
	sawWaiting := saw()
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out.String())
	}
	evs := eventsOf(t, cfg)
	if n := mostAtOnce(evs); n != 2 {
		t.Errorf("%d sessions at once, want 2 (max_running)", n)
	}
	if w, a := countEvents(evs, event.AdmissionWaiting, ""), countEvents(evs, event.AgentAdmitted, ""); w != 1 || a != 1 {
		t.Errorf("%d admission_waiting, %d agent_admitted: want the third agent's one of each", w, a)
	}
	if !sawWaiting {
		t.Error("state.json never showed the third agent in state admission")
	}
	if st == nil || st.MaxRunning != 2 {
		t.Fatalf("memory status %+v", st)
	}
	got := map[string]state.Footprint{}
	for _, f := range st.Footprints {
		got[f.Profile] = f
	}
	for _, cli := range clis {
		f, ok := got[cli]
		if !ok || !f.Learned || f.Sessions < 1 || f.Bytes < 20<<20 || f.Bytes > 4<<30 {
			t.Errorf("%s's footprint %+v: want one learned from its session, between 20 MB and 4 GB", cli, f)
			continue
		}
		t.Logf("%s: footprint learned %d MiB", cli, f.Bytes>>20)
	}
}
