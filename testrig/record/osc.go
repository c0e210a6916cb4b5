package main

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// oscFilter drops OSC strings (ESC ] ... BEL or ESC \) from the stream fed
// to the emulator: x/vt lets window titles leak onto the screen
// (charmbracelet/x#848). It keeps its state across writes.
type oscFilter struct {
	inOSC bool
	esc   bool
}

func (f *oscFilter) filter(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		switch {
		case f.inOSC:
			switch {
			case b == 0x07:
				f.inOSC, f.esc = false, false
			case f.esc && b == '\\':
				f.inOSC, f.esc = false, false
			default:
				f.esc = b == 0x1b
			}
		case f.esc:
			f.esc = false
			if b == ']' {
				f.inOSC = true
				continue
			}
			out = append(out, 0x1b, b)
		case b == 0x1b:
			f.esc = true
		default:
			out = append(out, b)
		}
	}
	return out
}

// Claude Code asks at start whether the terminal shows program status
// (OSC 7501); a terminal that does answers, and Claude then reports
// state=working, state=blocked (with kind=permission for an approval
// dialog) and state=idle.
const (
	osc7501Probe = "\x1b]7501;?\x07"
	osc7501Reply = "\x1b]7501;?\x1b\\"
)

// probeScan finds the OSC 7501 probe in output that arrives in pieces.
type probeScan struct {
	tail []byte
}

// scan returns how many probes end in p.
func (ps *probeScan) scan(p []byte) int {
	buf := append(ps.tail, p...)
	n := bytes.Count(buf, []byte(osc7501Probe))
	if i := bytes.LastIndex(buf, []byte(osc7501Probe)); i >= 0 {
		buf = buf[i+len(osc7501Probe):]
	}
	keep := min(len(buf), len(osc7501Probe)-1)
	ps.tail = append([]byte(nil), buf[len(buf)-keep:]...)
	return n
}

// oscInfo is one status or title sequence a CLI wrote; repeats of the
// same sequence right after it (for a title, also with another spinner
// frame in front) are counted, not listed.
type oscInfo struct {
	Offset int   `json:"offset"`
	AtMS   int64 `json:"at_ms"`
	// Code is the OSC number: 0 and 2 set the window title, 7501 reports
	// program status, 9 and 777 are notifications.
	Code string `json:"code"`
	// Text is what follows "CODE;".
	Text string `json:"text"`
	// Message is the base64 msg= field of an OSC 7501 report, decoded.
	Message string `json:"message,omitempty"`
	// Terminator is "BEL" or "ST" (ESC \).
	Terminator string `json:"terminator"`
	Repeats    int    `json:"repeats,omitempty"`
}

// oscCodes are the OSC sequences listed in a dialog recording's sidecar.
var oscCodes = map[string]bool{"0": true, "1": true, "2": true, "7501": true, "9": true, "777": true}

// scanOSC lists the title, status and notification sequences in raw.
func scanOSC(raw []byte, marks []mark) []oscInfo {
	var out []oscInfo
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != 0x1b || raw[i+1] != ']' {
			continue
		}
		stop, end, term := -1, -1, ""
		for j := i + 2; j < len(raw); j++ {
			if raw[j] == 0x07 {
				stop, end, term = j, j+1, "BEL"
				break
			}
			if raw[j] == 0x1b && j+1 < len(raw) && raw[j+1] == '\\' {
				stop, end, term = j, j+2, "ST"
				break
			}
		}
		if end < 0 {
			break
		}
		body := string(raw[i+2 : stop])
		code, text, _ := strings.Cut(body, ";")
		if oscCodes[code] {
			info := oscInfo{Offset: i, AtMS: atMS(marks, end), Code: code, Text: text, Terminator: term}
			if code == "7501" {
				info.Message = statusMessage(text)
			}
			if n := len(out); n > 0 && out[n-1].Code == code && unspun(out[n-1].Text) == unspun(text) {
				out[n-1].Repeats++
			} else {
				out = append(out, info)
			}
		}
		i = end - 1
	}
	return out
}

// unspun is a title without its leading spinner frame (Codex's braille
// dots), so that a spinning title counts as repeats of one.
func unspun(text string) string {
	r, size := utf8.DecodeRuneInString(text)
	if r >= 0x2800 && r <= 0x28ff {
		return "⠿" + text[size:]
	}
	return text
}

// statusMessage decodes the msg= field of "state=…:app=…:kind=…:msg=B64".
func statusMessage(text string) string {
	for _, f := range strings.Split(text, ":") {
		if v, ok := strings.CutPrefix(f, "msg="); ok {
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				return string(b)
			}
			return "(not base64) " + v
		}
	}
	return ""
}
