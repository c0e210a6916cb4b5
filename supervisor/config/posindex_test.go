//go:build !e2e

package config

import (
	"testing"

	"github.com/BurntSushi/toml"
)

// tricky holds what the position index must get right: comments everywhere,
// multi-line arrays and strings, inline tables (also across lines, TOML 1.1),
// quoted and dotted keys, brackets and '#' inside strings, a header inside a
// multi-line string, date-times with a space, CRLF line ends, an indented
// header, and a [table] naming the last element of an array of tables.
const tricky = "# leading comment\n" +
	"name = \"a [[agent]] # not a header\" # comment\n" + // 2
	"\"quoted key\" = 1\n" + // 3
	"dotted . key = 2\n" + // 4
	"when = [1979-05-27 07:32:00Z, 1979-05-28]\n" + // 5
	"\n" +
	"[[agent]] # first\n" + // 7
	"name = \"w1\"\n" + // 8
	"command = [\n" + // 9
	"  \"claude\", # comment ]\n" + // 10
	"  '--x]', \"\"\"multi\n" + // 11
	"line ] \\\"\"\" \"\"\",\n" + // 12
	"]\n" + // 13
	"env = { A = \"1\", \"B.C\" = '2', D.E = 3 }\n" + // 14
	"  [[agent]]\r\n" + // 15
	"name = 'w2'\r\n" + // 16
	"prompt = '''\n" + // 17
	"[[task]]\n" + // 18
	"id = 'fake'\n" + // 19
	"'''\n" + // 20
	"env = {\n" + // 21
	"  X = \"y\", # comment\n" + // 22
	"}\n" + // 23
	"[agent.sub]\n" + // 24
	"k = 1\n" + // 25
	"[[task]]\n" + // 26
	"title = \"ééé\"\n" + // 27
	"    id = \"T1\"\n" // 28

func TestPosIndexTricky(t *testing.T) {
	src := tricky
	var doc map[string]any
	if _, err := toml.Decode(src, &doc); err != nil {
		t.Fatalf("test document is not valid TOML: %v", err)
	}
	ix := newPosIndex("t.toml", []byte(src))
	cases := []struct {
		path string
		want string
	}{
		{"name", "t.toml:2:1"},
		{`"quoted key"`, "t.toml:3:1"},
		{"dotted", "t.toml:4:1"},
		{"dotted.key", "t.toml:4:1"},
		{"when[0]", "t.toml:5:9"},
		{"when[1]", "t.toml:5:31"},
		{"agent", "t.toml:7:1"},
		{"agent[0]", "t.toml:7:1"},
		{"agent[0].name", "t.toml:8:1"},
		{"agent[0].command", "t.toml:9:1"},
		{"agent[0].command[0]", "t.toml:10:3"},
		{"agent[0].command[1]", "t.toml:11:3"},
		{"agent[0].command[2]", "t.toml:11:11"},
		{"agent[0].env.A", "t.toml:14:9"},
		{`agent[0].env."B.C"`, "t.toml:14:18"},
		{"agent[0].env.D.E", "t.toml:14:31"},
		{"agent[1]", "t.toml:15:3"},
		{"agent[1].name", "t.toml:16:1"},
		{"agent[1].prompt", "t.toml:17:1"},
		{"agent[1].env.X", "t.toml:22:3"},
		{"agent[1].sub", "t.toml:24:1"},
		{"agent[1].sub.k", "t.toml:25:1"},
		{"task[0]", "t.toml:26:1"},
		{"task[0].title", "t.toml:27:1"},
		{"task[0].id", "t.toml:28:5"},
		{"task[0].nothing", "t.toml:26:1"}, // falls back to the table
		{"nothing", "t.toml:1:1"},
	}
	for _, c := range cases {
		if got := ix.at(c.path).String(); got != c.want {
			t.Errorf("at(%q) = %s, want %s", c.path, got, c.want)
		}
	}
	if ix.has("task[1]") {
		t.Errorf("the [[task]] inside a multi-line string was indexed as a table")
	}
}

func TestPosIndexColumnsCountCharacters(t *testing.T) {
	ix := newPosIndex("t.toml", []byte("a = { \"ü\" = 1, b = 2 }\n"))
	if got := ix.at("a.b").String(); got != "t.toml:1:16" {
		t.Errorf("at(a.b) = %s, want t.toml:1:16", got)
	}
	if got := ix.at(`a."ü"`).String(); got != "t.toml:1:7" {
		t.Errorf(`at(a."ü") = %s, want t.toml:1:7`, got)
	}
}

func TestParentPath(t *testing.T) {
	cases := map[string]string{
		"agent[1].env.HOME":     "agent[1].env",
		"agent[1]":              "agent",
		`agent[1].env."a.b[c]"`: "agent[1].env",
		"name":                  "",
		`"a\"b.c".d`:            `"a\"b.c"`,
	}
	for in, want := range cases {
		if got := parentPath(in); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", in, got, want)
		}
	}
}
