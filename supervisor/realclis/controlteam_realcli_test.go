//go:build e2e

package realclis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/teamtest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/control"
)

// TestRealCLIScreenAttachSend operates each real agent CLI, offline
// against its fake provider API, through the control socket: warden screen
// shows what the CLI drew (the model's answer), an attached viewer's first
// frame draws that same screen, and a text sent with warden send is
// submitted and its answer reaches the viewer's stream.
func TestRealCLIScreenAttachSend(t *testing.T) {
	realCLIsTwoAtOnce(t, []string{"claude", "codex", "gemini", "opencode", "qwen", "copilot"}, testRealCLIOps)
}

func testRealCLIOps(t *testing.T, cli string) {
	bin := realCLI(t, cli)
	// WARDEN_BIN and the leftover check: realCLIsTwoAtOnce, its only caller.
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		if strings.Contains(r.Prompt, "PING-FROM-SEND") {
			return fakeprovider.Answer{Text: "PONG-FROM-MODEL", InputTokens: 2000}
		}
		return fakeprovider.Answer{Text: "ready and waiting", InputTokens: 2000}
	}})
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	env := seed(t, cli, home, project, srv.URL())
	cfg := teamtest.WriteTeam(t, `checkpoint_interval = "1h"
checkpoint_timeout = "30s"
shutdown_timeout = "10s"
[[task]]
id = "T1"
title = "real cli"
prompt = "Say ready."
`, teamtest.Agent{Name: cli, Mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	a.Command, a.Profile, a.Dir, a.Env = []string{bin}, cli, project, env

	team, _, wait := startTeamCfg(t, cfg)
	defer func() {
		team.Force()
		wait()
	}()
	c := control.NewClient(cfg.StateDir)
	screenHas := func(text string) bool {
		scr, err := c.Screen(cli)
		return err == nil && strings.Contains(strings.Join(scr.Rows, "\n"), text)
	}
	screenNow := func() string {
		s, err := c.Screen(cli)
		if err != nil {
			return err.Error()
		}
		return strings.Join(s.Rows, "\n")
	}
	for deadline := time.Now().Add(90 * time.Second); !screenHas("ready and waiting"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the model's first answer never on the screen; the model got %d requests; warden screen:\n%s", len(srv.Requests()), screenNow())
		}
	}
	time.Sleep(time.Second) // the CLI settles at its prompt
	scr, err := c.Screen(cli)
	if err != nil || scr.Plain {
		t.Fatalf("screen: %+v %v", scr, err)
	}

	st, err := c.Attach(cli, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Detach()
	// The agent's size comes first, then the screen.
	kind, first, err := st.Next()
	if err == nil && kind == control.FrameSize {
		if cols, rows, ok := control.ParseSize(first); !ok || cols != st.Cols || rows != st.Rows {
			t.Errorf("attach's size frame: %dx%d %v, want %dx%d", cols, rows, ok, st.Cols, st.Rows)
		}
		kind, first, err = st.Next()
	}
	if err != nil || kind != control.FrameScreen {
		t.Fatalf("attach's first screen frame: %c %v", kind, err)
	}
	// The first frame, drawn on a terminal of the agent's size, is the
	// screen warden screen shows.
	term := protocol.NewScreen(hclog.NewNullLogger(), st.Cols, st.Rows, nil)
	defer term.Close()
	term.Write(first[1:])
	drawn := joinRows(term.Rows())
	if !strings.Contains(drawn, "ready and waiting") {
		t.Errorf("the attach's first frame does not draw the screen:\n%s\nwarden screen:\n%s", drawn, strings.Join(scr.Rows, "\n"))
	}
	streamed := make(chan struct{})
	go func() {
		for {
			kind, p, err := st.Next()
			if err != nil {
				return
			}
			if kind == control.FrameOutput {
				term.Write(p)
				if strings.Contains(joinRows(term.Rows()), "PONG-FROM-MODEL") {
					close(streamed)
					return
				}
			}
		}
	}()

	res, err := c.Send(cli, "PING-FROM-SEND", false, time.Minute)
	if err != nil || res.Outcome != "submitted" {
		t.Fatalf("send: %+v %v; warden screen:\n%s", res, err, screenNow())
	}
	select {
	case <-streamed:
	case <-time.After(60 * time.Second):
		t.Fatalf("the answer to the sent text never reached the viewer; warden screen:\n%s", screenNow())
	}
	var asked bool
	for _, r := range srv.Requests() {
		asked = asked || strings.Contains(r.Prompt, "PING-FROM-SEND")
	}
	if !asked {
		t.Error("the sent text never reached the model")
	}
}

func joinRows(rows []protocol.Row) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
