//go:build !e2e

package config

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func BenchmarkParseFull(b *testing.B) {
	data, err := os.ReadFile("testdata/valid-full.toml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("testdata/valid-full.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// largeTeam is 50 agents and 2000 tasks, each blocked by the two before it.
func largeTeam() []byte {
	var s strings.Builder
	s.WriteString("name = \"large\"\n")
	for i := range 50 {
		fmt.Fprintf(&s, "[[agent]]\nname = \"w%d\"\ncommand = [\"claude\", \"--yes\"]\nenv = { N = \"%d\" }\n", i, i)
	}
	for i := range 2000 {
		fmt.Fprintf(&s, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"\"\"do\nit\"\"\"\nagent = \"w%d\"\n", i, i, i%50)
		if i >= 2 {
			fmt.Fprintf(&s, "blocked_by = [\"T%d\", \"T%d\"]\n", i-1, i-2)
		}
	}
	return []byte(s.String())
}

func BenchmarkParseLarge(b *testing.B) {
	data := largeTeam()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("large.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPosIndexLarge(b *testing.B) {
	data := largeTeam()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		newPosIndex("large.toml", data)
	}
}
