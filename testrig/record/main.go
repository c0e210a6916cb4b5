// Command record runs a real agent CLI (Claude Code, Codex CLI or Gemini
// CLI) under a pseudo-terminal against testrig/fakeprovider, types a first
// prompt and a CHECKPOINT REQUEST, and writes every byte the CLI wrote to
// DIR/NAME.raw with a DIR/NAME.json sidecar: what was typed when, and the
// checkpoint blocks a correct parser must extract. The dialog scenarios
// instead have the model answer the first prompt with a shell tool call,
// hold the CLI's approval dialog open, deny it, and note in the sidecar
// when the dialog was drawn and that the command did not run.
// scripts/record-clis.sh runs it for every CLI and scenario.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	wprofile "github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/testrig/fakeprovider"
)

type options struct {
	cli, binDir, outDir, name, scenario, hooks string
	cols, rows                                 int
	hold, after                                time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.cli, "cli", "", "claude, codex, gemini, opencode, qwen or copilot")
	flag.StringVar(&o.binDir, "bin", "", "directory holding the CLI binaries (scripts/install-clis.sh prints it)")
	flag.StringVar(&o.outDir, "out", "", "output directory (default protocol/testdata/cli-CLI)")
	flag.StringVar(&o.scenario, "scenario", "checkpoint", "checkpoint, repeat, usage-limit, a dialog scenario: "+
		"dialog-auto, dialog-default (claude), dialog (codex, gemini), or a limit scenario: "+
		"limit-subscriber (claude), near-limit (codex), limit-reset (codex, gemini)")
	flag.StringVar(&o.name, "name", "", "file name without extension (default SCENARIO-COLSxROWS)")
	flag.IntVar(&o.cols, "cols", 200, "terminal columns")
	flag.IntVar(&o.rows, "rows", 50, "terminal rows")
	flag.DurationVar(&o.hold, "hold", 4*time.Second, "dialog scenarios: how long each dialog stays open before its key")
	flag.DurationVar(&o.after, "after", 4*time.Second, "dialog scenarios: how long to record after the deny key")
	flag.StringVar(&o.hooks, "hooks", "", "dialog scenarios: also capture the CLI's dialog hook payloads into this dir")
	flag.Parse()
	logger := hclog.New(&hclog.LoggerOptions{Name: "record", Level: hclog.Info, Output: os.Stderr})
	if err := run(context.Background(), logger, o); err != nil {
		logger.Error("recording failed", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, logger hclog.Logger, o options) error {
	p, ok := profiles[o.cli]
	if !ok || o.binDir == "" {
		return fmt.Errorf("usage: record -cli claude|codex|gemini -bin DIR [-scenario S] [-cols N]")
	}
	if o.outDir == "" {
		o.outDir = filepath.Join("protocol", "testdata", "cli-"+o.cli)
	}
	if o.name == "" {
		o.name = fmt.Sprintf("%s-%dx%d", o.scenario, o.cols, o.rows)
	}
	bin := filepath.Join(o.binDir, o.cli)
	version, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}

	// A fixed, neutral place (not under /tmp, where Codex refuses to put its
	// helper links and warns): no home path in the recording, and the
	// same paths every time so re-recordings diff cleanly.
	root := filepath.Join("/var/tmp", "warden-record-"+o.cli)
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("clean %s: %w", root, err)
	}
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	defer os.RemoveAll(root)

	spec, isDialog := dialogSpecs[o.cli+"/"+o.scenario]
	lspec, isLimit := limitSpecs[o.cli+"/"+o.scenario]
	switch {
	case isDialog, isLimit, o.scenario == "checkpoint", o.scenario == "repeat", o.scenario == "usage-limit":
	default:
		return fmt.Errorf("no scenario %q for %s", o.scenario, o.cli)
	}
	sc := newScenario(o.scenario)
	dr := &dialogRun{spec: spec, hold: o.hold, after: o.after}
	lr := &limitRun{spec: lspec}
	decide := sc.decide
	switch {
	case isDialog:
		decide = dr.decide
	case o.hooks != "":
		return fmt.Errorf("-hooks is for the dialog scenarios")
	case isLimit:
		decide = lr.decide
	}
	srv := fakeprovider.New(logger, fakeprovider.Script{Decide: decide, ChunkRunes: 12, Pace: 15 * time.Millisecond})
	defer srv.Close()
	lr.srv = srv

	extra, err := p.setup(home, project, srv.URL())
	if err != nil {
		return fmt.Errorf("set up %s: %w", o.cli, err)
	}
	if lspec.subscriber {
		extra = subscriber(extra)
	}
	args := append(append([]string(nil), p.args...), spec.args...)
	if o.hooks != "" {
		more, err := setupHooks(o.cli, home, o.hooks)
		if err != nil {
			return fmt.Errorf("set up hooks: %w", err)
		}
		args = append(args, more...)
	}
	env := append(append(baseEnv(o.binDir, home), extra...), spec.env...)
	s, err := startSession(logger, append([]string{bin}, args...), env, project, o.cols, o.rows)
	if err != nil {
		return err
	}
	s.answer7501 = isDialog
	if o.cli == "opencode" || o.cli == "qwen" || o.cli == "copilot" {
		s.prof, _ = wprofile.For(o.cli)
	}
	logger.Info("started", "cli", o.cli, "version", strings.TrimSpace(string(version)), "cols", o.cols)
	rec := recording{CLI: o.cli, Version: strings.TrimSpace(string(version)), Scenario: o.scenario,
		Cols: o.cols, Rows: o.rows, Command: append([]string{o.cli}, args...), Env: envNames(env),
		Blocks: []block{}}
	var steps error
	switch {
	case isDialog:
		steps = dr.drive(ctx, logger, s, p)
		rec.ScreenBeforeQuit = s.screen()
	case isLimit:
		steps = lr.drive(ctx, logger, s, p)
		rec.ScreenBeforeQuit = s.screen()
	default:
		rec.ScreenBeforeQuit, steps = sc.drive(ctx, logger, s, srv, p)
	}
	quit := p.quit
	if o.scenario == "usage-limit" {
		quit = append(append([]string(nil), p.dismiss...), quit...)
	}
	if (isDialog || isLimit) && steps != nil {
		quit = nil // a dialog may still be open: typing there could answer it
	}
	for _, q := range quit {
		_ = s.write(q)
		_ = sleep(ctx, 700*time.Millisecond)
	}
	rec.ExitCode = s.stop(10 * time.Second)
	raw, tp := s.output()
	rec.Typed, rec.Bytes = tp, len(raw)
	rec.Requests = summarize(srv.Requests())
	if isDialog {
		marks, answered := s.reads()
		dr.fill(&rec, raw, marks, answered, srv, project)
		if o.hooks != "" {
			rec.Hooks = collectHooks(o.hooks, s.start)
		}
		if steps == nil {
			steps = rec.checkDialog()
		}
	} else if isLimit {
		lr.fill(&rec)
	} else {
		sc.fill(&rec)
	}
	if steps != nil {
		rec.Error = steps.Error()
		logger.Error("scenario incomplete", "error", steps)
	}
	if err := writeFile(filepath.Join(o.outDir, o.name+".raw"), string(raw)); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(o.outDir, o.name+".json"), string(mustIndent(rec))+"\n"); err != nil {
		return err
	}
	logger.Info("recorded", "file", filepath.Join(o.outDir, o.name+".raw"), "bytes", len(raw), "exit", rec.ExitCode)
	return steps
}

// subscriber signs Claude Code in as a claude.ai subscriber (a fake OAuth
// token in place of the API token): only then does it read the unified
// rate-limit headers, show the subscription banner and continue by itself
// at the reset.
func subscriber(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ANTHROPIC_AUTH_TOKEN=") {
			out = append(out, kv)
		}
	}
	return append(out, "CLAUDE_CODE_OAUTH_TOKEN=fake-oauth-token")
}

func envNames(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		out = append(out, name)
	}
	return out
}
