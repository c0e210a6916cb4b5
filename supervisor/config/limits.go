package config

import "fmt"

// Limits on a team file, checked before it is decoded: a team file is a few
// kilobytes; one of megabytes or tables nested thousands deep is a mistake
// or an attack, and decoding it would cost gigabytes.
const (
	MaxFileSize = 1 << 20 // bytes
	MaxNesting  = 32      // arrays and inline tables inside one another
)

// MinDuration is the shortest a timer of the team file may be: "1ns" would
// stall an agent milliseconds after its start.
const MinDuration = 50e6 // 50 ms

// checkLimits refuses a file larger than MaxFileSize, or with arrays and
// inline tables nested deeper than MaxNesting (strings and comments
// skipped), with the position of the first offending byte.
func checkLimits(path string, data []byte) error {
	if len(data) > MaxFileSize {
		return tooLarge(path, int64(len(data)))
	}
	depth, line, col := 0, 1, 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
		case c == '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			quote := string(c)
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				quote = quote + quote + quote
			}
			end := i + len(quote)
			for end < len(data) && string(data[end:min(end+len(quote), len(data))]) != quote {
				if data[end] == '\\' && c == '"' {
					end++
				}
				if end < len(data) && data[end] == '\n' {
					line, col = line+1, 0
				}
				end++
			}
			i = end + len(quote) - 1
		case c == '[' || c == '{':
			if depth++; depth > MaxNesting {
				return Errors{{Pos: Position{File: path, Line: line, Col: col},
					Msg: fmt.Sprintf("arrays and tables nested more than %d deep", MaxNesting)}}
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

func tooLarge(path string, size int64) error {
	return Errors{{Pos: Position{File: path, Line: 1, Col: 1},
		Msg: fmt.Sprintf("team file is %d bytes: at most %d", size, MaxFileSize)}}
}
