package hooked

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/fakeagent"
)

// statewriter:out=FILE — a hostile agent against its state dir: once its
// task is in (and warden's dispatch record of it on disk, up to 5 s), it
// tries to write what decides for it in the state dir ($WARDEN_STATE_DIR):
// it opens state.json, its task's record, events.jsonl and STATUS.md to
// append, and creates a record of its own in checkpoints/, the handoff and
// a file in handoffs/. Then what its own processes must still do: a
// Stop-hook message with a block (Notes: VIA-HOOK) over the hook socket —
// through `$WARDEN_BIN hook claude-stop` when WARDEN_BIN is set, as a
// CLI's hook runs it, else sent as `warden hook` sends it; a line in its spool (hooks/, as `warden hook`
// spools when no warden listens) and an open of logs/hook.log; a file in
// its work dir. Each try is a line of out, "write PATH: allowed" or the
// error ("hook: allowed" …), then "done"; then it idles until stopped.
func init() { fakeagent.Register("statewriter", modeStateWriter) }

func modeStateWriter(args []string) int {
	out := ""
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && k == "out" {
			out = v
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	task := ""
	for task == "" && in.Scan() {
		if line := strings.TrimSpace(in.Text()); strings.HasPrefix(line, "Your task:") {
			task = strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, "Your task:"))[0], ".")
		}
	}
	agent, dir := os.Getenv(profile.EnvAgent), os.Getenv(profile.EnvStateDir)
	layout := state.NewLayout(dir)
	record := filepath.Join(layout.Checkpoints(), agent+"-"+task+".json")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(record); err == nil {
			break
		}
	}
	var lines []string
	try := func(what string, err error) { lines = append(lines, what+": "+verdict(err)) }
	for _, p := range []string{layout.State(), record, layout.Events(), layout.Status()} {
		try("write "+p, appendTo(p, nil))
	}
	forged := []byte("FORGED-BY-AGENT\n")
	for _, p := range []string{filepath.Join(layout.Checkpoints(), agent+"-forged.json"), layout.Handoff(), filepath.Join(layout.Handoffs(), "forged.md")} {
		try("write "+p, appendTo(p, forged))
	}
	block := "CHECKPOINT: " + task + "\nStatus: implementing\nCompleted:\n- probing\nRemaining:\n- more\n" +
		"Files Modified: none\nEstimated Progress: 10%\nNotes: VIA-HOOK\n"
	payload, _ := json.Marshal(map[string]any{"last_assistant_message": block})
	if bin := os.Getenv("WARDEN_BIN"); bin != "" { // as a CLI runs its hook
		hook := exec.Command(bin, "hook", profile.KindClaudeStop)
		hook.Stdin = bytes.NewReader(payload)
		out, err := hook.CombinedOutput()
		if err == nil && len(out) > 0 {
			err = fmt.Errorf("warden hook printed %q", out)
		}
		try("hook", err)
		lines = append(lines, "hook by warden hook")
	} else {
		try("hook", hookbus.Send(os.Getenv(profile.EnvSocket), hookbus.Message{Agent: agent, Kind: profile.KindClaudeStop, Payload: payload, At: time.Now()}))
	}
	status, _ := json.Marshal(map[string]any{"context_window": map[string]any{"used_percentage": 1}})
	try("spool", hookbus.Spool(dir, hookbus.Message{Agent: agent, Kind: profile.KindClaudeStatus, Payload: status}))
	try("hook.log", appendTo(layout.HookLog(), nil))
	try("work", os.WriteFile("statewriter-work.txt", []byte("work\n"), 0o600))
	if out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(append(lines, "done"), "\n")+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: statewriter:", err)
			return 1
		}
	}
	for in.Scan() { // stay until stopped
	}
	return 0
}

// appendTo opens p to append (created when missing, with its directory)
// and writes b.
func appendTo(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// verdict is "allowed" or the error's text.
func verdict(err error) string {
	if err == nil {
		return "allowed"
	}
	return err.Error()
}
