//go:build !e2e

package tokenfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A busy night for one agent: a model request every 5 s, each adding to
// the CLI's files what a tool-using turn adds (sizes from the real CLIs'
// files: an assistant line per content block, a 4 KB tool result; Codex's
// function call, output, token_count and token_usage_record; Gemini's
// message with its tool call and result). Over 8 h that is 5,760 requests
// and a 40-70 MB transcript per agent.
const requestEvery = 5 * time.Second

// agentFiles is one agent's session: the files a reader reads and what one
// model request appends to each.
type agentFiles struct {
	reader  Reader
	paths   []string
	request func(i int) []string // the text appended to each path
}

// benchAgents makes 10 agents (4 Claude Code with a sub-agent, 3 Codex, 3
// Gemini CLI) whose files already hold 2 MB each, read once.
func benchAgents(b *testing.B) []agentFiles {
	dir := b.TempDir()
	result := claudeUser(4000)
	var out []agentFiles
	for a := range 4 {
		main := filepath.Join(dir, fmt.Sprintf("claude%d", a), "s.jsonl")
		sub := filepath.Join(dir, fmt.Sprintf("claude%d", a), "s", "subagents", "agent-a1.jsonl")
		out = append(out, agentFiles{reader: NewClaude(main), paths: []string{main, sub}, request: func(i int) []string {
			id := fmt.Sprintf("msg_%d", i)
			turn := claudeAssistant(id, "req_"+id, "claude-opus-5-5", 3000, 200, 60000, 300, "text") +
				claudeAssistant(id, "req_"+id, "claude-opus-5-5", 3000, 200, 60000, 300, "tool_use") + result
			if i%4 == 0 {
				return []string{turn, claudeAssistant("sub"+id, "req_sub"+id, "claude-haiku-5", 800, 0, 9000, 120, "text")}
			}
			return []string{turn, ""}
		}})
	}
	output := fmt.Sprintf(`{"timestamp":"2026-11-25T22:17:05.908Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":%q}}`+"\n", strings.Repeat("x", 4000))
	for a := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("codex%d", a), "rollout.jsonl")
		out = append(out, agentFiles{reader: NewCodex(p), paths: []string{p}, request: func(i int) []string {
			call := `{"timestamp":"2026-11-25T22:17:05.900Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\",\"workdir\":\"/work/project\",\"yield_time_ms\":10000}","call_id":"call_1"}}` + "\n"
			record := `{"timestamp":"2026-11-25T22:17:05.908Z","type":"token_usage_record","payload":{"thread_id":"t","turn_id":"u","usage":{"input_tokens":3000,"cached_input_tokens":2000,"output_tokens":300,"reasoning_output_tokens":0,"total_tokens":3300}}}` + "\n"
			return []string{call + output + record + codexTokenCount(3000*(i+1), 2000*(i+1), 300*(i+1))}
		}})
	}
	for a := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("gemini%d", a), "session-x-9ac5031c.jsonl")
		out = append(out, agentFiles{reader: NewGemini(p), paths: []string{p}, request: func(i int) []string {
			calls := fmt.Sprintf(`{"id":"g%d","type":"gemini","content":"","toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"go test ./..."},"result":%q}],"model":"gemini-3.8-flash"}`+"\n",
				i, strings.Repeat("y", 3000))
			return []string{calls + geminiMessage(fmt.Sprintf("g%d", i), "gemini-3.8-flash", 3000, 2000, 300) + `{"$set":{"lastUpdated":"2026-11-25T22:17:38.755Z"}}` + "\n"}
		}})
	}
	// 2 MB of history each, read once: the benchmark then measures the
	// reading of what a poll interval appends.
	for i, a := range out {
		history := make([]strings.Builder, len(a.paths))
		for n := 0; history[0].Len() < 2<<20; n++ {
			for k, text := range a.request(-1 - n - 10000*i) {
				history[k].WriteString(text)
			}
		}
		for k, p := range a.paths {
			appendFile(b, p, history[k].String())
		}
		if _, err := a.reader.Read(); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// appendRequest appends one model request's lines to an agent's files and
// returns the bytes written.
func appendRequest(b *testing.B, a agentFiles, i int) int64 {
	var n int64
	for k, text := range a.request(i) {
		if text != "" {
			n += appendFile(b, a.paths[k], text)
		}
	}
	return n
}

// BenchmarkReadTenAgents is one poll of 10 busy agents' usage readers
// after poll/requestEvery requests each: ns/op is the CPU one poll takes
// (the readers run on one goroutine), and cpu-% is that over the poll
// interval. BenchmarkBareReadTenAgents reads the same appended bytes with
// plain reads, nothing parsed: the cost of reading the files at all.
func BenchmarkReadTenAgents(b *testing.B) {
	for _, poll := range []time.Duration{time.Second, 10 * time.Second, time.Minute} {
		b.Run("poll="+poll.String(), func(b *testing.B) { benchPoll(b, poll, false) })
	}
}

func BenchmarkBareReadTenAgents(b *testing.B) {
	for _, poll := range []time.Duration{time.Second, 10 * time.Second, time.Minute} {
		b.Run("poll="+poll.String(), func(b *testing.B) { benchPoll(b, poll, true) })
	}
}

func benchPoll(b *testing.B, poll time.Duration, bare bool) {
	agents := benchAgents(b)
	offsets := make([][]int64, len(agents))
	for i, a := range agents {
		for _, p := range a.paths {
			offsets[i] = append(offsets[i], fileSize(p))
		}
	}
	perPoll := float64(poll) / float64(requestEvery)
	buf := make([]byte, 256<<10)
	var appended int64
	done := 0.0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// Requests due by the end of this poll (1 s polls see one request
		// every fifth poll).
		for due := float64(i+1) * perPoll; done < due; done++ {
			for _, a := range agents {
				appended += appendRequest(b, a, int(done))
			}
		}
		b.StartTimer()
		for k, a := range agents {
			if bare {
				for j, p := range a.paths {
					offsets[k][j] += bareRead(b, p, offsets[k][j], buf)
				}
				continue
			}
			if _, err := a.reader.Read(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(appended)/float64(b.N), "B/poll")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(poll.Nanoseconds())*100, "cpu-%")
	if !bare {
		var read int64
		for _, a := range agents {
			rep, _ := a.reader.Read()
			read += rep.BytesRead
		}
		var total int64
		for _, a := range agents {
			for _, p := range a.paths {
				total += fileSize(p)
			}
		}
		if read != total {
			b.Errorf("the readers read %d bytes of files holding %d", read, total)
		}
	}
}

// bareRead reads a file from off to its end and returns the bytes read.
func bareRead(b *testing.B, path string, off int64, buf []byte) int64 {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return 0
		}
		b.Fatal(err)
	}
	defer f.Close()
	var n int64
	for {
		k, err := f.ReadAt(buf, off+n)
		n += int64(k)
		if err == io.EOF || k == 0 {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
