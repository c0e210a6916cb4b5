package session

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/usage"
)

// UsageReporter is a Reporter that takes what the session spent: its
// figures so far (cumulative), at each record, every usagePoll while its
// CLI's files are known, and once more when the process has ended
// (final). It returns why the session must stop now (its task's budget is
// spent), or "".
type UsageReporter interface {
	Usage(u protocol.Usage, final bool) (stop string)
	// Prices are the team's [[price]] rows: they price the tokens of a
	// CLI that does not price them itself.
	Prices() usage.Prices
}

// usagePoll is how often a session reads its CLI's token files between
// records. Reading 10 busy agents' files costs 0.3 to 1 ms a poll
// (supervisor/usage's BenchmarkReadTenAgents): every 2 s is about 0.02 %
// of a core.
const usagePoll = 2 * time.Second

// maxUsageFiles bounds the files (and Codex threads) one session's hooks
// may name: a CLI names one, or one more after its /clear.
const maxUsageFiles = 8

// meter is what the session reads of its CLI's own token files, which the
// CLI's hooks name (transcript_path, Codex's thread): one reader a file,
// each reading only what was appended. Owned by the loop; the poller only
// rings it.
type meter struct {
	readers map[string]usage.Reader // by file, or "codex:"+thread
	order   []string
	threads map[string]string // Codex threads whose rollout file is not found yet: key → thread
	cost    *float64          // the CLI's own price of the session (Claude's status line)
	changed bool              // a hook brought a new file or price since the last read
	last    *protocol.Usage   // the figures last read
	stop    string            // the session must stop: its task's budget is spent
	polling atomic.Bool       // the poller runs
	due     atomic.Bool       // the poller rang: read at the loop's next turn
}

// noteUsage takes what a hook message says of the session's token files
// and price; the first file starts the poller.
func (s *Session) noteUsage(f profile.HookFacts) {
	m := &s.use
	if f.HasCost && (m.cost == nil || *m.cost != f.CostUSD) {
		c := f.CostUSD
		m.cost, m.changed = &c, true
		s.startPoller() // the price alone is a figure: the budgets see it between records too
	}
	key, path := "", ""
	switch f.UsageCLI {
	case "claude", "gemini":
		key, path = f.UsageFile, f.UsageFile
		if !filepath.IsAbs(path) || !strings.HasSuffix(path, ".jsonl") {
			return // no CLI names a transcript so
		}
	case "codex":
		key = "codex:" + f.UsageThread
	default:
		return
	}
	if m.readers[key] != nil || m.threads[key] != "" || len(m.readers)+len(m.threads) >= maxUsageFiles {
		return
	}
	if m.readers == nil {
		m.readers, m.threads = map[string]usage.Reader{}, map[string]string{}
	}
	switch f.UsageCLI {
	case "claude":
		m.add(key, usage.NewClaude(path))
	case "gemini":
		m.add(key, usage.NewGemini(path))
	default:
		m.threads[key] = f.UsageThread
	}
	m.changed = true
	s.log.Debug("reading the CLI's token file", "cli", f.UsageCLI, "file", f.UsageFile, "thread", f.UsageThread)
	s.startPoller()
}

func (m *meter) add(key string, r usage.Reader) {
	m.readers[key] = r
	m.order = append(m.order, key)
}

// codexRollouts finds the rollout files of the Codex threads named so far,
// under the agent's CODEX_HOME (or ~/.codex).
func (s *Session) codexRollouts() {
	m := &s.use
	if len(m.threads) == 0 {
		return
	}
	home := profile.CodexHome(append(os.Environ(), s.prof.Env(s.cfg.Env)...))
	for key, thread := range m.threads {
		if p := profile.FindCodexRollout(home, thread); p != "" {
			delete(m.threads, key)
			m.add(key, usage.NewCodex(p))
		}
	}
}

// startPoller rings the loop every usagePoll until the session ends.
func (s *Session) startPoller() {
	if s.use.polling.Swap(true) {
		return
	}
	go func() {
		t := s.cfg.Clock.NewTimer(usagePoll)
		defer t.Stop()
		for {
			select {
			case <-s.ended:
				return
			case <-t.C():
				t.Reset(usagePoll)
				s.use.due.Store(true)
				select {
				case s.inbox.notify <- struct{}{}:
				default:
				}
			}
		}
	}()
}

// readUsage reads what the session's files gained and returns its figures
// so far (nil: no file known yet); changed is false when nothing moved.
func (s *Session) readUsage() (u *protocol.Usage, changed bool) {
	m := &s.use
	s.codexRollouts()
	if len(m.readers) == 0 && m.cost == nil {
		return m.last, false
	}
	var sum usage.Report
	for _, k := range m.order {
		rep, err := m.readers[k].Read()
		if err != nil {
			s.log.Warn("the CLI's token file could not be read", "error", err)
		}
		sum.Tokens = sum.Tokens.Add(rep.Tokens)
		for model, t := range rep.ByModel {
			if sum.ByModel == nil {
				sum.ByModel = map[string]usage.Tokens{}
			}
			sum.ByModel[model] = sum.ByModel[model].Add(t)
		}
	}
	var prices usage.Prices
	if ur, ok := s.r.(UsageReporter); ok {
		prices = ur.Prices()
	}
	fig := usage.Figure(sum, m.cost, prices)
	changed = m.changed || m.last == nil || !sameUsage(*m.last, fig)
	m.last, m.changed = &fig, false
	return &fig, changed
}

func sameUsage(a, b protocol.Usage) bool {
	return a.Tokens == b.Tokens && a.Dollars() == b.Dollars() && (a.CostUSD == nil) == (b.CostUSD == nil) &&
		strings.Join(a.Unpriced, ",") == strings.Join(b.Unpriced, ",")
}

// reportUsage reads the session's figures and hands them to the reporter
// when they moved (always when final); a stop it asks for is kept for the
// loop.
func (s *Session) reportUsage(final bool) *protocol.Usage {
	u, changed := s.readUsage()
	if u == nil || (!changed && !final) {
		return u
	}
	if ur, ok := s.r.(UsageReporter); ok {
		if why := ur.Usage(u.Clone(), final); why != "" && s.use.stop == "" {
			s.use.stop = why
		}
	}
	return u
}

// usageTick is the loop's turn for usage: a read when the poller rang; it
// returns why the session must stop, or "".
func (s *Session) usageTick() string {
	if s.use.due.Swap(false) {
		s.reportUsage(false)
	}
	return s.use.stop
}

// recordUsage is the session's figures for a record, read now.
func (s *Session) recordUsage() *protocol.Usage {
	u := s.reportUsage(false)
	if u == nil {
		return nil
	}
	c := u.Clone()
	return &c
}

// finalUsage reads the session's files once more after its process ended
// (the CLI wrote its last lines) and hands the reporter the final figures.
func (s *Session) finalUsage() {
	if len(s.use.readers) > 0 || len(s.use.threads) > 0 || s.use.cost != nil {
		s.reportUsage(true)
	}
}

// stopOverspent ends the process of a session whose task's budget is
// spent: the profile's quit, then TERM, then KILL at shutdown_timeout.
func (s *Session) stopOverspent(why string) {
	s.log.Warn("the task's budget is spent: stopping the agent", "task", s.taskID(), "reason", why)
	s.quit()
}
