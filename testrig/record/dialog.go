package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/testrig/fakeprovider"
)

// The dialog scenarios: the model's first answer is one shell tool call
// that each CLI asks a person to approve (research/real-clis.md, "Approval
// dialogs"); the recorder holds the dialog open, denies it, and checks
// that the command did not run.

// probeCall is the tool call: its redirection creates probeFile even
// though nothing listens on port 9, so the file shows whether it ran.
var probeCall = fakeprovider.ToolCall{
	Command:     "curl -s http://127.0.0.1:9/probe > " + probeFile,
	Description: "Fetch the probe page into " + probeFile,
}

const probeFile = "fetched.txt"

// dialogPreamble is warden's preamble with a task whose first step is the
// tool call. It holds "CHECKPOINT REQUEST: <task>" like the real one.
var dialogPreamble = strings.NewReplacer(
	"Convert Nature Trail PDFs to Markdown.", "Fetch http://127.0.0.1:9/probe into "+probeFile+".",
	"Reply READY now.", "Start with the fetch now.").Replace(preamble)

// stage is one dialog: the rows that show it is fully drawn (in this
// order on the visible screen) and the key the recorder answers it with.
type stage struct {
	Rows []string
	Key  string
}

type dialogSpec struct {
	args []string
	// env is added to the CLI's environment (OpenCode's permissions).
	env []string
	// explainer is Claude's auto-mode notice before the approval dialog.
	explainer *stage
	dialog    stage
}

const esc = "\x1b"

var dialogSpecs = map[string]dialogSpec{
	"claude/dialog-auto": {
		explainer: &stage{Rows: []string{"Auto mode can't check actions in this session",
			"Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to cancel"}, Key: "\r"},
		dialog: stage{Rows: []string{"Bash command", probeCall.Command, "Do you want to proceed?", "❯ No", "Yes",
			"Esc to cancel · Tab to amend"}, Key: esc},
	},
	"claude/dialog-default": {
		args: []string{"--permission-mode", "default"},
		dialog: stage{Rows: []string{"Bash command", probeCall.Command, "Do you want to proceed?", "❯ 1. Yes", "4. No",
			"Esc to cancel · Tab to amend"}, Key: esc},
	},
	"codex/dialog": {
		dialog: stage{Rows: []string{"Would you like to run the following command?", "Reason: " + probeCall.Description,
			"$ " + probeCall.Command, "1. Yes, proceed (y)", "3. No, and tell Codex what to do differently (esc)",
			"Press enter to confirm or esc to cancel"}, Key: esc},
	},
	// Qwen Code starts in its auto mode, where an LLM classifier (a side
	// call the fake answers from its schema: allow) decides; its default
	// mode asks as Gemini CLI does.
	"qwen/dialog": {
		args: []string{"--approval-mode", "default"},
		dialog: stage{Rows: []string{"? Shell", probeCall.Command, "Allow execution of", "Yes, allow once",
			"No, suggest changes (esc)"}, Key: esc},
	},
	// OpenCode asks for nothing by default; its permission config (here
	// OPENCODE_PERMISSION) makes bash ask.
	"opencode/dialog": {
		env: []string{`OPENCODE_PERMISSION={"bash":"ask"}`},
		dialog: stage{Rows: []string{"Permission required", "Shell command", "$ " + probeCall.Command,
			"Allow once", "Reject"}, Key: esc},
	},
	// The command fetches a URL: Copilot asks about the URL first.
	"copilot/dialog": {
		dialog: stage{Rows: []string{"$ Shell", probeCall.Command, "Copilot is attempting to access the following URL:",
			"Do you want to allow this access?", "❯ 1. Yes", "4. No, and tell Copilot what to do differently",
			"↑/↓ to navigate · enter to select · esc to cancel"}, Key: esc},
	},
	"gemini/dialog": {
		dialog: stage{Rows: []string{"? Shell", probeCall.Command, "Allow execution of [Shell]?", "1. Allow once",
			"3. No, suggest changes (esc)", "╰"}, Key: esc},
	},
}

// dialogRun is one recording of a dialog scenario.
type dialogRun struct {
	spec        dialogSpec
	hold, after time.Duration

	mu     sync.Mutex
	called bool
	// keys are the indexes in typed of the answer to each stage.
	keys        []int
	screenAfter string
	afterAtMS   int64
}

// decide is the fake model: the tool call in answer to the preamble (once),
// a short text to a tool result, READY otherwise.
func (d *dialogRun) decide(req fakeprovider.Request) fakeprovider.Answer {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(req.ToolResults) > 0 {
		return fakeprovider.Answer{Text: "The fetch did not complete; I will wait for instructions."}
	}
	if strings.Contains(req.Prompt, "Start with the fetch now.") && !d.called {
		d.called = true
		call := probeCall
		return fakeprovider.Answer{Tool: &call, InputTokens: 24000, OutputTokens: 40}
	}
	return fakeprovider.Answer{Text: readyReply, InputTokens: 24000, OutputTokens: 20}
}

func (d *dialogRun) stages() []stage {
	if d.spec.explainer != nil {
		return []stage{*d.spec.explainer, d.spec.dialog}
	}
	return []stage{d.spec.dialog}
}

// drive types the preamble, waits for each stage to be fully drawn, holds
// it open, answers it, and waits after the last answer.
func (d *dialogRun) drive(ctx context.Context, logger hclog.Logger, s *session, p profile) error {
	if err := s.waitScreen(ctx, 60*time.Second, p.ready...); err != nil {
		return fmt.Errorf("prompt not ready: %w", err)
	}
	s.settle(ctx, 500*time.Millisecond, 3*time.Second)
	if err := s.submitAsWarden(ctx, dialogPreamble); err != nil {
		return err
	}
	for i, st := range d.stages() {
		if err := s.waitDrawn(ctx, 60*time.Second, st.Rows); err != nil {
			return fmt.Errorf("dialog %d not drawn: %w", i+1, err)
		}
		logger.Info("dialog drawn, holding it open", "stage", i+1, "hold", d.hold)
		if err := sleep(ctx, d.hold); err != nil {
			return err
		}
		_, typed := s.output()
		d.keys = append(d.keys, len(typed))
		if err := s.write(st.Key); err != nil {
			return err
		}
	}
	if err := sleep(ctx, d.after); err != nil {
		return err
	}
	s.settle(ctx, time.Second, 10*time.Second)
	d.screenAfter = s.visible()
	d.afterAtMS = time.Since(s.start).Milliseconds()
	return nil
}

// fill writes the dialogs, the OSC sequences and the probe's fate into the
// sidecar.
func (d *dialogRun) fill(rec *recording, raw []byte, marks, answered []mark, srv *fakeprovider.Server, project string) {
	from := 0
	if n := len(rec.Typed); n > 0 {
		from = rec.Typed[0].Offset
	}
	for i, st := range d.stages() {
		if i >= len(d.keys) || d.keys[i] >= len(rec.Typed) {
			break
		}
		key := rec.Typed[d.keys[i]]
		info := &dialogInfo{Rows: st.Rows, Key: key.Text, KeyOffset: key.Offset, KeyAtMS: key.AtMS}
		if off, scr, ok := firstDrawn(raw, marks, from, key.Offset, rec.Cols, rec.Rows, st.Rows); ok {
			info.Offset, info.AtMS, info.Screen = off, atMS(marks, off), scr
		}
		from = key.Offset
		if i == len(d.stages())-1 {
			info.ScreenAfter, info.ScreenAfterAtMS = d.screenAfter, d.afterAtMS
			rec.Dialog = info
		} else {
			rec.Explainer = info
		}
	}
	rec.OSC = scanOSC(raw, marks)
	rec.OSC7501Answered = answered
	pi := &probeInfo{Command: probeCall.Command, File: probeFile}
	_, err := os.Stat(filepath.Join(project, probeFile))
	pi.Ran = err == nil
	callAt := -1
	for i, r := range srv.Requests() {
		if r.Answered == "tool_call" {
			pi.ToolCallID, callAt = r.ToolCallID, i
		} else if callAt >= 0 && !r.Side && r.Answered != "static" {
			pi.MainRequestsAfterCall++
		}
	}
	if res, _, ok := srv.ResultOf(pi.ToolCallID); ok {
		pi.Result = &resultInfo{CallID: res.CallID, Text: res.Text, IsError: res.IsError}
	}
	rec.Probe = pi
}

// waitDrawn polls the visible screen until it shows rows in order.
func (s *session) waitDrawn(ctx context.Context, timeout time.Duration, rows []string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for !inOrder(s.visible(), rows) {
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return fmt.Errorf("wait for %q on screen: %w", rows, err)
		}
	}
	return nil
}

// inOrder reports whether text holds each of rows, one after another.
func inOrder(text string, rows []string) bool {
	for _, r := range rows {
		i := strings.Index(text, r)
		if i < 0 {
			return false
		}
		text = text[i+len(r):]
	}
	return true
}

// checkDialog fails a dialog recording that does not show what it is for:
// each dialog found in the capture, held open 3 s, 3 s recorded after the
// deny key, and the command not run.
func (rec *recording) checkDialog() error {
	for _, d := range []*dialogInfo{rec.Explainer, rec.Dialog} {
		switch {
		case d == nil:
			continue
		case d.Screen == "":
			return fmt.Errorf("dialog %q not found in the capture", d.Rows[0])
		case d.KeyAtMS-d.AtMS < 3000:
			return fmt.Errorf("dialog %q held open only %d ms", d.Rows[0], d.KeyAtMS-d.AtMS)
		}
	}
	switch {
	case rec.Dialog == nil:
		return fmt.Errorf("no approval dialog")
	case rec.Dialog.ScreenAfterAtMS-rec.Dialog.KeyAtMS < 3000:
		return fmt.Errorf("only %d ms recorded after the deny key", rec.Dialog.ScreenAfterAtMS-rec.Dialog.KeyAtMS)
	case rec.Probe.Ran:
		return fmt.Errorf("the command ran: %s exists", rec.Probe.File)
	}
	return nil
}
