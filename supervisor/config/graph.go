package config

import (
	"strconv"
	"strings"
)

// findCycles returns every cycle of the blocked_by graph once, as task indices
// along the cycle (each task waits for the next, the last for the first),
// starting at the task that comes first in the file. ids maps task ids to
// their index; entries naming unknown tasks are ignored here.
func findCycles(tasks []Task, ids map[string]int) [][]int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(tasks))
	var (
		stack  []int
		cycles [][]int
		seen   = make(map[string]bool)
		visit  func(u int)
	)
	visit = func(u int) {
		color[u] = grey
		stack = append(stack, u)
		for _, dep := range tasks[u].BlockedBy {
			v, ok := ids[dep]
			if !ok {
				continue
			}
			switch color[v] {
			case grey:
				at := len(stack) - 1
				for stack[at] != v {
					at--
				}
				cycle := canonicalCycle(stack[at:])
				if key := cycleKey(cycle); !seen[key] {
					seen[key] = true
					cycles = append(cycles, cycle)
				}
			case white:
				visit(v)
			}
		}
		stack = stack[:len(stack)-1]
		color[u] = black
	}
	for u := range tasks {
		if color[u] == white {
			visit(u)
		}
	}
	return cycles
}

// canonicalCycle copies the cycle, rotated to start at its smallest index.
func canonicalCycle(c []int) []int {
	low := 0
	for i, n := range c {
		if n < c[low] {
			low = i
		}
	}
	out := make([]int, 0, len(c))
	out = append(out, c[low:]...)
	return append(out, c[:low]...)
}

// cycleKey identifies a canonical cycle.
func cycleKey(c []int) string {
	parts := make([]string, len(c))
	for i, n := range c {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// cycleString formats a cycle as "T1 -> T2 -> T1".
func cycleString(tasks []Task, c []int) string {
	parts := make([]string, 0, len(c)+1)
	for _, n := range c {
		parts = append(parts, tasks[n].ID)
	}
	parts = append(parts, tasks[c[0]].ID)
	return strings.Join(parts, " -> ")
}
