package hooks

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// codexSettings overrides notify on the command line (-c), so the user's
// config.toml is untouched. A notify program the user configured there
// keeps running: its argv goes after the kind, and `warden hook
// codex-notify` starts it with the same JSON argument.
func codexSettings(o Options) ([]string, error) {
	argv := []string{o.WardenBin, "hook", KindCodexNotify}
	argv = append(argv, o.userCodexNotify()...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		if !utf8.ValidString(a) {
			return nil, fmt.Errorf("notify argument %d is not UTF-8", i)
		}
		quoted[i] = tomlString(a)
	}
	args := []string{"-c", "notify=[" + strings.Join(quoted, ",") + "]"}
	if o.Protocol != "" {
		// Developer instructions are rebuilt into every context, compacted or not.
		args = append(args, "-c", "developer_instructions="+tomlString(o.Protocol))
	}
	return args, nil
}

// CodexHome is the agent's CODEX_HOME: the variable, or ~/.codex.
func CodexHome(env []string) string {
	o := Options{Env: env}
	if h := o.env("CODEX_HOME"); h != "" {
		return h
	}
	if home := o.env("HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
}

func (o Options) userCodexNotify() []string {
	home := CodexHome(o.Env)
	if home == "" {
		return nil
	}
	b, err := o.readFile(filepath.Join(home, "config.toml"))
	if err != nil {
		return nil
	}
	var cfg struct {
		Notify []string `toml:"notify"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return nil
	}
	return cfg.Notify
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FindCodexRollout returns the rollout file of a Codex session,
// CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<threadID>.jsonl, newest
// day first; "" when there is none (yet).
func FindCodexRollout(codexHome, threadID string) string {
	if codexHome == "" || threadID == "" || strings.ContainsAny(threadID, `/\*?[`) {
		return ""
	}
	matches, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*-"+threadID+".jsonl"))
	if len(matches) == 0 {
		return ""
	}
	sort.Strings(matches)
	return matches[len(matches)-1]
}

// LastCodexTokenCount returns the newest token_count line of a rollout
// file, reading at most its last tail bytes (0: 1 MiB).
func LastCodexTokenCount(path string, tail int64) ([]byte, error) {
	if tail <= 0 {
		tail = 1 << 20
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open rollout: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat rollout: %w", err)
	}
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(buf))
	sc.Buffer(make([]byte, 64<<10), int(tail)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.Contains(line, []byte(`"token_count"`)) {
			if _, ok := codexTokenInfo(line); ok {
				last = append(last[:0], line...)
			}
		}
	}
	if last == nil {
		return nil, fmt.Errorf("no token_count in the last %s bytes of the rollout", strconv.FormatInt(tail, 10))
	}
	return last, nil
}
