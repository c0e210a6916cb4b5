package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
)

// recording is the sidecar of one raw pty capture in protocol/testdata/cli-*/.
type recording struct {
	CLI   string `json:"cli"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Typed []struct {
		AtMS   int    `json:"at_ms"`
		Offset int    `json:"offset"`
		Text   string `json:"text"`
	} `json:"typed"`
	UsageLimit *struct {
		ResetInSeconds int    `json:"reset_in_seconds"`
		SentAt         string `json:"sent_at"`
		ResetAt        string `json:"reset_at"`      // limit recordings: the window's reset
		QuotaPercent   int    `json:"quota_percent"` // the quota every answer reported
		Screen         string `json:"screen"`        // the visible screen, banner or dialog fully drawn
		Keep           string `json:"keep"`          // what answered the model-switch dialog
		Resume         string `json:"resume"`        // "auto", or what was typed after the reset
		ResumedAt      string `json:"resumed_at"`    // the first request after the reset
	} `json:"usage_limit"`
	raw []byte
}

const testdataDir = "../testdata"

func loadRecording(t testing.TB, cli, name string) *recording {
	t.Helper()
	base := filepath.Join(testdataDir, "cli-"+cli, name)
	data, err := os.ReadFile(base + ".json")
	if err != nil {
		t.Fatalf("read sidecar: %v", err)
	}
	rec := &recording{}
	if err := json.Unmarshal(data, rec); err != nil {
		t.Fatalf("decode %s.json: %v", base, err)
	}
	if rec.raw, err = os.ReadFile(base + ".raw"); err != nil {
		t.Fatalf("read capture: %v", err)
	}
	return rec
}

// staticScreen is one frozen screen: rows as text and the paste mode.
type staticScreen struct {
	rows      []string
	bracketed bool
}

func (s staticScreen) Rows() []string  { return s.rows }
func (s staticScreen) Bracketed() bool { return s.bracketed }
func (s staticScreen) String() string  { return strings.Join(s.rows, "\n") }

// replayer feeds a capture through protocol's screen emulator in order,
// so that a test can look at the screen at growing offsets.
type replayer struct {
	rec   *recording
	scr   protocol.Screen
	modes ModeTracker
	at    int
}

func (r *recording) replay(t testing.TB) *replayer {
	t.Helper()
	rp := &replayer{rec: r, scr: protocol.NewScreen(testLogger(t), r.Cols, r.Rows, nil)}
	t.Cleanup(func() { _ = rp.scr.Close() })
	return rp
}

// to feeds the capture up to offset (never backwards) and returns the
// screen a person would have seen then.
func (rp *replayer) to(offset int) staticScreen {
	offset = min(offset, len(rp.rec.raw))
	for rp.at < offset {
		n := min(4096, offset-rp.at)
		b := rp.rec.raw[rp.at : rp.at+n]
		_, _ = rp.scr.Write(b)
		_, _ = rp.modes.Write(b)
		rp.at += n
	}
	return rp.snap()
}

func (rp *replayer) snap() staticScreen {
	rows := rp.scr.Rows()
	out := make([]string, len(rows))
	for i, row := range rows {
		out[i] = row.Text
	}
	return staticScreen{rows: out, bracketed: rp.modes.Bracketed()}
}

// screenAt replays the capture from the start up to offset.
func (r *recording) screenAt(t testing.TB, offset int) staticScreen {
	t.Helper()
	return r.replay(t).to(offset)
}

// typedAt returns the offset of the i-th write whose text starts with prefix.
func (r *recording) typedAt(t testing.TB, prefix string, nth int) int {
	t.Helper()
	for _, ty := range r.Typed {
		if strings.HasPrefix(ty.Text, prefix) {
			if nth == 0 {
				return ty.Offset
			}
			nth--
		}
	}
	t.Fatalf("no typed entry %q", prefix)
	return 0
}

func testLogger(t testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Warn, Output: os.Stderr})
}

var cliNames = []string{"claude", "codex", "gemini", "opencode", "qwen", "copilot"}

func mustProfile(t testing.TB, name string) *Profile {
	t.Helper()
	p, err := For(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
