//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/internal/realcli"
)

const claudeHomeScript = "../../examples/kubernetes/claude-home.sh"

// A fake Anthropic API key, as long as a real one.
const fakeAPIKey = "sk-ant-api03-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH"

// claudeJSON is what claude-home writes, as far as Claude Code reads it.
type claudeJSON struct {
	HasCompletedOnboarding bool `json:"hasCompletedOnboarding"`
	CustomAPIKeyResponses  struct {
		Approved []string `json:"approved"`
		Rejected []string `json:"rejected"`
	} `json:"customApiKeyResponses"`
	Projects map[string]struct {
		HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
	} `json:"projects"`
}

// claude-home writes ~/.claude.json (0600, its directory made) with the
// onboarding done, each DIR trusted and the last 20 characters of
// $ANTHROPIC_API_KEY approved, then runs the command after `--`; a relative
// DIR or no command is a usage error that writes nothing.
func TestClaudeHomeWritesOnboardingAndTrust(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	cmd := exec.Command("sh", claudeHomeScript, "/srv/warden/work", "/srv/other", "--", "sh", "-c", "echo ran as $0", "claude-home-test")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ANTHROPIC_API_KEY=" + fakeAPIKey}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ran as claude-home-test\n" {
		t.Fatalf("claude-home: %v\n%s", err, out)
	}
	var got claudeJSON
	b, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("~/.claude.json is not JSON: %v\n%s", err, b)
	}
	want := fakeAPIKey[len(fakeAPIKey)-20:]
	if !got.HasCompletedOnboarding || len(got.CustomAPIKeyResponses.Approved) != 1 || got.CustomAPIKeyResponses.Approved[0] != want ||
		!got.Projects["/srv/warden/work"].HasTrustDialogAccepted || !got.Projects["/srv/other"].HasTrustDialogAccepted || len(got.Projects) != 2 {
		t.Errorf("~/.claude.json: %s\nwant onboarding done, both dirs trusted, %q approved", b, want)
	}
	if m := modeOf(t, filepath.Join(home, ".claude.json")); m.Perm() != 0o600 {
		t.Errorf("~/.claude.json is %v, want -rw-------", m)
	}

	cmd = exec.Command("sh", claudeHomeScript, "/srv/warden/work", "--", "true")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude-home without a key: %v\n%s", err, out)
	}
	b, _ = os.ReadFile(filepath.Join(home, ".claude.json"))
	if err := json.Unmarshal(b, &got); err != nil || len(got.CustomAPIKeyResponses.Approved) != 0 {
		t.Errorf("without ANTHROPIC_API_KEY nothing is approved: %v\n%s", err, b)
	}

	for _, args := range [][]string{{"work", "--", "true"}, {"/srv/work", "--"}, {"/srv/work", "true"}} {
		empty := filepath.Join(t.TempDir(), "home")
		cmd := exec.Command("sh", append([]string{claudeHomeScript}, args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + empty}
		out, err := cmd.CombinedOutput()
		if _, statErr := os.Stat(filepath.Join(empty, ".claude.json")); exitCode(err) != 2 || statErr == nil {
			t.Errorf("claude-home %q: exit %d, file written: %v; want 2 and nothing written\n%s", args, exitCode(err), statErr == nil, out)
		}
	}
}

// The Kubernetes example's command line, as written, with the real Claude
// Code and an API key: claude-home prepares the HOME, and warden runs the
// example's team (on_dialog = "deny") to completion — Claude Code starts
// straight at its input box in the work dir (a git clone), without its
// theme picker, its trust screen or its API-key question (default No),
// each of which the team would deny into a restart loop — and no agent
// ever waits on a dialog. Only the volume's paths, the page's address and
// the provider (a fake on 127.0.0.1) are moved.
func TestClaudeHomeStartsClaudeAtWork(t *testing.T) {
	bin, err := realcli.Bin("claude")
	if err != nil {
		t.Skip(err) // .ci/run installs it: in CI this never skips
	}
	realcli.Hold(t)
	defer proctest.AssertNone(t)
	var answered atomic.Int32
	srv := fakeprovider.New(hclog.NewNullLogger(), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		if r.Side || !strings.Contains(r.Prompt, "You are running under warden") {
			return fakeprovider.Answer{Text: "ready"}
		}
		answered.Add(1)
		return fakeprovider.Answer{Text: "CHECKPOINT: T001\nStatus: complete\nCompleted:\n- the suite passes\nRemaining:\n- nothing\n" +
			"Files Modified: none\nEstimated Progress: 100%\n"}
	}})
	defer srv.Close()

	e := kubernetesExample(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	vol, home := filepath.Join(root, "var-lib-warden"), filepath.Join(root, "home-node")
	work := filepath.Join(vol, "work")
	os.MkdirAll(work, 0o700)
	for _, git := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", work}, git...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", git, err, out)
		}
	}
	fsGroupPass(t, vol, os.Getegid()) // the volume as the Job's pod sees it
	teamFile := filepath.Join(root, "team.toml")
	if err := os.WriteFile(teamFile, []byte(strings.ReplaceAll(e.team, "/var/lib/warden", vol)), 0o600); err != nil {
		t.Fatal(err)
	}

	var argv []string
	for _, a := range e.argv {
		switch {
		case a == "claude-home":
			argv = append(argv, "sh", claudeHomeScript)
		case a == "warden":
			argv = append(argv, os.Args[0])
		case a == "0.0.0.0:8080":
			argv = append(argv, "127.0.0.1:0")
		case a == "/etc/warden/team.toml":
			argv = append(argv, teamFile)
		default:
			argv = append(argv, strings.ReplaceAll(a, "/var/lib/warden", vol))
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{
		"PATH=" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC", "CI=false",
		"ANTHROPIC_API_KEY=" + fakeAPIKey, "ANTHROPIC_BASE_URL=" + srv.URL(),
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"WARDEN_TEST_MAIN=1", fakeagent.Env("unused")[1], "GORACE=atexit_sleep_ms=0",
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	state := filepath.Join(vol, "state")
	deadline := time.After(150 * time.Second)
	for {
		select {
		case err := <-done:
			if exitCode(err) != 0 || answered.Load() != 1 {
				t.Fatalf("%s: exit %d, the model was asked %d times, want exit 0 after one answer\n%s",
					strings.Join(e.argv, " "), exitCode(err), answered.Load(), out.String())
			}
			for _, ev := range []string{`"agent_waiting"`, `"dialog_denied"`, `"agent_restarted"`} {
				if b, _ := os.ReadFile(filepath.Join(state, "events.jsonl")); bytes.Contains(b, []byte(ev)) {
					t.Errorf("events.jsonl holds %s: Claude Code did not start at its input box", ev)
				}
			}
			return
		case <-deadline:
			screen, _, _ := wardenCmd("screen", "claude", "--state-dir", state)
			cmd.Process.Signal(os.Interrupt)
			<-done
			t.Fatalf("the team did not complete in 150s; Claude Code's screen:\n%s\n%s", screen, out.String())
		case <-time.After(200 * time.Millisecond):
			if b, _ := os.ReadFile(filepath.Join(state, "events.jsonl")); bytes.Contains(b, []byte(`"agent_waiting"`)) {
				screen, _, _ := wardenCmd("screen", "claude", "--state-dir", state)
				cmd.Process.Signal(os.Interrupt)
				<-done
				t.Fatalf("Claude Code waits on a dialog:\n%s", screen)
			}
		}
	}
}
