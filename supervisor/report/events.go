package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/supervisor/event"
)

// runStarted is in every run_started line (and a few others, decoded to
// tell).
var runStarted = []byte(event.RunStarted)

// ev is what the report reads of an events.jsonl line; fields an event
// does not have stay empty, and a field of an unexpected type is skipped.
// An event whose payload has a type of its own (package event: one its
// writer fills) is read into that type from line (payload).
type ev struct {
	line []byte

	TS        time.Time       `json:"ts"`
	Event     string          `json:"event"`
	Agent     string          `json:"agent"`
	Task      string          `json:"task"`
	RunID     string          `json:"run_id"`
	How       string          `json:"how"`
	TakenBack bool            `json:"taken_back"` // agent_started of a session taken back from the holder
	Reason    string          `json:"reason"`
	Text      string          `json:"text"`
	Until     string          `json:"until"`
	Since     string          `json:"since"`
	Reset     string          `json:"reset"`
	ResetsAt  json.RawMessage `json:"resets_at"`
	Source    string          `json:"source"`
	Account   string          `json:"account"`
	Agents    []string        `json:"agents"`
	Code      *int            `json:"code"`
	Signal    string          `json:"signal"`
	Attempt   int             `json:"attempt"`
	Backoff   string          `json:"backoff"`
	SilentFor string          `json:"silent_for"`
	NoCPFor   string          `json:"no_checkpoint_for"`
	Why       string          `json:"why"`
	Rejected  string          `json:"rejected"`
	ExitCode  *int            `json:"exit_code"`
	LastLines []string        `json:"last_lines"`
	Branch    string          `json:"branch"`
	Commit    string          `json:"commit"`
	Round     int             `json:"round"`
	Open      []string        `json:"open"`
}

// payload reads e's line into p, the event's payload type (package
// event); a field of an unexpected type stays empty, as ev's do.
func (e *ev) payload(p any) { _ = json.Unmarshal(e.line, p) }

// parkedAt is when a pause at a usage limit began: its since (the event
// may be said seconds later, once the reset is known), else its time.
func (e *ev) parkedAt() time.Time {
	if since, err := time.Parse(time.RFC3339Nano, e.Since); err == nil {
		return since
	}
	return e.TS
}

// stalledWhy says why an agent_stalled stalled, from its why: no output,
// or output but no (valid) checkpoint, and what its answers were rejected
// for. An event written before why was (silent_for alone, whichever signal
// it was) says no progress.
func (e *ev) stalledWhy() string {
	return event.StallReason(e.Why, plain(e.SilentFor), plain(e.NoCPFor), clip(plain(e.Rejected), maxText))
}

// readEvents feeds the run's events to the builder: from the first
// run_started of the run state.json names (events carry no run id; the log
// spans runs) to the end, or to a run_started of another run. When the log
// holds no run_started of the run (cut, or written by hand), the events
// since the run's start time are read instead, and a note says so.
func (b *builder) readEvents(path string) error {
	found, torn, err := b.scan(path, true, func(e *ev, in bool) bool { return in })
	if err == nil && !found {
		b.r.Notes = append(b.r.Notes, "events.jsonl holds no run_started for this run: its events are read from the run's start time")
		_, torn, err = b.scan(path, false, func(e *ev, _ bool) bool { return !e.TS.Before(b.r.Run.Started) })
	}
	if torn > 0 {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("%d lines of events.jsonl could not be read (torn or not JSON)", torn))
	}
	return err
}

// scan reads the events file line by line and adds the events take
// accepts (in: since the run's first run_started); it reports whether that
// run_started was found, and how many lines were torn. With skip, the
// lines before that run_started are not decoded (earlier runs' events: the
// bulk of a long-lived log), but for the run_started ones.
func (b *builder) scan(path string, skip bool, take func(e *ev, in bool) bool) (found bool, torn int, err error) {
	f, err := safefile.Open(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return true, 0, errors.New("no events.jsonl: only state.json and the checkpoint history are reported")
	}
	if err != nil {
		return true, 0, fmt.Errorf("events: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	in := false
	for {
		line, err := br.ReadBytes('\n')
		if skip && !in && !bytes.Contains(line, runStarted) {
			line = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var e ev
			var te *json.UnmarshalTypeError
			if uerr := json.Unmarshal(line, &e); uerr != nil && !errors.As(uerr, &te) {
				if err != io.EOF { // a last line without its end is being written
					torn++
				}
			} else if e.Event == event.RunStarted && e.RunID == b.runID && !in {
				in, found = true, true
			} else if e.Event == event.RunStarted && e.RunID != b.runID && in {
				return found, torn, nil // a later run's: this one's events end here
			}
			if e.Event != "" && take(&e, in) {
				e.line = line
				b.add(&e)
			}
		}
		if err == io.EOF {
			return found, torn, nil
		}
		if err != nil {
			return found, torn, fmt.Errorf("events: %w", err)
		}
	}
}

// add folds one event of the run into the report.
func (b *builder) add(e *ev) {
	if e.TS.After(b.lastTS) {
		b.lastTS = e.TS
	}
	r, a, t := b.r, b.agent(e.Agent), b.task(e.Task)
	switch e.Event {
	case event.RunStarted:
		b.stopping = false
		if e.How == "carried_on" || e.How == "readopted" {
			b.closeWaits(b.prevTS, "run_ended")
			r.Run.CarriedOn = append(r.Run.CarriedOn, CarryOn{At: e.TS, Reason: clip(plain(e.Reason), maxText)})
		}
	case event.AgentStarted:
		if a != nil && !e.TakenBack { // a session taken back is the one it was
			a.Sessions++
			b.ends[e.Agent] = sessionEnd{}
		}
	case event.AgentExited:
		b.closeWait(e.Agent, e.TS, "session_ended")
		if a != nil && !b.stopping && ((e.Code != nil && *e.Code != 0) || e.Signal != "") {
			a.BadExits++
		}
		end := b.ends[e.Agent]
		end.code, end.signal, end.seen = e.Code, plain(e.Signal), true
		b.ends[e.Agent] = end
	case event.AgentStalled:
		r.Summary.Stalls++
		if a != nil {
			a.Stalls++
		}
		end := b.ends[e.Agent]
		end.stalled = e.stalledWhy()
		b.ends[e.Agent] = end
	case event.AgentOOM:
		end := b.ends[e.Agent]
		end.stalled = "killed for its memory (out of memory)"
		b.ends[e.Agent] = end
	case event.AgentRestarted:
		b.restarted(e, a, t)
	case event.WorkCommitted, event.WorkMerged:
		b.branchOf(e)
	case event.WorkLanded, event.LandStopped, event.LandHanded, event.LandLeft:
		b.landed(e)
	case event.AgentFailed:
		r.Summary.Failures++
		if a != nil {
			a.Failed = true
		}
		f := Failure{At: e.TS, Agent: plain(e.Agent), Task: plain(e.Task), Reason: clip(plain(e.Reason), maxText)}
		for _, l := range lastN(e.LastLines, maxLastLines) {
			f.LastLines = append(f.LastLines, clip(plain(l), maxLine))
		}
		r.Failures = append(r.Failures, f)
	case event.AgentWaiting:
		var p event.Waiting
		e.payload(&p)
		b.closeWait(e.Agent, e.TS, "replaced")
		b.open[e.Agent] = len(r.Waits)
		r.Waits = append(r.Waits, Wait{Agent: plain(e.Agent), Task: plain(e.Task), Kind: plain(p.Kind),
			Text: clip(plain(p.Text), maxText), Since: e.TS})
	case event.AgentResumed:
		b.closeWait(e.Agent, e.TS, "resumed")
	case event.DialogDenied:
		b.closeWait(e.Agent, e.TS, "denied")
	case event.DialogAnswered:
		var p event.AnsweredByPerson // by warden: its fields are a person's answer's
		e.payload(&p)
		i, ok := b.open[e.Agent]
		if !ok {
			// A person's answer is written once the dialog has left the
			// screen, after the agent_resumed that saw it go: it says how
			// that wait ended (denied, not "went on").
			if j, was := b.closed[e.Agent]; was && r.Waits[j].Ended == "resumed" {
				i, ok = j, true
				r.Waits[j].Ended = "answered"
			}
		}
		if ok {
			r.Waits[i].By, r.Waits[i].Choice = plain(p.By), plain(p.Choice)
			if p.Via != "" {
				r.Waits[i].By += " via " + plain(p.Via)
			}
		}
		b.closeWait(e.Agent, e.TS, "answered")
	case event.UsageLimitWait:
		until, _ := time.Parse(time.RFC3339, e.Until)
		r.Limits = append(r.Limits, Limit{Kind: event.UsageLimitWait, At: e.parkedAt(), Agent: plain(e.Agent), Task: plain(e.Task),
			Until: until, Reset: plain(e.Reset), Text: clip(plain(e.Text), maxText)})
		if a != nil {
			a.Limits++
		}
	case event.AccountParked:
		b.parked[e.Account] = len(r.Limits)
		l := Limit{Kind: event.AccountParked, At: e.parkedAt(), Account: plain(e.Account), Reset: plain(rawText(e.ResetsAt)),
			Source: plain(e.Source), Text: clip(plain(e.Text), maxText)}
		for _, name := range e.Agents {
			l.Agents = append(l.Agents, plain(name))
			if pa := b.agent(name); pa != nil {
				pa.Limits++
			}
		}
		r.Limits = append(r.Limits, l)
	case event.AccountResumed:
		if i, ok := b.parked[e.Account]; ok {
			r.Limits[i].Resumed = e.TS
			delete(b.parked, e.Account)
		}
	case event.CheckpointReceived:
		r.Summary.Checkpoints++
		if t != nil {
			t.Checkpoints++
		}
	case event.CheckpointRejected:
		r.Summary.Rejected++
		if t != nil {
			t.Rejected++
		}
	case event.CheckpointTimeout:
		r.Summary.Timeouts++
		if t != nil {
			t.Timeouts++
		}
	case event.TaskVerifyFailed:
		if t != nil {
			t.VerifyFailed++
		}
	case event.ReviewDone:
		if t != nil {
			t.ReviewRounds = max(t.ReviewRounds, e.Round)
			t.OpenFindings = nil
			for _, f := range e.Open {
				t.OpenFindings = append(t.OpenFindings, clip(plain(f), maxText))
			}
		}
	case event.TeamRehydrated:
		b.stopping = false
	case event.TeamCheckpointStarted:
		var p event.TeamCheckpointBegan
		e.payload(&p)
		b.stopping = true
		b.lastTC = len(r.TeamCheckpoints)
		r.TeamCheckpoints = append(r.TeamCheckpoints, TeamCheckpoint{At: e.TS, Cause: plain(p.Cause), Reason: clip(plain(p.Reason), maxText)})
	case event.CheckpointComplete:
		if b.lastTC >= 0 {
			r.TeamCheckpoints[b.lastTC].Complete = true
		}
	case event.TeamDone:
		b.closeWaits(e.TS, "run_ended")
		b.doneAt, b.exitCode = e.TS, e.ExitCode
	}
	b.prevTS = e.TS
}
