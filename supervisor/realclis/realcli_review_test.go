//go:build e2e

package realclis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/teamtest"
)

// providerOf is the API each CLI of the review test talks to.
var providerOf = map[string]fakeprovider.Provider{"claude": fakeprovider.Anthropic, "codex": fakeprovider.OpenAI,
	"gemini": fakeprovider.Gemini}

// Review rounds across vendors (issue 37): the real Claude Code's work
// reviewed by the real Codex, and the reverse, and Gemini CLI's by Codex,
// offline against the fake provider. The author says T1 is done; the reviewer's round 1 finds one
// thing to change, which reaches the author's model in its next session;
// the author says done again; round 2 approves; T1 completes once.
func TestRealCLIsReviewEachOther(t *testing.T) {
	realCLIsTwoAtOnce(t, []string{"claude-by-codex", "codex-by-claude", "gemini-by-codex"}, func(t *testing.T, pair string) {
		author, reviewer, _ := strings.Cut(pair, "-by-")
		testCrossReview(t, author, reviewer)
	})
}

const reviewFinding = "add a test for the parser's empty input"

func testCrossReview(t *testing.T, author, reviewer string) {
	bins := map[string]string{author: realCLI(t, author), reviewer: realCLI(t, reviewer)}
	var mu sync.Mutex
	var findingSeen bool
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		switch {
		case r.Provider == providerOf[reviewer] && strings.Contains(r.Prompt, "T1.review"):
			round, remaining := 1, "- "+reviewFinding
			if strings.Contains(r.Prompt, "T1.review2") {
				round, remaining = 2, "- nothing"
			}
			return fakeprovider.Answer{Text: fmt.Sprintf("CHECKPOINT: T1.review%d\nStatus: complete\nCompleted:\n- read the change\n"+
				"Remaining:\n%s\nFiles Modified: none\nEstimated Progress: 100%%\n", round, remaining)}
		case r.Provider == providerOf[author] && strings.Contains(r.Prompt, "T1") && !strings.Contains(r.Prompt, ".review"):
			if strings.Contains(r.Prompt, reviewFinding) {
				mu.Lock()
				findingSeen = true
				mu.Unlock()
			}
			return fakeprovider.Answer{Text: "CHECKPOINT: T1\nStatus: complete\nCompleted:\n- wrote the parser\n" +
				"Remaining:\n- nothing\nFiles Modified: parser.go\nEstimated Progress: 100%\n"}
		}
		return fakeprovider.Answer{Text: "ready"}
	}})
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := teamtest.WriteTeam(t, fmt.Sprintf(`checkpoint_interval = "4s"
checkpoint_timeout = "30s"
shutdown_timeout = "10s"
review_by = %q
max_review_rounds = 2
[[task]]
id = "T1"
title = "the parser"
agent = %q
prompt = "Write the parser."
`, reviewer, author), teamtest.Agent{Name: author, Mode: "unused"}, teamtest.Agent{Name: reviewer, Mode: "unused"})
	for i := range cfg.Agents {
		a := &cfg.Agents[i]
		cli := a.Name
		home, project := filepath.Join(root, cli, "home"), filepath.Join(root, cli, "project")
		os.MkdirAll(home, 0o700)
		os.MkdirAll(project, 0o700)
		env := seed(t, cli, home, project, srv.URL())
		env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
		env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
		a.Command, a.Profile, a.Dir, a.Env = []string{bins[cli]}, cli, project, env
	}
	team, out, wait := startTeamCfg(t, cfg)
	waitForD(t, "T1 complete after its review rounds", 240*time.Second, func() bool {
		return countEvents(eventsOf(t, cfg), event.TaskCompleted, "") > 0
	})
	team.Force()
	wait()

	evs := eventsOf(t, cfg)
	var rounds []string
	for _, e := range evs {
		switch e["event"] {
		case event.ReviewRequested:
			rounds = append(rounds, fmt.Sprintf("requested %v", e["round"]))
		case event.ReviewDone:
			rounds = append(rounds, fmt.Sprintf("done %v findings %v approved %v", e["round"], e["findings"], e["approved"]))
		}
	}
	want := "requested 1; done 1 findings 1 approved false; requested 2; done 2 findings 0 approved true"
	if got := strings.Join(rounds, "; "); got != want {
		t.Errorf("review events: %s, want %s\n%s", got, want, out.String())
	}
	if n := countEvents(evs, event.TaskCompleted, ""); n != 1 {
		t.Errorf("%d task_completed, want 1", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !findingSeen {
		t.Errorf("%s's finding never reached %s's model", reviewer, author)
	}
}
