package fakeprovider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
)

// start is the fixed time of the fake clock the tests use.
var start = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func nilLogger() hclog.Logger { return hclog.NewNullLogger() }

func newTestServer(t *testing.T, script Script) *Server {
	t.Helper()
	if script.Clock == nil {
		script.Clock = clock.NewFake(start)
	}
	s := New(hclog.NewNullLogger(), script)
	t.Cleanup(s.Close)
	return s
}

// post sends a JSON body and returns the response with its body read.
func post(t *testing.T, url, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, b
}

type event struct {
	name string
	data map[string]any
}

// parseSSE splits a server-sent event stream into events with JSON data.
func parseSSE(t *testing.T, b []byte) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("event data is not JSON: %q: %v", line, err)
			}
		case line == "":
			if cur.data != nil {
				out = append(out, cur)
			}
			cur = event{}
		}
	}
	return out
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body is not JSON: %q: %v", b, err)
	}
	return m
}

// dig walks nested maps and slices: dig(m, "a", 0, "b").
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// checkpointText is a multi-line answer longer than one chunk.
const checkpointText = "CHECKPOINT: T060\nStatus: implementing\nCompleted:\n- parsed config\nRemaining:\n- write tests\n" +
	"Files Modified: a.go, b.go\nEstimated Progress: 65%"
