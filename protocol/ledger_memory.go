package protocol

// maxRemembered bounds what a ledger remembers of contents it has seen: the
// newest this many contents recorded, and reported in the current epoch. An
// agent printing an endless stream of distinct blocks cannot make the
// ledger grow without end; what it forgets is the oldest.
const maxRemembered = 4096

// memory maps content keys to epochs, remembering only the newest max keys
// (by when each was set).
type memory struct {
	max   int
	m     map[string]memo
	order []memo // keys in the order they were set; a ring once full
	head  int    // the oldest entry of order, once full
	seq   uint64
}

type memo struct {
	key   string
	epoch int
	seq   uint64 // tells a live entry of order from a stale one
}

func newMemory(max int) *memory { return &memory{max: max, m: map[string]memo{}} }

// get returns the epoch key was last set in.
func (y *memory) get(key string) (int, bool) {
	e, ok := y.m[key]
	return e.epoch, ok
}

// set remembers key at epoch, forgetting the oldest key when full.
func (y *memory) set(key string, epoch int) {
	y.seq++
	e := memo{key: key, epoch: epoch, seq: y.seq}
	y.m[key] = e
	if len(y.order) < y.max {
		y.order = append(y.order, e)
		return
	}
	// Full: the ring's oldest entry makes room. It may be stale (its key
	// was set again since, or deleted): then nothing is forgotten. Every
	// key in m has exactly one live entry in the ring, so m never holds
	// more than max keys.
	old := y.order[y.head]
	if cur, ok := y.m[old.key]; ok && cur.seq == old.seq {
		delete(y.m, old.key)
	}
	y.order[y.head] = e
	y.head = (y.head + 1) % y.max
}

// del forgets key.
func (y *memory) del(key string) { delete(y.m, key) }

// clear forgets everything.
func (y *memory) clear() {
	clear(y.m)
	y.order, y.head = y.order[:0], 0
}

// len is how many keys are remembered.
func (y *memory) len() int { return len(y.m) }
