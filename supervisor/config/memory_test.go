//go:build !e2e

package config

import (
	"os"
	"strings"
	"testing"
)

// The memory keys: max_running and memory_floor at the top, memory_max per
// agent; none by default, each strict like every key.
func TestMemoryKeys(t *testing.T) {
	src := "max_running = 8\nmemory_floor = \"2GB\"\n\n[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\nmemory_max = \"4GiB\"\n\n" +
		"[[agent]]\nname = \"b\"\ncommand = [\"sh\"]\n"
	team, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if team.MaxRunning != 8 || team.MemoryFloor != 2*GB || team.Agents[0].MemoryMax != 4*GiB || team.Agents[1].MemoryMax != 0 {
		t.Errorf("max_running %d, memory_floor %d, memory_max %d and %d", team.MaxRunning, team.MemoryFloor,
			team.Agents[0].MemoryMax, team.Agents[1].MemoryMax)
	}
	def, err := Parse("t.toml", []byte("[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if def.MaxRunning != 0 || def.MemoryFloor != 0 || def.Agents[0].MemoryMax != 0 {
		t.Errorf("defaults: max_running %d, memory_floor %d, memory_max %d, want none", def.MaxRunning, def.MemoryFloor, def.Agents[0].MemoryMax)
	}
}

func TestMemoryKeysInvalid(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"max_running zero", "max_running = 0\n" + agent,
			[]string{"t.toml:1:1: max_running must be 1 or more, not 0"}},
		{"max_running as a string", "max_running = \"8\"\n" + agent,
			[]string{"t.toml:1:1: max_running must be an integer, not string"}},
		{"memory_floor without a unit", "memory_floor = \"2\"\n" + agent,
			[]string{`t.toml:1:1: memory_floor: invalid size "2" (want a whole number and a unit, such as "50MB", "512KB" or "1GiB")`}},
		{"memory_floor too small", "memory_floor = \"512KB\"\n" + agent,
			[]string{`t.toml:1:1: memory_floor must be at least 1MB, not "512KB"`}},
		{"memory_floor as an integer", "memory_floor = 2000000000\n" + agent,
			[]string{`t.toml:1:1: memory_floor must be a size string such as "50MB", not integer`}},
		{"memory_max too small", agent + "memory_max = \"16MB\"\n",
			[]string{`t.toml:4:1: memory_max must be at least 32MB, not "16MB"`}},
		{"memory_max misspelt", agent + "memory_limit = \"4GB\"\n",
			[]string{`t.toml:4:1: unknown key "memory_limit" in [[agent]]`}},
		{"memory_max at the top", "memory_max = \"4GB\"\n" + agent,
			[]string{`t.toml:1:1: unknown key "memory_max"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.toml", []byte(c.src))
			es, ok := AsErrors(err)
			if !ok {
				t.Fatalf("Parse error = %v, want Errors", err)
			}
			if got, want := es.Error(), strings.Join(c.want, "\n"); got != want {
				t.Errorf("errors:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// A memory_floor at or above the machine's memory validates, with a
// warning at its key: no agent would ever start.
func TestMemoryFloorAboveTheMachineWarns(t *testing.T) {
	total := memTotal()
	if total == 0 {
		t.Skip("no MemTotal in /proc/meminfo here")
	}
	dir := t.TempDir()
	for floor, warned := range map[string]bool{"1024GiB": total <= 1024*GiB, "1MB": false} {
		path := dir + "/team.toml"
		src := "name = \"n\"\nmemory_floor = \"" + floor + "\"\n[[agent]]\nname = \"a\"\ncommand = [\"/bin/sh\"]\n"
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		_, ws, err := LoadWithWarnings(path)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, w := range ws {
			if strings.Contains(w.Msg, "memory_floor") {
				got = w.String()
			}
		}
		if warned != (got != "") {
			t.Errorf("memory_floor %s: warning %q, want one: %v", floor, got, warned)
		}
		if warned && (!strings.HasSuffix(got, "no agent will ever start here") ||
			!strings.Contains(got, "team.toml:2:1: warning: memory_floor 1024 GiB is not below this machine's memory")) {
			t.Errorf("warning %q", got)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 400 * MiB: "400 MiB",
		3*GiB + GiB/2: "3.5 GiB", -200 * MiB: "-200 MiB", 2 * GB: "2 GB", 200 * MB: "200 MB", 4 * GiB: "4 GiB",
		24105652 * KiB: "23 GiB", 1 << 40: "1024 GiB", 2*GB + 1: "1.9 GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
