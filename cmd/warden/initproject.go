package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wardenhq/warden/protocol/profile"
)

// warden init looks at the project the team file goes in and lets each
// agent's preset run that project's own commands: npm in a Node.js
// project, pytest in a Python one, cargo in Rust, go in Go, make beside a
// Makefile. git inside the repository and reading files are in every
// preset (protocol/profile's PresetFor).

// projectKind is what one file in the project's directory says it has.
type projectKind struct {
	file string   // its marker, in the directory
	alt  []string // other names of the marker
	// tools are the commands its agents run without asking; extra adds
	// one when a file beside the marker is there (a lock file names the
	// package manager).
	tools []string
	extra map[string]string
	test  []string // the verify init suggests
}

// projectKinds are the projects init knows, in the order their tools are
// listed.
var projectKinds = []projectKind{
	{file: "go.mod", tools: []string{"go", "gofmt"}, test: []string{"go", "test", "./..."}},
	{file: "package.json", tools: []string{"npm", "npx", "node"},
		extra: map[string]string{"yarn.lock": "yarn", "pnpm-lock.yaml": "pnpm", "bun.lock": "bun", "bun.lockb": "bun"},
		test:  []string{"npm", "test"}},
	{file: "pyproject.toml", tools: []string{"python", "python3", "pytest"},
		extra: map[string]string{"uv.lock": "uv", "poetry.lock": "poetry"}, test: []string{"pytest"}},
	{file: "Cargo.toml", tools: []string{"cargo"}, test: []string{"cargo", "test"}},
	{file: "Makefile", alt: []string{"makefile", "GNUmakefile"}, tools: []string{"make"}, test: []string{"make", "test"}},
}

// project is what init found in the team file's directory.
type project struct {
	files []string // the marker files found
	tools []string // the project's commands for the presets
	test  []string // a verify command to suggest; nil: none
}

// findProject looks at dir for the files of projectKinds.
func findProject(dir string) project {
	var p project
	has := func(name string) bool {
		fi, err := os.Stat(filepath.Join(dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	for _, k := range projectKinds {
		i := slices.IndexFunc(append([]string{k.file}, k.alt...), has)
		if i < 0 {
			continue
		}
		found := append([]string{k.file}, k.alt...)[i]
		p.files = append(p.files, found)
		p.tools = append(p.tools, k.tools...)
		for _, lock := range sortedKeys(k.extra) {
			if has(lock) && !slices.Contains(p.tools, k.extra[lock]) {
				p.tools = append(p.tools, k.extra[lock])
			}
		}
		if p.test == nil {
			p.test = k.test
		}
	}
	return p
}

// said is what init's header says of the project.
func (p project) said() string {
	if len(p.files) == 0 {
		return "no go.mod, package.json, pyproject.toml, Cargo.toml or Makefile found beside it: the presets " +
			"allow git and reading files only; add your build and test commands to them"
	}
	return strings.Join(p.files, ", ") + ": the presets allow " + strings.Join(p.tools, ", ") +
		", git and reading files without asking"
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// initPreset is c's preset for the project (ok false: c has none).
func initPreset(c profile.CLI, p project) (profile.Preset, bool) {
	return profile.PresetFor(c.Name, p.tools)
}

// verifyValue is the verify init suggests for the project, as TOML.
func verifyValue(p project) string {
	if p.test == nil {
		return tomlValue([]string{"go", "test", "./..."})
	}
	return tomlValue(p.test)
}

// commentLines is text as "# " lines of at most 88 characters.
func commentLines(text string) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 86 {
			b.WriteString("# " + line + "\n")
			line = ""
		}
		line = strings.TrimPrefix(line+" "+w, " ")
	}
	b.WriteString("# " + line + "\n")
	return b.String()
}
