package protocol

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Status values a block may carry.
const (
	StatusImplementing         = "implementing"
	StatusTesting              = "testing"
	StatusAwaitingVerification = "awaiting-verification"
	StatusBlocked              = "blocked"
	StatusComplete             = "complete"
)

// Statuses lists every valid Status value, in the order the preamble shows them.
var Statuses = []string{StatusImplementing, StatusTesting, StatusAwaitingVerification, StatusBlocked, StatusComplete}

// Block is one complete, valid CHECKPOINT block as the agent wrote it.
type Block struct {
	Task          string
	Status        string
	Completed     []string
	Remaining     []string
	FilesModified []string
	Progress      int // 0..100
	Blockers      []string
	Notes         string
	Resume        string
	// The seeds' optional lines (DESIGN §4) and every other Key: value
	// line of the block (see extraKey for what counts, and the bounds).
	Phase        string
	CurrentStep  string
	Subtasks     *Subtasks
	FilesCreated []string
	Errors       []ErrorItem
	Extra        map[string]string

	// What the Reader adds; not content (Key ignores them). Epoch is the
	// request epoch the block was read in (see ledger). Amends: the block
	// completes the latest record with optional lines that came late — the
	// same answer, to be updated in place, not a new one.
	Epoch  int
	Amends bool
	// Before (ModeScreen): the block stands above the last request's echo
	// on the screen, a request typed: it answers an earlier request than
	// the one typed last (a late answer, read after the next request was
	// typed), never that one.
	Before bool
}

// Key returns a stable digest of the block's content. Two copies of the same
// answer (a repaint, the same block in scrollback and on screen, different
// hard wraps of one line) have the same key; any field that differs makes
// another. A block without the seeds' lines or extra keys has the key it
// had before they existed.
func (b Block) Key() string {
	h := fnv.New64a()
	w := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	list := func(name string, items []string) {
		w(name)
		for _, it := range items {
			w(it)
		}
	}
	w(b.Task)
	w(b.Status)
	list("completed", b.Completed)
	list("remaining", b.Remaining)
	list("files", b.FilesModified)
	w(strconv.Itoa(b.Progress))
	list("blockers", b.Blockers)
	w(b.Notes)
	w(b.Resume)
	if b.Phase != "" || b.CurrentStep != "" {
		w("phase")
		w(b.Phase)
		w(b.CurrentStep)
	}
	if s := b.Subtasks; s != nil {
		w("subtasks")
		w(strconv.Itoa(s.Done) + "/" + strconv.Itoa(s.Total))
		for _, it := range s.Items {
			w(strconv.FormatBool(it.Done))
			w(it.Text)
		}
	}
	if len(b.FilesCreated) > 0 {
		list("created", b.FilesCreated)
	}
	if len(b.Errors) > 0 {
		w("errors")
		for _, e := range b.Errors {
			w(e.Where)
			w(e.Message)
		}
	}
	if len(b.Extra) > 0 {
		w("extra")
		keys := make([]string, 0, len(b.Extra))
		for k := range b.Extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			w(k)
			w(b.Extra[k])
		}
	}
	return "block:" + strconv.FormatUint(h.Sum64(), 16)
}

func validStatus(s string) bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether v is a template placeholder rather than a
// value: "<...>", "[...]" or anything holding "[N]".
func isPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "[N]") {
		return true
	}
	if len(v) >= 2 && ((v[0] == '<' && v[len(v)-1] == '>') || (v[0] == '[' && v[len(v)-1] == ']')) {
		return true
	}
	return false
}

// parseProgress reads "65%" (or "65 %"). It returns a rejection reason when
// the value is not a whole percentage from 0 to 100.
func parseProgress(v string) (int, string) {
	v = strings.TrimSpace(v)
	if isPlaceholder(strings.TrimSuffix(v, "%")) || strings.Contains(v, "[") || strings.Contains(v, "<") {
		return 0, "placeholder in Estimated Progress: " + strconv.Quote(v)
	}
	num, ok := strings.CutSuffix(v, "%")
	if !ok {
		return 0, "Estimated Progress without %: " + strconv.Quote(v)
	}
	num = strings.TrimSpace(num)
	n, err := strconv.Atoi(num)
	if err != nil || num == "" || num[0] == '+' || num[0] == '-' && n == 0 {
		return 0, "Estimated Progress is not a whole number: " + strconv.Quote(v)
	}
	if n < 0 || n > 100 {
		return 0, "Estimated Progress out of range 0-100: " + strconv.Quote(v)
	}
	return n, ""
}

// splitFiles splits a "Files Modified:" value: a comma list, or "none".
func splitFiles(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" || isNone(f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func isNone(v string) bool {
	switch strings.ToLower(strings.TrimRight(strings.TrimSpace(v), ".")) {
	case "none", "(none)", "n/a", "-", "nothing":
		return true
	}
	return false
}
