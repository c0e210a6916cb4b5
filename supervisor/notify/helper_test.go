//go:build e2e

package notify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// helperArg as the first argument makes the test binary a notify command:
// `notify.test notify-test-helper MODE DIR`.
const helperArg = "notify-test-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 3 && os.Args[1] == helperArg {
		os.Exit(helper(os.Args[2], os.Args[3]))
	}
	// Every command inherits the owner mark (proctest finds leftovers by it)
	// and a race-enabled helper does not sleep 1 s at exit.
	_ = os.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid()))
	_ = os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// record is what the "record" helper saw: when it started, its stdin, and
// the WARDEN_ variables of its environment.
type record struct {
	Start int64             `json:"start"` // UnixNano, the helper's first instruction
	Stdin string            `json:"stdin"`
	Env   map[string]string `json:"env"`
}

// helper runs a helper mode, writing DIR/$WARDEN_TASK.json:
// "record" the whole record, "stamp" only the start time.
func helper(mode, dir string) int {
	start := time.Now().UnixNano()
	rec := record{Start: start, Env: map[string]string{}}
	if mode == "record" {
		in, _ := io.ReadAll(os.Stdin)
		rec.Stdin = string(in)
		for _, kv := range os.Environ() {
			if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "WARDEN_") {
				rec.Env[k] = v
			}
		}
	}
	b, _ := json.Marshal(rec)
	path := filepath.Join(dir, os.Getenv(EnvTask)+".json")
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func pid() int { return os.Getpid() }

// helperCommand is the argv of a helper mode writing into dir.
func helperCommand(t testing.TB, mode, dir string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, helperArg, mode, dir}
}

func readRecord(t testing.TB, dir, task string) record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, task+".json"))
	if err != nil {
		t.Fatalf("helper record: %v", err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("helper record %s: %v", b, err)
	}
	return rec
}

// waitFile waits for path to exist and returns its content.
func waitFile(t testing.TB, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && bytes.HasSuffix(b, []byte("\n")) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 10s", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
