package session

import (
	"cmp"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/internal/tokenfile"
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
// CLI's hooks name (a transcript path, Codex's thread), found and read by
// the rule of the CLI's profile (profile.TokenFiles): one reader a file,
// each reading only what was appended. Owned by the loop; the poller only
// rings it.
type meter struct {
	readers map[string]tokenfile.Reader // by the profile's key of the file
	order   []string
	waiting map[string]profile.HookFacts // files named but not written yet: key → the message that named them
	cost    *float64                     // the CLI's own price of the session (Claude's status line)
	changed bool                         // a hook brought a new file or price since the last read
	last    *protocol.Usage              // the figures last read
	stop    string                       // the session must stop: its task's budget is spent
	polling atomic.Bool                  // the poller runs
	due     atomic.Bool                  // the poller rang: read at the loop's next turn
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
	key, path, read, ok := profile.TokenFile(f, s.usageEnv())
	if !ok {
		return
	}
	if _, named := m.waiting[key]; named || m.readers[key] != nil || len(m.readers)+len(m.waiting) >= maxUsageFiles {
		return
	}
	if m.readers == nil {
		m.readers, m.waiting = map[string]tokenfile.Reader{}, map[string]profile.HookFacts{}
	}
	if path == "" {
		m.waiting[key] = f
	} else {
		m.add(key, read(path))
	}
	m.changed = true
	s.log.Debug("reading the CLI's token file", "cli", f.UsageCLI, "file", cmp.Or(path, f.UsageFile), "thread", f.UsageThread)
	s.startPoller()
}

// usageEnv is the agent's environment as its CLI sees it: where the CLI
// keeps its files (CODEX_HOME, HOME).
func (s *Session) usageEnv() []string {
	return append(os.Environ(), s.prof.Env(s.cfg.Env)...)
}

func (m *meter) add(key string, r tokenfile.Reader) {
	m.readers[key] = r
	m.order = append(m.order, key)
}

// findWaiting looks again for the token files named before their CLI had
// written them (a Codex thread's rollout file).
func (s *Session) findWaiting() {
	m := &s.use
	if len(m.waiting) == 0 {
		return
	}
	env := s.usageEnv()
	for key, f := range m.waiting {
		if _, path, read, ok := profile.TokenFile(f, env); ok && path != "" {
			delete(m.waiting, key)
			m.add(key, read(path))
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
	s.findWaiting()
	if len(m.readers) == 0 && m.cost == nil {
		return m.last, false
	}
	var sum tokenfile.Report
	for _, k := range m.order {
		rep, err := m.readers[k].Read()
		if err != nil {
			s.log.Warn("the CLI's token file could not be read", "error", err)
		}
		sum.Tokens = sum.Tokens.Add(rep.Tokens)
		for model, t := range rep.ByModel {
			if sum.ByModel == nil {
				sum.ByModel = map[string]tokenfile.Tokens{}
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
	if len(s.use.readers) > 0 || len(s.use.waiting) > 0 || s.use.cost != nil {
		s.reportUsage(true)
	}
}

// stopOverspent ends the process of a session whose task's budget is
// spent: the profile's quit, then TERM, then KILL at shutdown_timeout.
func (s *Session) stopOverspent(why string) {
	s.log.Warn("the task's budget is spent: stopping the agent", "task", s.taskID(), "reason", why)
	s.quit()
}
