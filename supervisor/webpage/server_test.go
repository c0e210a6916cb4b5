//go:build !e2e

package webpage

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/face"
	"github.com/wardenhq/warden/supervisor/state"
)

// testToken is the page's token in these tests.
const testToken = "0123456789abcdef0123456789abcdef"

type fakeTeam struct{}

func (fakeTeam) PS() control.PS {
	return control.PS{Team: "fake", Pid: 42, Agents: []control.Agent{{AgentStatus: state.AgentStatus{Name: "a", State: state.Running}}}}
}
func (fakeTeam) Screen(string) (*control.Screen, error) {
	return &control.Screen{Agent: "a", Rows: []string{"hi"}}, nil
}
func (fakeTeam) Viewer(string) (face.Viewer, error) { return nil, errors.New("no") }
func (fakeTeam) Keys(string, []byte) error          { return nil }
func (fakeTeam) Restart(context.Context, string) (*control.Restarted, error) {
	return nil, errors.New("no")
}
func (fakeTeam) Stop(bool)                   {}
func (fakeTeam) Emit(string, string, ...any) {}
func (fakeTeam) Send(context.Context, string, string, bool) (face.SendResult, error) {
	return face.SendResult{}, nil
}

// serve starts the page for the state dir root on addr; stop ends it.
func serve(t *testing.T, addr, token, root string) (*Server, func()) {
	t.Helper()
	srv, err := Listen(Options{Addr: addr, Token: token, Client: control.NewClient(root), Log: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx); close(done) }()
	return srv, func() { cancel(); <-done }
}

// getHealth asks /healthz until it answers want, for up to twice the time
// it keeps an answer (healthEvery); it returns the last answer.
func getHealth(t *testing.T, url string, header map[string]string, want int) (*http.Response, string) {
	t.Helper()
	deadline := time.Now().Add(2*healthEvery + time.Second)
	for {
		resp, body := get(t, url, header)
		if resp.StatusCode == want || time.Now().After(deadline) {
			return resp, body
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// noRedirects is a client that shows a redirect instead of following it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The page needs its token on every address, on every request but
// /healthz's: ?token= (which sets a cookie and sends the browser on to the
// address without it), the cookie, or Authorization: Bearer. Without it the
// page is a form that asks for it, and the rest 401 (issue 22, item 7).
func TestTokenOnEveryAddress(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
		if _, err := Listen(Options{Addr: addr, Client: control.NewClient(t.TempDir()), Log: hclog.NewNullLogger()}); err == nil {
			t.Errorf("%s without a token was served", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
		t.Run(addr, func(t *testing.T) { tokenChecked(t, addr) })
	}
}

func tokenChecked(t *testing.T, addr string) {
	const token = "s3cret-s3cret-s3cret"
	root := t.TempDir()
	srv, stop := serve(t, addr, token, root)
	defer stop()
	port := srv.Addr()[strings.LastIndex(srv.Addr(), ":"):]
	base := "http://127.0.0.1" + port
	for _, path := range []string{"/api/ps", "/app.js", "/api/events", "/api/screen/a", "/index.html?x=1"} {
		for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong"}, {"Cookie": srv.cookieName() + "=wrong"}} {
			resp, _ := get(t, base+path, h)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s with %v: %s", path, h, resp.Status)
			}
			if !resp.Close {
				t.Errorf("%s with %v: the connection is kept open after the 401", path, h)
			}
		}
		if resp, _ := get(t, base+path+"?token=wrong", nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %s", path, resp.Status)
		}
	}
	resp, body := get(t, base+"/", nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `<form method="post" action="login">`) || strings.Contains(body, root) {
		t.Errorf("the page without its token: %s, want 401 and the form, no path:\n%s", resp.Status, body)
	}
	resp, _ = get(t, base+"/?token="+token, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "./" {
		t.Fatalf("the page with ?token=: %s to %q, want 303 to ./ (the token out of the address bar)", resp.Status, resp.Header.Get("Location"))
	}
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == srv.cookieName() && c.HttpOnly && c.SameSite == http.SameSiteStrictMode {
			cookie = c.Name + "=" + c.Value
		}
	}
	if resp, body := get(t, base+"/", map[string]string{"Cookie": cookie}); cookie == "" || resp.StatusCode != 200 || !strings.Contains(body, "<title>warden</title>") {
		t.Errorf("the page with its cookie %q: %s", cookie, resp.Status)
	}
	if resp, _ := get(t, base+"/app.js?token="+token, nil); resp.StatusCode != 200 {
		t.Errorf("app.js with ?token=: %s", resp.Status)
	}
	// The form: a wrong token gets it again, the right one the cookie.
	for tok, want := range map[string]int{"wrong": http.StatusUnauthorized, token: http.StatusSeeOther} {
		resp, err := noRedirects.PostForm(base+"/login", url.Values{"token": {tok}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || (want == http.StatusSeeOther) != (len(resp.Cookies()) == 1) {
			t.Errorf("the form with %q: %s, %d cookies; want %d", tok, resp.Status, len(resp.Cookies()), want)
		}
	}
	resp, body = get(t, base+"/healthz", map[string]string{"Authorization": "Bearer " + token})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"not_running"`) || !strings.Contains(body, `"error"`) {
		t.Errorf("/healthz with no warden: %s %s", resp.Status, body)
	}
	// A scheduler's probe carries no token: the status alone, nothing else.
	resp, body = get(t, base+"/healthz", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || strings.TrimSpace(body) != `{"status":"not_running"}` {
		t.Errorf("/healthz without the token, no warden: %s %s", resp.Status, body)
	}
	ctl, err := control.Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), fakeTeam{}, control.NewHub(10))
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	resp, body = getHealth(t, base+"/healthz?token=wrong", nil, http.StatusOK)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != `{"status":"running"}` {
		t.Errorf("/healthz without the token, warden running: %s %s; want 200 and the status alone", resp.Status, body)
	}
	resp, body = get(t, base+"/healthz", map[string]string{"Authorization": "Bearer " + token})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"pid":42`) {
		t.Errorf("/healthz with the token, warden running: %s %s; want the team's state", resp.Status, body)
	}
	if strings.Contains(srv.URL(), token) {
		t.Errorf("URL %s holds the token", srv.URL())
	}
}

// On loopback without a token, only loopback Host names are answered: a
// page elsewhere whose name resolves to 127.0.0.1 cannot read this one.
func TestLoopbackHostOnly(t *testing.T) {
	srv, stop := serve(t, "127.0.0.1:0", testToken, t.TempDir())
	defer stop()
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	if resp, _ := get(t, "http://"+srv.Addr()+"/", auth); resp.StatusCode != 200 {
		t.Errorf("loopback: %s", resp.Status)
	}
	if resp, _ := get(t, "http://"+srv.Addr()+"/", map[string]string{"Host": "localhost:1", "Authorization": "Bearer " + testToken}); resp.StatusCode != 200 {
		t.Errorf("localhost: %s", resp.Status)
	}
	if resp, _ := get(t, "http://"+srv.Addr()+"/", map[string]string{"Host": "evil.example:80", "Authorization": "Bearer " + testToken}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host evil.example: %s", resp.Status)
	}
	for _, addr := range []string{"127.0.0.1:7777", "localhost:7777", "[::1]:7777"} {
		if !Loopback(addr) {
			t.Errorf("%s is loopback", addr)
		}
	}
	for _, addr := range []string{":7777", "0.0.0.0:7777", "10.0.0.1:7777", "example.com:80"} {
		if Loopback(addr) {
			t.Errorf("%s is not loopback", addr)
		}
	}
}

// /healthz: 200 with the team's state while a warden answers, 503 when
// not; /api/events streams the state at once.
func TestHealthzAndEvents(t *testing.T) {
	root := t.TempDir()
	srv, stop := serve(t, "127.0.0.1:0", testToken, root)
	defer stop()
	if resp, _ := get(t, "http://"+srv.Addr()+"/healthz", nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz with no warden: %s", resp.Status)
	}
	ctl, err := control.Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), fakeTeam{}, control.NewHub(10))
	if err != nil {
		t.Fatal(err)
	}
	resp, body := getHealth(t, "http://"+srv.Addr()+"/healthz?token="+testToken, nil, http.StatusOK)
	var h Health
	if json.Unmarshal([]byte(body), &h); resp.StatusCode != 200 || h.Status != "running" || h.Team == nil || h.Team.Pid != 42 {
		t.Errorf("/healthz with a warden: %s %s", resp.Status, body)
	}
	r, err := http.Get("http://" + srv.Addr() + "/api/events?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r.Body)
		for sc.Scan() {
			if sc.Text() == "event: ps" {
				got <- sc.Text()
				return
			}
		}
	}()
	select {
	case <-got:
	case <-time.After(2 * time.Second):
		t.Error("no ps event on /api/events within 2 s")
	}
	r.Body.Close()
	ctl.Close()
	if resp, _ := getHealth(t, "http://"+srv.Addr()+"/healthz", nil, http.StatusServiceUnavailable); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz after warden went: %s", resp.Status)
	}
}
