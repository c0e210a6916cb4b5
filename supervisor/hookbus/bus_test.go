//go:build !e2e

package hookbus

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

func TestRoundTripAndPermissions(t *testing.T) {
	state := t.TempDir()
	s := listen(t, state)
	if s.Path() != filepath.Join(state, "hooks.sock") {
		t.Errorf("socket at %s", s.Path())
	}
	st, err := os.Stat(s.Path())
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket mode %v, %v; want 0600 socket", st.Mode(), err)
	}
	at := time.Now().Round(0)
	for _, payload := range []string{`{"a": [1, 2],
 "b": "x"}`, "not json\n", ""} {
		if err := Send(s.Path(), Message{Agent: "w1", Kind: profile.KindClaudeStop, Payload: []byte(payload), At: at}); err != nil {
			t.Fatal(err)
		}
		m := receive(t, s)
		want := payload
		if payload[0:min(1, len(payload))] == "{" {
			want = `{"a":[1,2],"b":"x"}`
		}
		if m.Agent != "w1" || m.Kind != profile.KindClaudeStop || string(m.Payload) != want || !m.At.Equal(at) {
			t.Errorf("got %+v (payload %q), want payload %q", m, m.Payload, want)
		}
	}
	// A second server on the same socket is refused; after Close the socket is gone.
	if _, err := Listen(testLogger(), s.Path()); err == nil {
		t.Error("second Listen on a live socket succeeded")
	}
	s.Close()
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	if _, ok := <-s.Messages(); ok {
		t.Error("Messages not closed after Close")
	}
}

func TestLongStateDirUsesShortPrivateSocket(t *testing.T) {
	state := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	p := socketOf(state)
	if len(p) > 107 || strings.HasPrefix(p, state) || p != socketOf(state) {
		t.Fatalf("SocketPath = %s", p)
	}
	s := listen(t, state)
	st, err := os.Stat(filepath.Dir(s.Path()))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode %v, %v; want 0700", st.Mode(), err)
	}
	if err := Send(s.Path(), Message{Agent: "w1", Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	receive(t, s)
}

func TestListenRefusesOpenDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	os.MkdirAll(dir, 0o700)
	os.Chmod(dir, 0o777)
	if _, err := Listen(testLogger(), filepath.Join(dir, "hooks.sock")); err == nil {
		t.Error("Listen accepted a world-writable socket dir")
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	state := t.TempDir()
	s := listen(t, state)
	// A dead supervisor leaves its socket file behind.
	s.ln.SetUnlinkOnClose(false)
	s.Close()
	s2 := listen(t, state)
	if err := Send(s2.Path(), Message{Agent: "w1", Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	receive(t, s2)
}

func TestSpoolAndDrain(t *testing.T) {
	state := t.TempDir()
	env := inAgent(HookEnv{Agent: "w1", StateDir: state, Socket: filepath.Join(state, "hooks.sock")})
	if err := RunHook([]string{profile.KindClaudeStop}, strings.NewReader(`{"last_assistant_message":"one"}`), &bytes.Buffer{}, env); err != nil {
		t.Fatal(err)
	}
	env.Socket = ""
	if err := RunHook([]string{profile.KindGeminiAfterAgent}, strings.NewReader(`{"prompt_response":"two"}`), &bytes.Buffer{}, env); err != nil {
		t.Fatal(err)
	}
	spool, _ := spoolOf(state, "w1")
	st, err := os.Stat(spool)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("spool %v, %v", st, err)
	}
	if st, _ := os.Stat(filepath.Dir(spool)); st.Mode().Perm() != 0o700 {
		t.Errorf("spool dir mode %v", st.Mode())
	}
	os.WriteFile(spool+".x", nil, 0o600) // not a spool: ignored
	f, _ := os.OpenFile(spool, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"agent":"w1","ki`) // a torn line from a killed hook
	f.Close()
	msgs, skipped, err := Drain(state)
	if err != nil || skipped != 1 || len(msgs) != 2 {
		t.Fatalf("Drain = %d msgs, %d skipped, %v", len(msgs), skipped, err)
	}
	if profile.ClaudeStop(msgs[0].Payload) != "one" || profile.GeminiAfterAgent(msgs[1].Payload) != "two" {
		t.Errorf("drained %q, %q", msgs[0].Payload, msgs[1].Payload)
	}
	if _, err := os.Stat(spool); !errors.Is(err, os.ErrNotExist) {
		t.Error("spool not removed by Drain")
	}
	if _, err := spoolOf(state, "../x"); err == nil {
		t.Error("SpoolPath accepted a path in the agent name")
	}
}

func TestHookLogsFailure(t *testing.T) {
	state := t.TempDir()
	os.WriteFile(filepath.Join(state, "hooks"), nil, 0o600) // spool dir cannot be made
	err := RunHook([]string{profile.KindClaudeStop}, strings.NewReader(`{}`), &bytes.Buffer{}, inAgent(HookEnv{Agent: "w1", StateDir: state}))
	if err == nil {
		t.Fatal("no error when neither send nor spool works")
	}
	b, _ := os.ReadFile(filepath.Join(state, "logs", "hook.log"))
	if !strings.Contains(string(b), "hook failed") || !strings.Contains(string(b), "kind=claude-stop") {
		t.Errorf("hook.log: %q", b)
	}
	if st, err := os.Stat(filepath.Join(state, "logs", "hook.log")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("hook.log mode: %v %v", st, err)
	}
}

func TestStatusLineOutput(t *testing.T) {
	state := t.TempDir()
	s := listen(t, state)
	env := HookEnv{Agent: "w1", StateDir: state, Socket: s.Path()}
	payload := `{"context_window":{"used_percentage":42}}`
	var out bytes.Buffer
	if err := RunHook([]string{profile.KindClaudeStatus}, strings.NewReader(payload), &out, env); err != nil {
		t.Fatal(err)
	}
	if out.String() != "warden: 42% context\n" {
		t.Errorf("status line %q", out.String())
	}
	receive(t, s)
	out.Reset()
	// The user's own status line command sees the same input and comes first.
	user := `read -r x; case "$x" in *42*) echo "my line";; esac`
	if err := RunHook([]string{profile.KindClaudeStatus, user}, strings.NewReader(payload+"\n"), &out, env); err != nil {
		t.Fatal(err)
	}
	if out.String() != "my line · warden: 42% context\n" {
		t.Errorf("chained status line %q", out.String())
	}
	receive(t, s)
}
