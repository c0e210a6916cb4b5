package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/webpage"
)

// tokenEnv names the environment variable that may hold the page's token.
const tokenEnv = "WARDEN_HTTP_TOKEN"

// tokenFileUsage is the --http-token-file flag's help: it never shows a
// token (a default taken from the environment would, in -h).
const tokenFileUsage = "read the page's token from `FILE` (default: $" + tokenEnv + ", else the state dir's page-token file, made up the first time)"

// cmdServe serves the dashboard page beside a running team (through its
// control socket) until interrupted; it keeps serving, and /healthz says
// 503, while no warden runs the team.
func cmdServe(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("serve", "usage: warden serve [TEAM.toml | --state-dir DIR] --http ADDR [--http-token-file FILE] [--log-level L] [--log-format text|json]", stderr)
	addr := cmd.String("http", "", "serve the dashboard page on ADDR (host:port)")
	tokenFile := cmd.String("http-token-file", "", tokenFileUsage)
	logs := addLogFlags(cmd.FlagSet)
	if err := refuseTokenOnArgv(args); err != nil {
		return err
	}
	envToken := takeEnvToken()
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 || *addr == "" {
		return cmd.badUsage()
	}
	if err := logs.check(); err != nil {
		return err
	}
	srv, err := pageServer(hclog.New(logs.options(stderr, hclog.LevelFromString(logs.level))), *addr, *tokenFile, envToken, dir, stdout)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	return srv.Serve(ctx)
}

// refuseTokenOnArgv refuses --http-token T: on the command line a token is
// seen by every local user (ps, /proc/PID/cmdline).
func refuseTokenOnArgv(args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "http-token" {
			return usageError("--http-token is gone: a token on the command line is seen by every user of the machine; " +
				"put it in a file (--http-token-file FILE) or in $" + tokenEnv + ", or let warden make one up (the state dir's page-token)")
		}
	}
	return nil
}

// takeEnvToken returns $WARDEN_HTTP_TOKEN and removes it from warden's
// environment, so that the agents, verify commands and notify commands
// warden starts never get it.
func takeEnvToken() string {
	tok := os.Getenv(tokenEnv)
	os.Unsetenv(tokenEnv)
	return tok
}

// pageToken is the page's token and where a person finds it: the file
// --http-token-file names, else $WARDEN_HTTP_TOKEN, else the state dir's
// page-token file (made up and written there, 0600, the first time).
func pageToken(tokenFile, envToken, dir string) (tok, where string, err error) {
	switch {
	case tokenFile != "":
		tok, err = webpage.ReadTokenFile(tokenFile)
		return tok, "the token in " + tokenFile, err
	case envToken != "":
		if err := webpage.CheckToken(envToken); err != nil {
			return "", "", fmt.Errorf("$%s: %w", tokenEnv, err)
		}
		return envToken, "the token from $" + tokenEnv, nil
	}
	tok, path, err := webpage.StateToken(dir)
	if abs, aerr := filepath.Abs(path); aerr == nil {
		path = abs
	}
	return tok, "the token is in " + path, err
}

// pageTokenFiles are the files that hold the page's token, which the box's
// walls hide from the agents: the state dir's page-token, made now when it
// is not there (so that a page started later, warden serve, finds it
// there and hidden), and the --http-token-file.
func pageTokenFiles(tokenFile, dir string) ([]string, error) {
	_, path, err := webpage.StateToken(dir)
	if err != nil {
		return nil, err
	}
	if tokenFile != "" {
		return []string{path, tokenFile}, nil
	}
	return []string{path}, nil
}

// pageServer listens for the dashboard page of the team whose state dir is
// dir and prints its address, never its token: stdout is often a log
// others may read (a nohup.out is 0644), so the line says where the token
// is instead.
func pageServer(logger hclog.Logger, addr, tokenFile, envToken, dir string, stdout io.Writer) (*webpage.Server, error) {
	srv, line, err := listenPage(logger, addr, tokenFile, envToken, dir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout, line)
	return srv, nil
}

// listenPage binds the page (pageServer without its line): it returns the
// server and its DASHBOARD line, for the caller to print.
func listenPage(logger hclog.Logger, addr, tokenFile, envToken, dir string) (*webpage.Server, string, error) {
	token, where, err := pageToken(tokenFile, envToken, dir)
	if err != nil {
		return nil, "", err
	}
	srv, err := webpage.Listen(webpage.Options{Addr: addr, Token: token, Client: control.NewClient(dir), StateDir: dir, Log: logger})
	if err != nil {
		return nil, "", err
	}
	return srv, fmt.Sprintf("DASHBOARD: %s (%s)", srv.URL(), where), nil
}
