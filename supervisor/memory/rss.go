package memory

// The RSS watch: every SampleEvery, while sessions run, one scan of /proc
// reads the RSS of each running session's process tree (its session, its
// group and their descendants: runner.TreeRSS). What it reads teaches the
// admission each CLI's footprint; a session over its memory_max that no
// cgroup holds is asked for a last checkpoint and restarted; and the
// kernel's OOM kill count read just before is kept for each tree still
// alive, so that an agent killed by SIGKILL is told the OOM killer's only
// when the count rose after its tree was last seen (oom.go).

// watchSpec is what the watch knows of a session: how to find its process
// (0: not started, or ended), its memory_max when the RSS watch holds it,
// and what to do when it is over.
type watchSpec struct {
	pid      func() int
	max      int64
	rssWatch bool // no cgroup holds max: the watch does
	over     func(rss int64)
}

// watchLoop samples while sessions run and sleeps on the admission's
// changes while none does (no timer, no wake-up).
func (m *Memory) watchLoop() {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		idle, wake := len(m.running) == 0, m.wake
		m.mu.Unlock()
		if idle {
			select {
			case <-wake:
				continue
			case <-m.done:
				return
			}
		}
		m.sample()
		t := m.clock.NewTimer(m.SampleEvery)
		select {
		case <-t.C():
		case <-m.done:
			t.Stop()
			return
		}
	}
}

// sample reads every running tree once and hands the figures on.
func (m *Memory) sample() {
	m.mu.Lock()
	specs := make(map[*Ticket]watchSpec, len(m.running))
	for t := range m.running {
		specs[t] = t.watch
	}
	m.mu.Unlock()
	oom, oomOK := m.OOMCount() // before the trees: a kill after it raises the count
	pids := make(map[*Ticket]int, len(specs))
	roots := make([]int, 0, len(specs))
	for t, w := range specs {
		if w.pid == nil {
			continue
		}
		if pid := w.pid(); pid > 0 {
			pids[t] = pid
			roots = append(roots, pid)
		}
	}
	if len(roots) == 0 {
		return
	}
	rss, err := m.TreeRSS(roots)
	if err != nil {
		m.errOnce.Do(func() { m.log.Error("the RSS watch cannot read the agents' memory", "error", err) })
		return
	}
	got := make(map[*Ticket]int64, len(pids))
	for t, pid := range pids {
		if n, ok := rss[pid]; ok {
			got[t] = n
		}
	}
	for _, t := range m.observe(got, oom, oomOK) {
		specs[t].over(got[t])
	}
}

// Over reports whether the RSS watch found the ticket's session over its
// memory_max (and restarted it).
func (t *Ticket) Over() bool {
	if t == nil {
		return false
	}
	t.ad.mu.Lock()
	defer t.ad.mu.Unlock()
	return t.fired
}

// Peak is the highest RSS the watch read of the session's tree (0: none).
func (t *Ticket) Peak() int64 {
	if t == nil {
		return 0
	}
	t.ad.mu.Lock()
	defer t.ad.mu.Unlock()
	return t.peak
}

// Watch makes the RSS watch follow a session on the ticket: pid finds its
// process (0: not started, or ended); max is its memory_max, the watch's to
// hold when rssWatch (no cgroup holds it); over is called when it is over.
func (t *Ticket) Watch(max int64, rssWatch bool, pid func() int, over func(rss int64)) {
	t.ad.mu.Lock()
	t.watch = watchSpec{max: max, rssWatch: rssWatch, pid: pid, over: over}
	t.ad.mu.Unlock()
}

// LastSeenOOM is the OOM kill count read just before the last-but-one
// sample that saw the session's tree alive; ok is false when there was none.
func (t *Ticket) LastSeenOOM() (int64, bool) {
	if t == nil {
		return 0, false
	}
	t.ad.mu.Lock()
	defer t.ad.mu.Unlock()
	return t.oomPrev, t.oomPrevSeen
}
