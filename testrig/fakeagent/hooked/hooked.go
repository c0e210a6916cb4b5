// Package hooked adds the fake agent mode "hooked" (an agent whose CLI has
// hooks). It lives apart from fakeagent because it talks to the hook bus, whose
// own tests use fakeagent; import it blank where the mode is needed.
package hooked

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/testrig/fakeagent"
)

// hooked[:pct=N][:limit=S]: an agent whose CLI has hooks, as Claude Code's
// do. Like "worker" it answers CHECKPOINT REQUESTs on the screen, and it also
// hands every answer to warden the way a Stop hook does (hookbus, with the
// WARDEN_* variables warden set). pct=N: on its first session, after the
// first prompt, report a context gauge of N% (a status line). limit=S: report
// its 5-hour usage window used up, resetting in S seconds; on "continue"
// print "CONTINUED".
func init() { fakeagent.Register("hooked", modeHooked) }

func modeHooked(args []string) int {
	opt := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opt[k] = v
		}
	}
	send := func(kind string, payload any) {
		b, _ := json.Marshal(payload)
		m := hookbus.Message{Agent: os.Getenv(profile.EnvAgent), Kind: kind, Payload: b, At: time.Now()}
		if err := hookbus.Send(os.Getenv(profile.EnvSocket), m); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: hook:", err)
		}
	}
	resumed, n := false, 0
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		switch {
		case strings.HasPrefix(line, "You are resuming") || strings.HasPrefix(line, "The team was checkpointed"):
			resumed = true
		case strings.HasPrefix(line, "Your task:"):
			fmt.Println("working")
			if p := opt["pct"]; p != "" && !resumed {
				pct, _ := strconv.ParseFloat(p, 64)
				send(profile.KindClaudeStatus, map[string]any{"context_window": map[string]any{"used_percentage": pct}})
			}
			if s := opt["limit"]; s != "" {
				secs, _ := strconv.Atoi(s)
				send(profile.KindClaudeStatus, map[string]any{"rate_limits": map[string]any{"five_hour": map[string]any{
					"used_percentage": 100, "resets_at": time.Now().Add(time.Duration(secs) * time.Second).Unix()}}})
			}
		case line == "continue":
			fmt.Println("CONTINUED")
		case strings.HasPrefix(line, "CHECKPOINT REQUEST:"):
			task, _ := protocol.RequestTask(line)
			n++
			block := fmt.Sprintf("CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- step %d\nRemaining:\n- more\nFiles Modified: a.go\nEstimated Progress: %d%%\n", task, n, min(n, 99))
			fmt.Print(block + "\n")
			send(profile.KindClaudeStop, map[string]any{"last_assistant_message": "Here is my checkpoint.\n\n" + block})
		}
	}
	return 0
}
