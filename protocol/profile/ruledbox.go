package profile

import (
	"regexp"
	"strings"
)

// The input box Qwen Code and Copilot CLI draw: a row starting with their
// prompt mark at the left edge, right under a rule row, down to the next
// rule; and the messages sent, echoed as a row starting with the mark
// (indented) and the rows under it indented further.

// ruledComposer finds the last input row (input at its left edge) right
// under a rule row, down to the next rule; the text is its rows with the
// mark removed.
func ruledComposer(input *regexp.Regexp) func(rows []string) (span, string, bool) {
	return func(rows []string) (span, string, bool) {
		for i := len(rows) - 1; i > 0; i-- {
			if !input.MatchString(rows[i]) || !lineOf(rows[i-1], '─') {
				continue
			}
			for j := i + 1; j < len(rows); j++ {
				if lineOf(rows[j], '─') {
					var lines []string
					for k := i; k < j; k++ {
						lines = append(lines, strings.TrimSpace(input.ReplaceAllString(rows[k], "")))
					}
					return span{i - 1, j}, strings.TrimSpace(strings.Join(lines, "\n")), true
				}
			}
			return noSpan, "", false
		}
		return noSpan, "", false
	}
}

// indentedEchoes finds the sent messages: a row starting with mark and the
// non-blank rows under it starting with indent, outside the box.
func indentedEchoes(mark, indent string) func(rows []string, box span) []span {
	return func(rows []string, box span) []span {
		var out []span
		for i := 0; i < len(rows); i++ {
			if box.has(i) || !strings.HasPrefix(rows[i], mark) {
				continue
			}
			j := i
			for j+1 < len(rows) && !box.has(j+1) && strings.HasPrefix(rows[j+1], indent) && strings.TrimSpace(rows[j+1]) != "" {
				j++
			}
			out = append(out, span{i, j})
			i = j
		}
		return out
	}
}
