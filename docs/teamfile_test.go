//go:build !e2e

package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// tableHeadings maps each table of the team file (by the decoder's method
// that reads it) to the heading of its section in docs/team-file.md.
var tableHeadings = map[string]string{
	"team":      "## Team keys",
	"retention": "## `[retention]`",
	"notify":    "## `[[notify]]`",
	"agent":     "## `[[agent]]`",
	"task":      "## `[[task]]`",
	"price":     "## `[[price]]`",
}

// subTables are the keys of the top level that are tables of their own.
var subTables = []string{"retention", "notify", "agent", "task", "price"}

// acceptedKeys reads supervisor/config's decoders: the keys each table
// accepts, as the decoder method of that table lists them to unknown(…).
func acceptedKeys(t *testing.T) map[string][]string {
	t.Helper()
	dir := filepath.Join(root, "supervisor", "config")
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil || tableHeadings[fn.Name.Name] == "" {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if sel, isSel := callee(call, ok); !isSel || sel != "unknown" {
					return true
				}
				for _, a := range call.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						keys[fn.Name.Name] = append(keys[fn.Name.Name], s)
					}
				}
				return true
			})
		}
	}
	keys["team"] = difference(keys["team"], subTables)
	for table := range tableHeadings {
		if len(keys[table]) == 0 {
			t.Fatalf("no keys found for the %s table in %s: has its decoder moved?", table, dir)
		}
	}
	return keys
}

// callee returns the method name a call calls, when it is x.name(…).
func callee(call *ast.CallExpr, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	return sel.Sel.Name, true
}

// Every key the team file's decoders accept has a row in its table's
// section of docs/team-file.md, and no row names a key they refuse.
func TestDocsEveryTeamKeyIsDocumented(t *testing.T) {
	text := read(t, teamPage)
	for table, keys := range acceptedKeys(t) {
		rows := rowKeys(section(t, teamPage, text, tableHeadings[table]))
		for _, k := range difference(keys, rows) {
			t.Errorf("%s: key %q of %s has no row under %q", teamPage, k, table, tableHeadings[table])
		}
		for _, k := range difference(rows, keys) {
			t.Errorf("%s: %q has a row under %q, but the team file refuses it", teamPage, k, tableHeadings[table])
		}
	}
}

// reference returns the TOML block under "Every key at its default".
func reference(t *testing.T) string {
	t.Helper()
	sec := section(t, teamPage, read(t, teamPage), "## Every key at its default")
	_, after, ok := strings.Cut(sec, "```toml\n")
	block, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatalf("%s: no ```toml block under \"Every key at its default\"", teamPage)
	}
	return block
}

var keyLine = regexp.MustCompile(`^(# )?([a-z_]+) = `)

// uncomment returns block with every commented key line uncommented (a
// prompt_file then replaces its table's prompt, a [[notify]]'s url its
// command), how many, and every key each table holds, commented or not.
func uncomment(block string) (string, int, map[string][]string) {
	lines := strings.Split(block, "\n")
	keys := map[string][]string{}
	table, n, promptAt, commandAt := "team", 0, -1, -1
	for i, l := range lines {
		if h, ok := strings.CutPrefix(l, "["); ok {
			table, promptAt, commandAt = strings.Trim(h, "[]"), -1, -1
			continue
		}
		m := keyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		keys[table] = append(keys[table], m[2])
		if m[2] == "prompt" && m[1] == "" {
			promptAt = i
		}
		if m[2] == "command" && m[1] == "" && table == "notify" {
			commandAt = i
		}
		if m[1] != "" {
			lines[i] = strings.TrimPrefix(l, "# ")
			n++
			if m[2] == "prompt_file" && promptAt >= 0 {
				lines[promptAt] = ""
			}
			if m[2] == "url" && commandAt >= 0 {
				lines[commandAt] = ""
			}
		}
	}
	return strings.Join(lines, "\n"), n, keys
}

// load writes text as dir/team.toml and loads it.
func load(t *testing.T, dir, text string) *config.Team {
	t.Helper()
	file := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	team, err := config.Load(file)
	if err != nil {
		t.Fatalf("%s's reference block does not validate:\n%v\n%s", teamPage, err, text)
	}
	return team
}

// The reference block of docs/team-file.md holds every key the team file
// accepts, validates as it is with the code's defaults, and validates with
// every commented key uncommented.
func TestDocsTeamFileReferenceValidates(t *testing.T) {
	block := reference(t)
	all, n, written := uncomment(block)
	for table, keys := range acceptedKeys(t) {
		if table == "task" {
			keys = difference(keys, []string{"prompt_file"}) // the alternative of prompt, commented
		}
		for _, k := range difference(keys, written[table]) {
			t.Errorf("%s: the reference block has no %s key %q", teamPage, table, k)
		}
	}
	if !slices.Contains(written["task"], "prompt_file") {
		t.Errorf("%s: the reference block has no prompt_file", teamPage)
	}

	dir := t.TempDir()
	team := load(t, dir, block)
	got, want := *team, config.Defaults()
	want.StateDir = filepath.Join(dir, config.DefaultStateDir)
	want.SignalFile = filepath.Join(want.StateDir, config.DefaultSignalFile)
	got.Path, got.Name, got.Notify, got.Agents, got.Tasks = "", "", nil, nil, nil
	got.Prices = nil // a [[price]] row has no default
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the team keys of the reference block are not the defaults:\n got %+v\nwant %+v", teamPage, got, want)
	}
	if len(team.Agents) != 1 || len(team.Notify) != 1 {
		t.Fatalf("the reference block has %d agents and %d notify rules, want one of each", len(team.Agents), len(team.Notify))
	}
	agent, wantAgent := team.Agents[0], config.AgentDefaults()
	wantAgent.Dir = dir
	agent.Name, agent.Command, agent.Pos = "", nil, config.Position{}
	if !reflect.DeepEqual(agent, wantAgent) {
		t.Errorf("%s: the [[agent]] of the reference block is not at its defaults:\n got %+v\nwant %+v", teamPage, agent, wantAgent)
	}
	rule, wantRule := team.Notify[0], config.NotifyDefaults()
	rule.Events, rule.Command, rule.Pos = nil, nil, config.Position{}
	if !reflect.DeepEqual(rule, wantRule) {
		t.Errorf("%s: the [[notify]] of the reference block is not at its defaults:\n got %+v\nwant %+v", teamPage, rule, wantRule)
	}

	// Uncommented: a worktree agent needs a git repository, prompt_file a file.
	dir = t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, "tasks"), 0o700)
	os.WriteFile(filepath.Join(dir, "tasks", "T2.md"), []byte("Draft report.md from outline.md.\n"), 0o600)
	if n < 5 {
		t.Fatalf("only %d commented keys in the reference block", n)
	}
	team = load(t, dir, all)
	if team.MaxRuntime == 0 || team.StopAt == "" || team.Agents[0].OnDialog == "" || team.Tasks[1].PromptFile == "" {
		t.Errorf("the commented keys were not uncommented: %+v", team)
	}
}
