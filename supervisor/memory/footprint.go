package memory

import (
	"sort"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
)

// Footprints is what warden expects a session of each CLI (profile) to
// hold: learned from the RSS of the sessions' process trees, the highest
// peak among the profile's last Keep sessions that ran at least LearnAfter
// and of those running now; before one has, Defaults — a conservative
// guess. A running session whose peak is above the estimate raises it at
// once. Learning can lower an estimate below its default: a CLI that grows
// slowly for hours is better given a memory_floor with room to spare, and
// memory_max.
type Footprints struct {
	LearnAfter time.Duration
	Keep       int
	Defaults   map[string]int64 // by profile; DefaultFootprint for the others

	peaks map[string][]int64 // ended sessions' peaks by profile, oldest first
	seen  map[string]int     // sessions learned from, by profile
}

// DefaultFootprint is the estimate of a profile with no default of its own.
const DefaultFootprint = 1 * config.GiB

// NewFootprints returns the defaults each CLI's profile gives (Claude Code
// 2 GiB, Codex and Gemini CLI 1 GiB, a plain program 512 MiB:
// profile.Footprint), DefaultFootprint for one that gives none; learned
// once a session ran 10 s (its start is over), from the last 16.
func NewFootprints() Footprints {
	defaults := map[string]int64{}
	for _, c := range profile.CLIs() {
		if n, ok := profile.Footprint(c.Name); ok {
			defaults[c.Name] = n
		}
	}
	return Footprints{LearnAfter: 10 * time.Second, Keep: 16, Defaults: defaults,
		peaks: map[string][]int64{}, seen: map[string]int{}}
}

// Ticket is one session's place among those running: who holds it, and
// what the RSS watch has seen of its tree.
type Ticket struct {
	Agent, Profile string

	ad       *Admission
	admitted time.Time
	// The sampler's, under ad.mu.
	rss, peak int64
	sampled   bool
	// The session's, set by Watch before it starts.
	watch watchSpec
	fired bool // the watch fired (once a session)
	// The kernel's OOM kill count read just before the last two samples
	// that saw the tree alive (oom.go), and whether they were read.
	oomLast, oomPrev         int64
	oomLastSeen, oomPrevSeen bool
}

// Release frees the ticket's slot once its session has ended (nil: no-op).
func (t *Ticket) Release() {
	if t != nil {
		t.ad.release(t)
	}
}

// mature reports whether the session has run long enough to learn from.
func (t *Ticket) mature(now time.Time, after time.Duration) bool {
	return t.sampled && now.Sub(t.admitted) >= after
}

// estimateLocked is the footprint expected of a session of profile, and
// whether it was learned (false: the default).
func (ad *Admission) estimateLocked(prof string, running map[*Ticket]bool, now time.Time) (int64, bool) {
	var best, live int64
	learned := len(ad.peaks[prof]) > 0
	for _, p := range ad.peaks[prof] {
		best = max(best, p)
	}
	for t := range running {
		if t.Profile != prof {
			continue
		}
		live = max(live, t.peak)
		if t.mature(now, ad.LearnAfter) {
			learned = true
		}
	}
	if !learned {
		def, ok := ad.Defaults[prof]
		if !ok {
			def = DefaultFootprint
		}
		return max(def, live), false
	}
	return max(best, live), true
}

// reservedLocked is what the sessions running are expected to take still:
// for each, its CLI's footprint less what its tree holds already.
func (ad *Admission) reservedLocked(running map[*Ticket]bool, now time.Time) int64 {
	var sum int64
	for t := range running {
		if est, _ := ad.estimateLocked(t.Profile, running, now); est > t.rss {
			sum += est - t.rss
		}
	}
	return sum
}

// learnLocked keeps the peak of a session that ran long enough.
func (ad *Admission) learnLocked(t *Ticket, now time.Time) {
	if !t.mature(now, ad.LearnAfter) {
		return
	}
	p := append(ad.peaks[t.Profile], t.peak)
	if len(p) > ad.Keep {
		p = p[len(p)-ad.Keep:]
	}
	ad.peaks[t.Profile] = p
	ad.seen[t.Profile]++
}

// observe takes a sample of the RSS of running sessions' trees (by
// ticket); it returns the tickets whose watch it fires: over their
// memory_max for the first time.
func (ad *Admission) observe(rss map[*Ticket]int64, oomCount int64, oomOK bool) []*Ticket {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	var over []*Ticket
	for t, n := range rss {
		if !ad.running[t] {
			continue
		}
		t.rss, t.peak, t.sampled = n, max(t.peak, n), true
		if oomOK {
			t.oomPrev, t.oomPrevSeen = t.oomLast, t.oomLastSeen
			t.oomLast, t.oomLastSeen = oomCount, true
		}
		if t.watch.max > 0 && t.watch.rssWatch && n > t.watch.max && !t.fired {
			t.fired = true
			over = append(over, t)
		}
	}
	ad.broadcastLocked() // what the running take changed: a waiter may fit now
	return over
}

// Footprint is what the page shows of each CLI: its estimate, whether it
// was learned, and from how many sessions.
func (ad *Admission) footprints() []state.Footprint {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	now := ad.clock.Now()
	profs := map[string]bool{}
	for p := range ad.peaks {
		profs[p] = true
	}
	for t := range ad.running {
		profs[t.Profile] = true
	}
	out := make([]state.Footprint, 0, len(profs))
	for p := range profs {
		est, learned := ad.estimateLocked(p, ad.running, now)
		out = append(out, state.Footprint{Profile: p, Bytes: est, Learned: learned, Sessions: ad.seen[p]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Profile < out[j].Profile })
	return out
}

// running returns the tickets running now.
func (ad *Admission) runningTickets() []*Ticket {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	out := make([]*Ticket, 0, len(ad.running))
	for t := range ad.running {
		out = append(out, t)
	}
	return out
}
