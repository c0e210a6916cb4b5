package protocol

import (
	"hash/fnv"
	"strconv"
	"strings"
)

var required = []field{fieldStatus, fieldCompleted, fieldRemaining, fieldFiles, fieldProgress}

func (p *blockParser) validate(cut string, open bool) string {
	var missing []string
	for _, f := range required {
		if !p.seen[f] {
			missing = append(missing, f.String())
		}
	}
	if len(missing) > 0 {
		m := "missing " + strings.Join(missing, ", ")
		switch {
		case cut != "":
			return cut + " (" + m + ")"
		case open:
			return "incomplete block (" + m + ")"
		}
		return m
	}
	b := &p.c.block
	if b.Task == "" || isPlaceholder(b.Task) || strings.ContainsAny(b.Task, "<>[]") {
		return "placeholder or empty task id: " + strconv.Quote(b.Task)
	}
	if strings.ContainsAny(b.Task, " \t") {
		return "task id with spaces: " + strconv.Quote(b.Task)
	}
	if isPlaceholder(b.Status) || strings.HasPrefix(b.Status, "<") {
		return "placeholder in Status: " + strconv.Quote(b.Status)
	}
	if !validStatus(b.Status) {
		return "unknown status: " + strconv.Quote(b.Status)
	}
	n, why := parseProgress(p.prog)
	if why != "" {
		return why
	}
	b.Progress = n
	// Placeholders in the optional lines were dropped (finish): only a
	// required line missing or invalid rejects a block.
	for _, l := range []struct {
		f     field
		items []string
	}{{fieldCompleted, b.Completed}, {fieldRemaining, b.Remaining}, {fieldFiles, b.FilesModified}} {
		for _, it := range l.items {
			if isPlaceholder(it) {
				return "placeholder in " + l.f.String() + " " + strconv.Quote(it)
			}
		}
	}
	return ""
}

// rejectKey identifies a rejected candidate independent of hard wraps.
func rejectKey(reason string, lines []string) string {
	h := fnv.New64a()
	h.Write([]byte(reason))
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			h.Write([]byte{0})
			h.Write([]byte(w))
		}
	}
	return "reject:" + strconv.FormatUint(h.Sum64(), 16)
}

// parseLines finds every block candidate in rendered lines.
func parseLines(lines []string) []candidate {
	var p blockParser
	for _, s := range lines {
		p.feed(classify(s))
	}
	p.flush()
	return p.take()
}

// ParseBlocks returns the valid blocks in text and the reasons the other
// CHECKPOINT: blocks in it were rejected.
func ParseBlocks(text string) ([]Block, []string) {
	var blocks []Block
	var reasons []string
	for _, c := range parseLines(strings.Split(text, "\n")) {
		if c.valid() {
			blocks = append(blocks, c.block)
		} else {
			reasons = append(reasons, c.reason)
		}
	}
	return blocks, reasons
}
