package hooked

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/testrig/fakeagent"
)

// spender[:in=N][:cached=N][:write=N][:out=N][:every=D][:turns=N][:cost=X]
// [:model=M][:dir=D]: a CLI that spends tokens as Claude Code records
// them, for the budgets without a real CLI. From its first prompt on it
// appends an assistant answer every D (default 200ms) to a transcript of
// Claude's form, D/projects/-fake/<session>.jsonl (D: dir=, default
// .fake-claude in its working directory): each answer's message.usage
// {input_tokens: N (default 1000), cache_read_input_tokens, cache_creation_
// input_tokens, output_tokens} written twice (two content blocks, one
// message id), turns answers in all (default: no end). It names its
// transcript to warden the way Claude's status line does (claude-status,
// transcript_path), with cost.total_cost_usd when cost=X (dollars an
// answer). It answers CHECKPOINT REQUESTs like "hooked"; it prints
// "SPENT k" after its k-th answer.
func init() { fakeagent.Register("spender", modeSpender) }

// SpenderTokens is what one answer of a spender with opts spends, as the
// transcript says it (the prompt being input + cached + written).
func SpenderTokens(opts map[string]string) protocol.Tokens {
	n := func(k string, def int64) int64 {
		v, err := strconv.ParseInt(opts[k], 10, 64)
		if err != nil {
			return def
		}
		return v
	}
	in, cached, write := n("in", 1000), n("cached", 0), n("write", 0)
	return protocol.Tokens{Input: in + cached + write, CachedInput: cached, CacheWrite: write, Output: n("out", 100)}
}

func modeSpender(args []string) int {
	opt := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opt[k] = v
		}
	}
	every, err := time.ParseDuration(opt["every"])
	if err != nil || every <= 0 {
		every = 200 * time.Millisecond
	}
	turns, _ := strconv.Atoi(opt["turns"])
	cost, _ := strconv.ParseFloat(opt["cost"], 64)
	dir := opt["dir"]
	if dir == "" {
		dir = ".fake-claude"
	}
	dir, _ = filepath.Abs(filepath.Join(dir, "projects", "-fake"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: spender:", err)
		return 1
	}
	session := newHex(16)
	path := filepath.Join(dir, session+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: spender:", err)
		return 1
	}
	defer f.Close()
	send := func(kind string, payload map[string]any) {
		payload["session_id"], payload["transcript_path"] = session, path
		sendHook(kind, payload)
	}
	t := SpenderTokens(opt)
	model := opt["model"]
	if model == "" {
		model = "fake-model"
	}
	var mu sync.Mutex // the answers and the checkpoint blocks, one at a time
	answers := 0
	spend := func() {
		mu.Lock()
		defer mu.Unlock()
		answers++
		id := "msg_" + newHex(8)
		line, _ := json.Marshal(map[string]any{"type": "assistant", "requestId": "req_" + newHex(8), "sessionId": session,
			"message": map[string]any{"id": id, "model": model, "role": "assistant", "usage": map[string]any{
				"input_tokens": t.Input - t.CachedInput - t.CacheWrite, "cache_read_input_tokens": t.CachedInput,
				"cache_creation_input_tokens": t.CacheWrite, "output_tokens": t.Output}}})
		f.Write(append(line, '\n'))
		f.Write(append(line, '\n')) // a second content block of the same message
		status := map[string]any{}
		if cost > 0 {
			status["cost"] = map[string]any{"total_cost_usd": cost * float64(answers)}
		}
		send(profile.KindClaudeStatus, status)
		fmt.Printf("SPENT %d\n", answers)
	}
	started := false
	n := 0
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		switch {
		case strings.HasPrefix(line, "Your task:") && !started:
			started = true
			send(profile.KindClaudeStatus, map[string]any{})
			go func() {
				for k := 0; turns == 0 || k < turns; k++ {
					time.Sleep(every)
					spend()
				}
			}()
		case strings.HasPrefix(line, "CHECKPOINT REQUEST:"):
			task, _ := protocol.RequestTask(line)
			mu.Lock()
			n++
			block := fmt.Sprintf("CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- answer %d\nRemaining:\n- more\nFiles Modified: a.go\nEstimated Progress: %d%%\n", task, answers, min(n, 99))
			fmt.Print(block + "\n")
			mu.Unlock()
			send(profile.KindClaudeStop, map[string]any{"last_assistant_message": block})
		}
	}
	return 0
}

func newHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// sendHook hands a message of kind to warden's hook socket, as `warden
// hook` would, with the WARDEN_* variables warden set.
func sendHook(kind string, payload any) {
	b, _ := json.Marshal(payload)
	m := hookbus.Message{Agent: os.Getenv(profile.EnvAgent), Kind: kind, Payload: b, At: time.Now()}
	if err := hookbus.Send(os.Getenv(profile.EnvSocket), m); err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: hook:", err)
	}
}
