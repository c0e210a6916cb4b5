package sim

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Reach counts, over many nights, how often each situation worth testing
// came about: a simulation that never reaches a situation proves nothing
// about it (Antithesis's "sometimes" assertions). TestSimulation fails
// when one was never reached.
type Reach struct {
	mu sync.Mutex
	n  map[string]int
}

// Situations are what every run of many seeds must reach.
var Situations = []string{
	"team checkpoint completed",
	"rehydrated",
	"task completed during a team checkpoint's last call",
	"verify failed",
	"verify ran when the team checkpoint began",
	"agent stalled",
	"agent failed",
	"task failed",
	"task taken over",
	"answer rejected",
	"agent killed at its stop (ignored SIGTERM)",
	"restarted with warden restart",
	"stop --now",
	"second signal",
	"lead ended a team checkpoint",
	"worktree night",
	"every task complete (exit 0)",
	"account parked",
	"account resumed",
	"waited for admission",
	"kill -9",
	"carried on after a stop",
	"--fresh",
	"--resume --from",
	"budget reached, checkpoint and exit",
	"budget reached, agents held",
	"budget raised or lifted",
	"night ended by a stop",
	"review approved",
	"review findings back to the author",
	"review rounds ended with open findings",
}

func (r *Reach) add(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[what]++
}

// Missing lists the situations never reached.
func (r *Reach) Missing() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range Situations {
		if r.n[s] == 0 {
			out = append(out, s)
		}
	}
	return out
}

// String is the table of nights per situation.
func (r *Reach) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.n))
	for k := range r.n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %6d  %s\n", r.n[k], k)
	}
	return b.String()
}

// reached records what this night came to.
func (w *World) reached(r *Reach) {
	if r == nil {
		return
	}
	seen := map[string]bool{}
	in := false
	lastCall := false
	for _, e := range w.eventsNow() {
		switch e.Name() {
		case "team_checkpoint_started":
			in, lastCall = true, true
		case "handoff_written":
			lastCall = false
		case "checkpoint_complete":
			in = false
			seen["team checkpoint completed"] = true
			if e.Str("reason") != "" && strings.Contains(e.Str("reason"), "CHECKPOINT COMPLETE") {
				seen["lead ended a team checkpoint"] = true
			}
		case "team_rehydrated":
			seen["rehydrated"] = true
		case "task_completed":
			if in && lastCall {
				seen["task completed during a team checkpoint's last call"] = true
			}
		case "task_verify_failed":
			seen["verify failed"] = true
		case "agent_stalled":
			seen["agent stalled"] = true
		case "agent_failed":
			seen["agent failed"] = true
		case "task_failed":
			seen["task failed"] = true
		case "task_released":
			seen["task taken over"] = true
		case "checkpoint_rejected":
			seen["answer rejected"] = true
		case "agent_force_terminated":
			seen["agent killed at its stop (ignored SIGTERM)"] = true
		case "agent_restarted":
			if e.Str("reason") == "warden restart" {
				seen["restarted with warden restart"] = true
			}
		case "account_parked":
			seen["account parked"] = true
		case "account_resumed":
			seen["account resumed"] = true
		case "admission_waiting":
			seen["waited for admission"] = true
		case "run_started":
			switch {
			case e.Str("how") == "new" && e.Str("reason") == "--fresh":
				seen["--fresh"] = true
			case e.Str("how") == "carried_on":
				seen["carried on after a stop"] = true
			}
		case "task_reopened":
			seen["--resume --from"] = true
		case "budget_exceeded":
			if e.Str("action") == "pause" {
				seen["budget reached, agents held"] = true
			} else if e.Str("budget") == "team" {
				seen["budget reached, checkpoint and exit"] = true
			}
		case "budget_resumed":
			seen["budget raised or lifted"] = true
		case "review_done":
			switch {
			case e.Str("approved") == "true":
				seen["review approved"] = true
			case e.Str("open") != "":
				seen["review rounds ended with open findings"] = true
			default:
				seen["review findings back to the author"] = true
			}
		case "team_done":
			if e.Str("exit_code") == "0" {
				seen["every task complete (exit 0)"] = true
			}
		}
	}
	w.mu.Lock()
	for _, v := range w.verifies {
		if v.stopped {
			seen["verify ran when the team checkpoint began"] = true
		}
	}
	w.mu.Unlock()
	for _, o := range w.spec.Ops {
		switch o.Kind {
		case OpStopNow:
			seen["stop --now"] = true
		case OpSecond:
			seen["second signal"] = true
		}
	}
	if w.lives > 1 && w.crashes > 0 {
		seen["kill -9"] = true
	}
	if w.spec.Worktree {
		seen["worktree night"] = true
	}
	if w.inv.stopAt.IsZero() == false {
		seen["night ended by a stop"] = true
	}
	for k := range seen {
		r.add(k)
	}
}
