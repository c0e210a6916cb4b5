package main

import (
	"context"
	"io"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/holder"
)

const holdUsage = "usage: warden hold --socket PATH [--orphan-timeout D]"

// cmdHold is `warden hold`, which `warden run` starts for a team with
// holder = true, in a session of its own: the holder of the agents'
// terminals (internal/holder), their parent and child subreaper, serving
// warden on its private socket until SIGTERM or INT — then it stops every
// agent it holds — or until no warden was connected for the orphan
// timeout (the same). Its log goes to stderr (warden points it at
// logs/holder.log). docs/design-holder.md.
func cmdHold(args []string, stderr io.Writer) error {
	cmd := newCommand("hold", holdUsage, stderr)
	sock := cmd.String("socket", "", "the holder's unix socket (its directory private: 0700, ours)")
	orphan := cmd.Duration("orphan-timeout", holder.DefaultOrphanTimeout, "with no warden connected this long, stop every agent and end")
	if err := cmd.Parse(args); err != nil {
		return usageError("hold: %v", err)
	}
	if *sock == "" || cmd.NArg() != 0 || *orphan <= 0 {
		return cmd.badUsage()
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "warden", Level: hclog.Info, Output: stderr})
	// A hangup of whatever terminal it came from is no reason to end: the
	// agents outlive warden and its terminal.
	signal.Ignore(syscall.SIGHUP)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	h := holder.New(logger, *sock)
	h.OrphanTimeout = *orphan
	if err := h.Serve(ctx); err != nil { // holder.ErrOrphaned among them
		return &exitError{code: 1, err: err}
	}
	return nil
}
