package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/webpage"
)

// cmdServe serves the dashboard page beside a running team (through its
// control socket) until interrupted; it keeps serving, and /healthz says
// 503, while no warden runs the team.
func cmdServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "the team's state directory (instead of TEAM.toml)")
	addr := fs.String("http", "", "serve the dashboard page on ADDR (host:port)")
	token := fs.String("http-token", os.Getenv("WARDEN_HTTP_TOKEN"), "the page's token (default $WARDEN_HTTP_TOKEN; made up and printed once for a non-loopback ADDR)")
	logs := addLogFlags(fs)
	const usage = "usage: warden serve [TEAM.toml | --state-dir DIR] --http ADDR [--http-token T] [--log-level L] [--log-format text|json]"
	dir, rest, err := teamArgs(fs, args, stateDir, usage)
	if err != nil {
		return err
	}
	if len(rest) != 0 || *addr == "" {
		return usageError("%s", usage)
	}
	if err := logs.check(); err != nil {
		return err
	}
	srv, err := pageServer(hclog.New(logs.options(stderr, hclog.LevelFromString(logs.level))), *addr, *token, dir, stdout)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	return srv.Serve(ctx)
}

// pageServer listens for the dashboard page of the team whose state dir is
// dir and prints its address; a non-loopback address without a token gets
// a fresh one, printed once in that address.
func pageServer(logger hclog.Logger, addr, token, dir string, stdout io.Writer) (*webpage.Server, error) {
	made := token == "" && !webpage.Loopback(addr)
	if made {
		token = webpage.NewToken()
	}
	srv, err := webpage.Listen(webpage.Options{Addr: addr, Token: token, Client: control.NewClient(dir), Log: logger})
	if err != nil {
		return nil, err
	}
	note := ""
	if made {
		note = " (a token made for this run, printed only here)"
	}
	fmt.Fprintf(stdout, "DASHBOARD: %s%s\n", srv.URL(), note)
	return srv, nil
}
