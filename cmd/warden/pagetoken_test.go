//go:build e2e

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// noEnvToken keeps a WARDEN_HTTP_TOKEN of the machine's out of a test.
var noEnvToken = []string{"WARDEN_HTTP_TOKEN="}

// Item 7 of issue 22: the loopback page needs a token too. warden makes one
// up, writes it to the state dir's page-token (0600) and prints the page's
// address and where the token is — never the token. Without it every part
// of the page answers 401 (the page itself: a form asking for it) and
// /healthz says ok and nothing more; with it the page is served. A `warden
// serve` beside the team takes the same token from that file.
func TestPageTokenOnLoopback(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=1000", task: true})
	page := startPageRun(t, team, 0, noEnvToken)
	defer page.stop()
	waitEvents(t, team, "checkpoint_received", "w1", 1)

	path := filepath.Join(stateOf(team), "page-token")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no page-token in the state dir: %v; warden said %q", err, page.line)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("page-token is %v, want 0600", fi.Mode().Perm())
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(page.token) {
		t.Errorf("page-token holds %q, want 32 hex digits", page.token)
	}
	if want := "DASHBOARD: " + page.base + "/ (the token is in " + path + ")"; page.line != want {
		t.Errorf("warden printed %q, want %q", page.line, want)
	}
	for _, p := range []string{"/", "/api/ps", "/api/screen/w1", "/api/events", "/app.js"} {
		code, body := page.get(p, false)
		if code != 401 {
			t.Errorf("%s without the token: %d, want 401", p, code)
		}
		if strings.Contains(body, "Estimated Progress") || strings.Contains(body, stateOf(team)) {
			t.Errorf("%s without the token shows the team: %s", p, body)
		}
	}
	if code, body := page.get("/", false); !strings.Contains(body, `<form method="post" action="login">`) {
		t.Errorf("the page without the token (%d) is not the form asking for it:\n%s", code, body)
	}
	if code, body := page.get("/healthz", false); code != 200 || strings.TrimSpace(body) != `{"status":"running"}` {
		t.Errorf("/healthz without the token: %d %s; want 200 and the status alone", code, body)
	}
	if code, body := page.get("/api/ps", true); code != 200 || !strings.Contains(body, `"name":"w1"`) {
		t.Errorf("/api/ps with the token: %d %s", code, body)
	}
	if code, body := page.get("/api/screen/w1", true); code != 200 || !strings.Contains(body, "Estimated Progress") {
		t.Errorf("/api/screen/w1 with the token: %d %s", code, body)
	}

	serve := startPage(t, stateOf(team), 0, noEnvToken, "serve", "--http", "127.0.0.1:0", team)
	defer serve.stop()
	if serve.token != page.token || !strings.HasSuffix(serve.line, "(the token is in "+path+")") {
		t.Errorf("warden serve beside the team: %q, token %q; want the team's page-token", serve.line, serve.token)
	}
	if code, _ := serve.get("/api/ps", true); code != 200 {
		t.Errorf("warden serve's /api/ps with the token: %d", code)
	}
	page.stop()
	serve.stop()
	if out := page.out.dump() + serve.out.dump(); strings.Contains(out, page.token) {
		t.Errorf("warden printed the page's token:\n%s", out)
	}
}

// Low item of issue 22: the page's token never shows in the usage text (a
// flag's default taken from $WARDEN_HTTP_TOKEN did), on stdout or stderr,
// or on argv: --http-token T is refused with what to use instead,
// --http-token-file FILE reads it, and the agents warden starts never get
// $WARDEN_HTTP_TOKEN in their environment.
func TestPageTokenNeverOnArgvStdoutOrUsage(t *testing.T) {
	defer proctest.AssertNone(t)
	secret := newTestToken()
	for _, cmd := range []string{"run", "serve"} {
		c := warden(cmd, "-h")
		c.Env = append(c.Env, "WARDEN_HTTP_TOKEN="+secret)
		out, _ := c.CombinedOutput()
		if bytes.Contains(out, []byte(secret)) || !bytes.Contains(out, []byte("-http-token-file FILE")) {
			t.Errorf("warden %s -h with $WARDEN_HTTP_TOKEN set:\n%s\nwant no token and --http-token-file", cmd, out)
		}
	}
	for _, argv := range [][]string{{"run", "--http", "127.0.0.1:0", "--http-token", secret, "missing.toml"},
		{"run", "--http-token=" + secret, "missing.toml"}, {"serve", "--state-dir", t.TempDir(), "--http", "127.0.0.1:0", "-http-token", secret}} {
		out, errOut, code := wardenCmdWithin(10*time.Second, argv...)
		if code != 2 || !strings.Contains(errOut, "--http-token-file FILE") || strings.Contains(out+errOut, secret) {
			t.Errorf("warden %s: exit %d\n%s%s\nwant exit 2 saying to use --http-token-file, without the token", strings.Join(argv[:2], " "), code, out, errOut)
		}
	}
	if out, errOut, code := wardenCmdEnvWithin(10*time.Second, []string{"WARDEN_HTTP_TOKEN=s3cret"}, "serve", "--state-dir", t.TempDir(), "--http", "127.0.0.1:0"); code != 2 || !strings.Contains(errOut, "at least 16") || strings.Contains(out+errOut, "s3cret") {
		t.Errorf("a 6-character token: exit %d\n%s%s\nwant exit 2, the token not shown", code, out, errOut)
	}

	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=1000", task: true})
	page := startPageRun(t, team, 0, []string{"WARDEN_HTTP_TOKEN=" + secret})
	defer page.stop()
	waitEvents(t, team, "checkpoint_received", "w1", 1)
	if code, _ := page.get("/api/ps", true); code != 200 {
		t.Errorf("/api/ps with $WARDEN_HTTP_TOKEN's token: %d", code)
	}
	if page.line != "DASHBOARD: "+page.base+"/ (the token from $WARDEN_HTTP_TOKEN)" {
		t.Errorf("warden printed %q", page.line)
	}
	pid := int(agentOf(psOf(t, team), "w1")["pid"].(float64))
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(env, []byte("WARDEN_HTTP_TOKEN")) || bytes.Contains(env, []byte(secret)) {
		t.Errorf("agent w1 (pid %d) has the page's token in its environment", pid)
	}
	if argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", page.cmd.Process.Pid)); bytes.Contains(argv, []byte(secret)) {
		t.Errorf("warden's argv holds the token: %q", argv)
	}
	page.stop()
	if out := page.out.dump(); strings.Contains(out, secret) {
		t.Errorf("warden printed the page's token:\n%s", out)
	}

	// --http-token-file: the token from a file (a scheduler's secret).
	file := filepath.Join(t.TempDir(), "token")
	other := newTestToken()
	if err := os.WriteFile(file, []byte(other+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	page = startPageRun(t, team, 0, noEnvToken, "--http-token-file", file)
	defer page.stop()
	page.token = other
	if code, _ := page.get("/api/ps", true); code != 200 {
		t.Errorf("/api/ps with --http-token-file's token: %d", code)
	}
	if page.line != "DASHBOARD: "+page.base+"/ (the token in "+file+")" || strings.Contains(page.out.dump(), other) {
		t.Errorf("warden printed %q", page.line)
	}
	page.stop()
}

// A person without the token opens the page in a browser (real headless
// Chromium): the form asks for the token, a wrong one is refused, the one
// from page-token opens the dashboard, and a reload keeps it (the cookie);
// ?token= in the address is dropped from it once the cookie is set.
func TestPageLoginInChromium(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=1000", task: true})
	page := startPageRun(t, team, 0, noEnvToken)
	defer page.stop()
	waitEvents(t, team, "checkpoint_received", "w1", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 1200, 900)
	defer end()
	navigate(t, p, page.base+"/")
	pollAcrossNavigation(t, p, "the form asking for the token", `!!document.querySelector('form[action="login"] input[name="token"]') && !document.querySelector('article.agent')`, 5*time.Second)
	submit := func(tok string) {
		if _, err := evalBool(p, fmt.Sprintf(`(() => { document.querySelector('input[name="token"]').value = %q; document.querySelector('form').submit(); return true })()`, tok)); err != nil {
			t.Fatal(err)
		}
	}
	submit("not-the-token-not-the-token")
	pollAcrossNavigation(t, p, "the form again, saying the token is wrong", `/not this page's token/.test(document.body.innerText)`, 5*time.Second)
	submit(page.token)
	pollAcrossNavigation(t, p, "the dashboard with w1", `!!document.querySelector('article.agent[data-agent="w1"]')`, 10*time.Second)
	navigate(t, p, page.base+"/")
	pollAcrossNavigation(t, p, "the dashboard after a reload", `!!document.querySelector('article.agent[data-agent="w1"]')`, 10*time.Second)

	// ?token= in another tab: the cookie is set and the address is the
	// page's without it.
	p2, closeTab2 := openTab(t, p)
	defer closeTab2()
	navigate(t, p2, page.base+"/?token="+page.token)
	pollAcrossNavigation(t, p2, "the dashboard from ?token=", `!!document.querySelector('article.agent[data-agent="w1"]') && !location.href.includes("token")`, 10*time.Second)
}

// pollAcrossNavigation is pollPage for a page that is navigating (a form
// sent, a redirect): an evaluation that fails while the next document
// loads is tried again, until d.
func pollAcrossNavigation(t *testing.T, tab context.Context, what, expr string, d time.Duration) {
	t.Helper()
	var lastErr error
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var ok bool
		if ok, lastErr = evalBool(tab, "(() => { try { return !!document.body && ("+expr+") } catch (e) { return false } })()"); lastErr == nil && ok {
			return
		}
	}
	t.Fatalf("the page never showed %s within %s (last error: %v); it shows:\n%s", what, d, lastErr, innerText(tab))
}
