//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// pageattack:DIR — a hostile agent against the dashboard page (issue 33):
// it starts pagehit:DIR in a session of its own (so that a budget's pause,
// which stops the agent's process group, does not stop it) and idles.
//
// pagehit:DIR waits for DIR/go (the page's base address), reads the token
// from the state dir's page-token as an agent would try to (behind the
// box's walls it reads it empty: it writes what it read as DIR/token.out),
// else takes the token the test leaked to it in DIR/leaked (a token that
// reached an agent another way: the page still judges the agent by its
// process), reads agent w's dialog
// id from /api/ps, POSTs /api/answer/w {"choice":"allow-once"} and
// /api/resume {} with the token in Authorization: Bearer, writes each
// answer as DIR/answer.out and DIR/resume.out ("STATUS\nBODY"), then
// DIR/done, and exits.
func init() {
	fakeagent.Register("pageattack", modePageAttack)
	fakeagent.Register("pagehit", modePageHit)
}

func modePageAttack(args []string) int {
	hit := exec.Command(os.Args[0], "-test.run=^$")
	hit.Env = append(os.Environ(), fakeagent.EnvMode+"=pagehit:"+args[0])
	hit.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := hit.Start(); err != nil {
		fmt.Println("pageattack:", err)
		return 1
	}
	fmt.Println("pageattack: waiting")
	go hit.Wait()
	select {}
}

func modePageHit(args []string) int {
	dir := args[0]
	var base []byte
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go")); err == nil && len(b) > 0 {
			base = bytes.TrimSpace(b)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	tok, err := os.ReadFile(filepath.Join(os.Getenv("WARDEN_STATE_DIR"), "page-token"))
	if err != nil {
		os.WriteFile(filepath.Join(dir, "done"), fmt.Appendf(nil, "no token: %v\n", err), 0o600)
		return 1
	}
	token := strings.TrimSpace(string(tok))
	os.WriteFile(filepath.Join(dir, "token.out"), fmt.Appendf(nil, "%d bytes", len(token)), 0o600)
	if token == "" {
		leaked, _ := os.ReadFile(filepath.Join(dir, "leaked"))
		token = strings.TrimSpace(string(leaked))
	}
	var ps struct {
		Agents []struct {
			Name     string `json:"name"`
			DialogID string `json:"dialog_id"`
		} `json:"agents"`
	}
	if _, body := pageCall(string(base), token, http.MethodGet, "/api/ps", ""); json.Unmarshal([]byte(body), &ps) != nil {
		os.WriteFile(filepath.Join(dir, "done"), []byte("bad ps: "+body), 0o600)
		return 1
	}
	id := ""
	for _, a := range ps.Agents {
		if a.Name == "w" {
			id = a.DialogID
		}
	}
	code, body := pageCall(string(base), token, http.MethodPost, "/api/answer/w", `{"choice":"allow-once","dialog_id":"`+id+`"}`)
	os.WriteFile(filepath.Join(dir, "answer.out"), fmt.Appendf(nil, "%d\n%s", code, body), 0o600)
	code, body = pageCall(string(base), token, http.MethodPost, "/api/resume", `{}`)
	os.WriteFile(filepath.Join(dir, "resume.out"), fmt.Appendf(nil, "%d\n%s", code, body), 0o600)
	os.WriteFile(filepath.Join(dir, "done"), []byte("done\n"), 0o600)
	return 0
}

// pageCall makes one request of the page as a program does: the token in
// Authorization: Bearer, a JSON body.
func pageCall(base, token, method, path, body string) (int, string) {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	c := &http.Client{Timeout: 40 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// attackOut is what pagehit wrote of one request: its status and body.
func attackOut(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, name+".out"))
	status, body, _ := strings.Cut(string(b), "\n")
	return status, body
}

// An agent that read page-token answers another agent's permission dialog
// on the page, and asks it to resume (issue 33: 200 both, before): both
// are refused (403, the agent named), the dialog stays open with nothing
// typed into it, and warden says so in its log; the same answer from the
// test process — a person's curl — is taken.
func TestAgentIsRefusedOnThePage(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	dialogLog := filepath.Join(dir, "dialog.log")
	team := opsTeam(t, "checkpoint_interval = \"1h\"\ncheckpoint_timeout = \"2s\"",
		opsAgent{name: "w", mode: "tui-dialog:" + dialogLog, profile: "claude", task: true},
		opsAgent{name: "evil", mode: "pageattack:" + dir, task: true})
	p := startPageRun(t, team, 0, nil)
	defer p.stop()
	waitEvents(t, team, "agent_waiting", "w", 1)
	os.WriteFile(filepath.Join(dir, "leaked"), []byte(p.token), 0o600)
	os.WriteFile(filepath.Join(dir, "go"), []byte(p.base), 0o600)
	waitFile(t, filepath.Join(dir, "done"), filepath.Join(stateOf(team), "logs", "evil.log"))
	if b, _ := os.ReadFile(filepath.Join(dir, "token.out")); string(b) != "0 bytes" {
		t.Errorf("the agent read the page's token from the state dir: %s (behind the box's walls it reads it empty)", b)
	}
	for _, name := range []string{"answer", "resume"} {
		if status, body := attackOut(t, dir, name); status != "403" || !strings.Contains(body, "inside agent evil's process tree") {
			t.Errorf("the agent's %s on the page: %s %s, want 403 naming agent evil", name, status, body)
		}
	}
	time.Sleep(300 * time.Millisecond) // what a refused answer could have typed is in the log by now
	if b, _ := os.ReadFile(dialogLog); bytes.Contains(b, []byte("TYPED")) || bytes.Contains(b, []byte("APPROVED")) {
		t.Errorf("the other agent's dialog was answered:\n%s", b)
	}
	w := agentOf(psOf(t, team), "w")
	if w["state"] != "waiting" {
		t.Fatalf("agent w after the attack: %v, want it still waiting on its dialog", w)
	}
	for _, name := range []string{"dialog_answered", "budget_resumed"} {
		if evs := eventsNamed(team, name, ""); len(evs) != 0 {
			t.Errorf("the agent's refused request made %s: %v", name, evs)
		}
	}
	if !strings.Contains(p.out.dump(), "a write from the page refused") {
		t.Errorf("warden's output says nothing of the refusal:\n%s", p.out.dump())
	}
	// The person, from a program of their own with the same token.
	id, _ := w["dialog_id"].(string)
	if code, body := pageCall(p.base, p.token, http.MethodPost, "/api/answer/w", `{"choice":"allow-once","dialog_id":"`+id+`"}`); code != 200 {
		t.Fatalf("the person's answer on the page: %d %s", code, body)
	}
	if ev := waitEvents(t, team, "dialog_answered", "w", 1)[0]; ev["by"] != "person" || ev["via"] != "page" {
		t.Errorf("dialog_answered: %v", ev)
	}
	if code, body := pageCall(p.base, p.token, http.MethodPost, "/api/resume", `{}`); code != 409 || !strings.Contains(body, "parked") {
		t.Errorf("the person's resume with nothing parked: %d %s, want warden's own 409", code, body)
	}
}

// An agent whose team is parked at its budget (on_budget = "pause") lifts
// the pause from the page with the token it read, from a process that left
// its session (the pause stops only the agent's process group): refused,
// the agents stay parked; the person's resume on the page lets them go on.
func TestAgentCannotLiftTheBudgetFromThePage(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	team := opsTeam(t, "checkpoint_interval = \"1h\"\ncheckpoint_timeout = \"2s\"\nmax_tokens = 5000\non_budget = \"pause\"",
		opsAgent{name: "s", mode: "spender:in=1000:out=100:every=100ms", task: true},
		opsAgent{name: "evil", mode: "pageattack:" + dir, task: true})
	p := startPageRun(t, team, 0, nil)
	defer p.stop()
	waitEvents(t, team, "budget_exceeded", "", 1)
	os.WriteFile(filepath.Join(dir, "leaked"), []byte(p.token), 0o600)
	os.WriteFile(filepath.Join(dir, "go"), []byte(p.base), 0o600)
	waitFile(t, filepath.Join(dir, "done"), filepath.Join(stateOf(team), "logs", "evil.log"))
	if status, body := attackOut(t, dir, "resume"); status != "403" || !strings.Contains(body, "inside agent evil's process tree") {
		t.Errorf("the agent's resume on the page: %s %s, want 403 naming agent evil", status, body)
	}
	if evs := eventsNamed(team, "budget_resumed", ""); len(evs) != 0 {
		t.Errorf("the agent's refused resume lifted the budget: %v", evs)
	}
	if out, _, code := wardenCmd("ps", team); code != 0 || !strings.Contains(out, "agents parked until `warden resume`") {
		t.Errorf("warden ps after the agent's resume: exit %d, want the agents still parked\n%s", code, out)
	}
	if code, body := pageCall(p.base, p.token, http.MethodPost, "/api/resume", `{}`); code != 200 {
		t.Fatalf("the person's resume on the page: %d %s", code, body)
	}
	if ev := waitEvents(t, team, "budget_resumed", "", 1)[0]; ev["via"] != "page" {
		t.Errorf("budget_resumed: %v", ev)
	}
}
