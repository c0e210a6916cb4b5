package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
)

// An edge that dies while the team runs ends the run with its error, as an
// actor of the group does — never a run that goes on without it: the group
// stops the team cleanly for it (a team checkpoint of cause warden_failed,
// the agent's process stopped, the handoff written) and the error is what
// warden run exits 1 with. In process: the agent is a process of the test's
// own (nothing is started), the edge a socket it serves and then loses.
func TestAnEdgeThatDiesEndsTheRun(t *testing.T) {
	dir := t.TempDir()
	teamFile := filepath.Join(dir, "team.toml")
	os.WriteFile(teamFile, []byte("name = \"edge\"\nshutdown_timeout = \"2s\"\n[[agent]]\nname = \"w\"\ncommand = [\"sleep\", \"3600\"]\n"), 0o600)
	cfg, err := config.Load(teamFile)
	if err != nil {
		t.Fatal(err)
	}
	team, err := supervisor.New(hclog.NewNullLogger(), cfg, clock.Real{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer team.Close()
	procs := make(chan *idleProc, 1)
	team.Use(supervisor.Seams{Start: func(_ hclog.Logger, _ runner.Config) (session.Process, error) {
		p := &idleProc{done: make(chan struct{})}
		procs <- p
		return p, nil
	}})
	if _, err := team.Begin(supervisor.StartFresh); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("unix", filepath.Join(dir, "edge.sock"))
	if err != nil {
		t.Fatal(err)
	}
	served := supervisor.NewEdge("test socket", func(ctx context.Context) error {
		go func() { <-ctx.Done(); ln.Close() }()
		for {
			c, err := ln.Accept()
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return errors.New("test socket: " + err.Error())
			}
			c.Close()
		}
	})
	var g run.Group
	addEdgeActor(&g, served)
	var result supervisor.Result
	addTeamActor(&g, team, &result)
	ran := make(chan error, 1)
	go func() { ran <- g.Run() }()

	var p *idleProc
	select {
	case p = <-procs: // the agent runs
	case <-time.After(10 * time.Second):
		t.Fatal("the agent never started")
	}
	ln.Close() // the edge's socket dies under it
	select {
	case err = <-ran:
	case <-time.After(20 * time.Second):
		t.Fatal("the run went on without its edge")
	}
	if err == nil || !strings.HasPrefix(err.Error(), "test socket: ") || !errors.Is(result.Err, err) || result.ExitCode() != 1 {
		t.Errorf("the run ended with %v; result %v, exit code %d", err, result.Err, result.ExitCode())
	}
	if !p.stopped() {
		t.Error("the agent's process was not stopped")
	}
	b, _ := os.ReadFile(filepath.Join(cfg.StateDir, "events.jsonl"))
	if !bytes.Contains(b, []byte(`"event":"`+event.TeamCheckpointStarted+`"`)) || !bytes.Contains(b, []byte(`"cause":"`+protocol.CauseWardenFailed+`"`)) {
		t.Errorf("no team checkpoint for the edge's failure:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, "handoff.md")); err != nil {
		t.Errorf("no handoff: %v", err)
	}
}

// idleProc is an agent's process that prints nothing and waits to be
// stopped, at a pid no process can have (above the kernel's pid_max).
type idleProc struct {
	mu   sync.Mutex
	done chan struct{}
	exit runner.Exit
}

func (p *idleProc) end(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		p.exit = runner.Exit{Code: -1, Signal: sig}
		close(p.done)
	}
}

func (p *idleProc) stopped() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *idleProc) Pid() int                         { return 1<<30 + 7 }
func (p *idleProc) Write(b []byte) (int, error)      { return len(b), nil }
func (p *idleProc) Resize(runner.Size) error         { return nil }
func (p *idleProc) Done() <-chan struct{}            { return p.done }
func (p *idleProc) Owns(pid int) bool                { return pid == p.Pid() }
func (p *idleProc) Alive() bool                      { return !p.stopped() }
func (p *idleProc) Kill() error                      { p.end(syscall.SIGKILL); return nil }
func (p *idleProc) Stop(context.Context) runner.Exit { p.end(syscall.SIGTERM); return p.Exit() }
func (p *idleProc) Exit() runner.Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}
func (p *idleProc) Signal(sig syscall.Signal) error {
	if sig == syscall.SIGTERM || sig == syscall.SIGKILL {
		p.end(sig)
	}
	return nil
}
