//go:build e2e

package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pageRun is a `warden run --http 127.0.0.1:0` under test.
type pageRun struct {
	cmd   *exec.Cmd
	out   *lines
	line  string // the DASHBOARD line
	base  string // http://127.0.0.1:PORT
	token string // the page's token, as a person finds it
}

// startPageRun starts `warden run --http 127.0.0.1:0 args… team` with env
// added to warden's environment, and (nofile > 0) RLIMIT_NOFILE set to
// nofile (soft and hard) before warden starts; it returns once warden
// printed its DASHBOARD line. The token is the one env gives, else the one
// in the state dir's page-token file.
func startPageRun(t testing.TB, team string, nofile int, env []string, args ...string) *pageRun {
	t.Helper()
	return startPage(t, stateOf(team), nofile, env, append(append([]string{"run", "--http", "127.0.0.1:0"}, args...), team)...)
}

// startPage starts warden with argv (run or serve, with --http) as
// startPageRun does; stateDir is where the page-token file would be.
func startPage(t testing.TB, stateDir string, nofile int, env []string, argv ...string) *pageRun {
	t.Helper()
	cmd := warden(argv...)
	if nofile > 0 {
		// sh's ulimit -n sets both limits; exec keeps the pid warden's.
		cmd = exec.Command("/bin/sh", append([]string{"-c", "ulimit -n " + strconv.Itoa(nofile) + ` && exec "$0" "$@"`, os.Args[0]}, argv...)...)
		cmd.Env = warden().Env
	}
	cmd.Env = append(cmd.Env, env...)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &lines{}
	cmd.Stderr = stderrWriter{out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go out.read(pipe)
	p := &pageRun{cmd: cmd, out: out}
	for deadline := time.Now().Add(20 * time.Second); p.line == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		out.mu.Lock()
		for _, l := range out.all {
			if strings.HasPrefix(l, "DASHBOARD: ") {
				p.line = stampAtEnd.ReplaceAllString(l, "") // run's line ends with its time (stdout is a pipe)
			}
		}
		out.mu.Unlock()
	}
	if p.line == "" {
		stopRun(cmd)
		t.Fatalf("warden %s printed no DASHBOARD line:\n%s", argv[0], out.dump())
	}
	u, err := url.Parse(strings.Fields(strings.TrimPrefix(p.line, "DASHBOARD: "))[0])
	if err != nil {
		stopRun(cmd)
		t.Fatalf("DASHBOARD line %q: %v", p.line, err)
	}
	p.base = "http://" + u.Host
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "WARDEN_HTTP_TOKEN="); ok {
			p.token = v
		}
	}
	if p.token == "" {
		b, _ := os.ReadFile(filepath.Join(stateDir, "page-token"))
		p.token = strings.TrimSpace(string(b))
	}
	return p
}

// stop ends warden with SIGTERM and waits for it.
func (p *pageRun) stop() { stopRun(p.cmd) }

// get fetches path from the page, with the token as a Bearer header when
// withToken; it returns the status code and body (-1 when no answer came).
func (p *pageRun) get(path string, withToken bool) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, p.base+path, nil)
	if withToken {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return -1, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// sse is one viewer of the page's event stream.
type sse struct {
	resp   *http.Response
	mu     sync.Mutex
	events []sseEvent
	ended  chan struct{}
}

type sseEvent struct{ name, data string }

// openStream opens /api/events with the token; status is the answer's code
// (the stream is read in the background only when it is 200).
func (p *pageRun) openStream(t testing.TB) (*sse, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.base+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return nil, -1
	}
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, resp.StatusCode
	}
	s := &sse{resp: resp, ended: make(chan struct{})}
	go s.read()
	return s, resp.StatusCode
}

func (s *sse) read() {
	defer close(s.ended)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var name string
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			name = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: "):
			s.mu.Lock()
			s.events = append(s.events, sseEvent{name, strings.TrimPrefix(l, "data: ")})
			s.mu.Unlock()
		}
	}
}

// count is how many events called name whose data contains sub came.
func (s *sse) count(name, sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.events {
		if e.name == name && strings.Contains(e.data, sub) {
			n++
		}
	}
	return n
}

// names lists the events that came, for a failure message.
func (s *sse) names() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, e := range s.events {
		b.WriteString(e.name + " " + e.data[:min(len(e.data), 120)] + "\n")
	}
	return b.String()
}

func (s *sse) close() { s.resp.Body.Close() }

// openFDs counts the descriptors process pid holds.
func openFDs(pid int) int {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(ents)
}

// wardenCmdWithin is wardenCmd that gives up after d (exit -1): a command
// that should answer at once must not hang a test whose warden is starved.
func wardenCmdWithin(d time.Duration, args ...string) (string, string, int) {
	return wardenCmdEnvWithin(d, nil, args...)
}

// wardenCmdEnvWithin is wardenCmdWithin with env added to warden's.
func wardenCmdEnvWithin(d time.Duration, env []string, args ...string) (string, string, int) {
	var stdout, stderr strings.Builder
	cmd := warden(args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return "", err.Error(), -1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return stdout.String(), stderr.String(), exitCode(err)
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return stdout.String(), stderr.String() + fmt.Sprintf("(no answer within %s)", d), -1
	}
}
