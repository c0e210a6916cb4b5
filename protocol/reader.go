package protocol

import (
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// Mode says how a Reader reads an agent's output.
type Mode int

const (
	// ModeLines parses complete lines as they arrive, escape sequences
	// stripped; for plain, line-oriented programs.
	ModeLines Mode = iota
	// ModeScreen feeds a terminal emulator and parses what a person would see:
	// rows scrolled off the top plus the visible screen, when Quiet is called.
	ModeScreen
)

// ReaderOptions configures a Reader. Callbacks run on the goroutine that
// called Write, Quiet, Typed or Flush, after the Reader's lock is released;
// Reply runs on the Reader's own goroutine.
type ReaderOptions struct {
	Mode       Mode
	Rows, Cols int // screen size, as given to the pty; default 50×200
	// ScrollKeep is how many scrolled-off rows stay in the parsed view
	// (default 500): enough for a block that scrolled away while drawn.
	ScrollKeep int
	OnBlock    func(Block)
	OnReject   func(reason string, text string)
	OnComplete func()
	// Reply gets the emulator's answers to terminal queries (ModeScreen);
	// write them to the pty. It must not block for long.
	Reply func([]byte)
	// Composer finds the CLI's input box on a screen of rows (ModeScreen):
	// the first row it covers; ok false when none shows. Rows from it on
	// are not looked at for a request's echo (reader_anchor.go).
	Composer func(rows []string) (from, to int, ok bool)
}

// Reader is the object the supervisor feeds with one agent's raw pty output.
// It reports each complete, valid CHECKPOINT block exactly once (see ledger
// for the rule), rejected blocks with their reason, and CompleteMarker alone
// on a line. Its methods are safe for concurrent use.
type Reader struct {
	mu   sync.Mutex
	log  hclog.Logger
	opts ReaderOptions
	led  *ledger
	ev   []event
	done bool

	// echoComplete counts CompleteMarker lines in typed text whose echo is
	// still to come.
	echoComplete int

	// ModeLines
	suspect      *candidate // a rejected block waiting for its next line
	suspectWords string     // … its canonical words
	esc          escFilter
	fbuf         []byte
	cur          []byte
	cut          int  // bytes of the line being read dropped past maxLine
	cutLog       bool // a cut line outside a block was logged once
	cr           bool
	parser       blockParser

	// tail: what Tail returns, kept past Close
	tail tailKeeper

	// ModeScreen
	scr    Screen
	scroll []Row
	// scrollBase is the number of scrolled-off rows dropped before
	// scroll[0]; viewFrom the row (counted the same way) where the parsed
	// view starts, set when a request is typed (reader_screen.go).
	scrollBase, viewFrom int
	dirty                bool
	view                 []string
	defers               int // Quiet calls put off in a row because one frame was half drawn
	// unsure: the blocks that did not parse at the last Quiet (ModeScreen),
	// by key. One is rejected only when the next Quiet reads it the same:
	// a TUI slowed down mid-draw (a loaded machine) shows a block without
	// its last fields for longer than a settle.
	unsure map[string]bool
	frame  uint64 // the frame that was half drawn at the last Quiet put off
	// anchor: the current request's echo, once seen (reader_anchor.go).
	anchor             anchorState
	sawEcho, submitted bool
	echoAboveBox       bool
	echoRows           []string
}

type event struct {
	block    *Block
	reason   string
	text     string
	complete bool
}

// maxLine is how much of one line ModeLines reads; the rest of a longer
// line is dropped, and a block holding such a line is rejected (damaged).
const maxLine = 64 << 10

// NewReader returns a Reader. In ModeScreen it starts a goroutine for the
// emulator's replies; Flush or Close stops it.
func NewReader(logger hclog.Logger, opts ReaderOptions) *Reader {
	if opts.ScrollKeep <= 0 {
		opts.ScrollKeep = 500
	}
	r := &Reader{log: logger.Named("protocol"), opts: opts, led: newLedger()}
	if opts.Mode == ModeScreen {
		r.scr = NewScreen(r.log, opts.Cols, opts.Rows, opts.Reply)
	}
	return r
}

// Write takes raw pty output. It never fails.
func (r *Reader) Write(p []byte) (int, error) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return len(p), nil
	}
	if r.scr != nil {
		r.writeScreen(p)
		r.lookForEcho()
	} else {
		r.fbuf = r.esc.filter(r.fbuf, p, true, r.lineBytes)
	}
	r.unlockAndDispatch()
	return len(p), nil
}

// Typed tells the Reader what warden just typed into the agent. Blocks and
// CompleteMarker lines in it are warden's own, so their echo never counts. A
// text holding a CHECKPOINT REQUEST line starts a new request: what is on
// screen now is never its answer.
func (r *Reader) Typed(text string) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return
	}
	r.tail.typedText(text)
	// The echo of the text comes next: it never continues a block taken
	// at a pause (held) with its optional lines; optional lines after it
	// come after other output.
	r.parser.interrupt()
	lines := strings.Split(text, "\n")
	request := false
	for _, s := range lines {
		l := classify(s)
		if l.kind == kindText && l.text == CompleteMarker {
			r.echoComplete++
		}
		if strings.HasPrefix(strings.TrimSpace(s), RequestPrefix) {
			request = true
		}
	}
	r.led.addTyped(canonicalWords(lines, false))
	if request {
		r.anchor, r.sawEcho, r.submitted, r.echoAboveBox = anchorWatch, false, false, false
		if r.scr != nil {
			r.viewFrom = max(0, r.scrollBase+len(r.scroll)-r.opts.ScrollKeep)
			_, counts := r.parseView(false)
			r.led.newRequest(counts)
		} else {
			r.parser.end(false, "")
			r.handleAll(r.parser.take())
			r.release()
			r.led.newRequest(nil)
		}
		r.log.Debug("checkpoint request typed", "epoch", r.led.epoch)
	}
	r.unlockAndDispatch()
}

// Offer hands the Reader the text of an answer that came through another
// channel than the terminal (a CLI's hook). Its valid blocks are reported
// through OnBlock under the same exactly-once rules as the screen's (see
// ledger), so one answer seen both ways is one record.
func (r *Reader) Offer(text string) {
	r.mu.Lock()
	if !r.done {
		blocks, _ := ParseBlocks(text)
		for i := range blocks {
			b := &blocks[i]
			if isNew, amends := r.led.record(b, b.Key(), "", true, false); isNew {
				b.Epoch, b.Amends = r.led.epoch, amends
				r.ev = append(r.ev, event{block: b})
			}
		}
	}
	r.unlockAndDispatch()
}

// Forget takes back block b, reported through OnBlock but not saved (a full
// disk): it does not count as an answer, and the same answer given again is
// reported again.
func (r *Reader) Forget(b Block) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.led.forget(b.Key())
}

// Quiet tells the Reader that output has been quiet for a while: in
// ModeScreen it reads the screen now; in ModeLines it takes a valid block
// whose last line has arrived. again: a block on the screen did not parse
// and is read once more at the next Quiet before it is rejected; call Quiet
// again after a settle even if nothing more is drawn.
func (r *Reader) Quiet() (again bool) {
	r.mu.Lock()
	if !r.done {
		if r.scr != nil {
			r.quietScreen(false)
			again = len(r.unsure) > 0
		} else {
			r.quietLines()
		}
	}
	r.unlockAndDispatch()
	return again
}

// Flush reads whatever is left at EOF, reports blocks cut off by the end of
// output as rejected, and releases the emulator. Later calls do nothing.
func (r *Reader) Flush() {
	r.mu.Lock()
	if !r.done {
		if r.scr != nil {
			r.quietScreen(true)
		} else {
			if len(r.cur) > 0 {
				r.endLine()
			}
			r.parser.flush()
			r.handleAll(r.parser.take())
			r.release()
		}
		r.close()
	}
	r.unlockAndDispatch()
}

// Rows returns the visible screen as text rows (ModeScreen), nil in
// ModeLines: what a profile looks at to tell ready, busy or a banner.
func (r *Reader) Rows() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scr == nil || r.done {
		return nil
	}
	rows := r.scr.Rows()
	out := make([]string, len(rows))
	for i, row := range rows {
		out[i] = row.Text
	}
	return out
}

// Resize tells the Reader the pty's window changed (ModeScreen).
func (r *Reader) Resize(rows, cols int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scr != nil && !r.done {
		r.scr.Resize(cols, rows)
	}
}

// Close releases the emulator without reading further. Safe to call twice.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.close()
	return nil
}

func (r *Reader) close() {
	if r.scr != nil && !r.done {
		r.tail.screen = joinRows(r.scr.Rows(), nil) // for Tail, after the end
	}
	r.done = true
	if r.scr != nil {
		_ = r.scr.Close()
	}
}

func (r *Reader) unlockAndDispatch() {
	ev := r.ev
	r.ev = nil
	r.mu.Unlock()
	for _, e := range ev {
		switch {
		case e.complete:
			if r.opts.OnComplete != nil {
				r.opts.OnComplete()
			}
		case e.block != nil:
			if r.opts.OnBlock != nil {
				r.opts.OnBlock(*e.block)
			}
		default:
			if r.opts.OnReject != nil {
				r.opts.OnReject(e.reason, e.text)
			}
		}
	}
}

// report queues the event for candidate c if it is not echo and not yet
// reported in this epoch.
func (r *Reader) report(c *candidate, key string) {
	words := canonicalWords(c.lines, true)
	if r.led.isEcho(words) || !r.led.once(key) {
		return
	}
	if c.valid() {
		isNew, amends := r.led.record(&c.block, key, words, false, c.late)
		if !isNew {
			return
		}
		b := c.block
		b.Epoch, b.Amends = r.led.epoch, amends
		r.log.Debug("checkpoint block read", "task", b.Task, "status", b.Status, "progress", b.Progress, "amends", amends)
		r.ev = append(r.ev, event{block: &b})
		return
	}
	if r.scr == nil {
		r.holdReject(c, words) // it may be warden's echo cut by output
		return
	}
	r.reject(c)
}

// complete queues OnComplete for n new CompleteMarker lines, after echoes.
func (r *Reader) complete(n int) {
	used := min(n, r.echoComplete)
	r.echoComplete -= used
	if n-used > 0 && r.led.once(completeKey) {
		r.log.Debug("checkpoint complete read")
		r.ev = append(r.ev, event{complete: true})
	}
}

const completeKey = "complete"
