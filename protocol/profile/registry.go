package profile

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
)

// CLI is everything warden knows about one agent CLI, registered by that
// CLI's own file (claude.go, codex.go, gemini.go; plain in profile.go) with
// Register.
// Names, For, Guess, ReadHook, HookKinds, HookCallOf, Settings, Unattended,
// the team file's validation and `warden init` all read the registry, so a
// new CLI is one file and its tests.
type CLI struct {
	// Name is the profile's name as the team file spells it (profile = "claude").
	Name string
	// Programs are the base names of the CLI's executable (claude,
	// claude.exe): Guess matches a command's program against them and
	// Command finds where to add Flags. None: Guess never picks it.
	Programs []string
	// Flags are what the CLI needs under a supervisor, added right after the
	// program name by Command (Codex: --no-alt-screen --no-daemon).
	Flags []string
	// New returns a fresh profile: how the CLI is read, typed into, denied
	// and quit. nil: a line-oriented program, driven as plain is.
	New func() *Profile
	// Kinds are the kinds of hook message the CLI sends, the KIND of
	// `warden hook KIND`; each kind belongs to one CLI.
	Kinds []string
	// Hook reads a message of one of Kinds.
	Hook func(kind string, payload []byte) HookFacts
	// Calls says how `warden hook KIND` takes the kinds whose payload is not
	// just JSON on stdin (see HookCall); the rest need no entry.
	Calls map[string]HookCall
	// Settings returns what makes the CLI report to warden: arguments after
	// the program name and environment entries to add, files to write into
	// files (see the package function Settings). nil: the environment only.
	Settings func(o Options, files map[string][]byte) (args, env []string, err error)
	// Unattended is the permission setting that lets the CLI work without a
	// person; `warden validate` warns about an agent whose command has none.
	Unattended UnattendedRule
	// ModelApproves, when set, names the settings of an agent's command
	// line or configuration under which a model approves its actions
	// (ModelApproves, modelapproves.go); `warden validate` warns of each.
	ModelApproves func(argv []string, env map[string]string) []string
	// Preset, when set, is the CLI's "project" preset: no dialog for work
	// inside the project, the rest refused at once (preset.go).
	Preset *Preset
	// Init is the [[agent]] `warden init` writes for the CLI; a CLI with
	// Programs gets one when Init.Command's program is on PATH.
	Init InitAgent
	// AccountHome is the directory that holds the CLI's login, which agents
	// sharing it share an account (its usage limit) by, read from an
	// agent's environment (env returns a variable, "" when unset); "" for
	// none. nil: the CLI has no account of its own (plain).
	AccountHome func(env func(string) string) string
	// Footprint is what a session of the CLI is expected to take in memory
	// (bytes) until warden has learned it from the RSS of its running
	// sessions; 0: the default for any program.
	Footprint int64
	// Tokens, when set, finds and reads the CLI's own files of what a
	// session spent (tokenfiles.go). nil: warden reads no tokens of it.
	Tokens *TokenFiles
	// AppServer, when set, is a server the CLI's TUI can attach to, which
	// warden joins as a second client (appserver.go). nil: the screen and
	// hooks only.
	AppServer *AppServer

	// anyKind: a wrapper of anything (plain) may send every CLI's kinds.
	anyKind bool
}

// InitAgent is the [[agent]] table `warden init` writes for a CLI.
type InitAgent struct {
	// Name is the agent's name; the CLI's name when "".
	Name string
	// Comment is written above the command, each line as "# line": what
	// the command's flags let the CLI do without asking.
	Comment string
	// Command is the agent's command, with the flags that satisfy the CLI's
	// UnattendedRule.
	Command []string
	// Commented is one more key (and its comment), written commented out
	// after the others.
	Commented string
}

var registry struct {
	sync.RWMutex
	clis  map[string]*CLI
	kinds map[string]*CLI // each hook kind → the CLI that sends it
}

// Register adds a CLI to the ones warden knows. It panics on a CLI without
// a name, a name or a hook kind already taken, or a hook kind it cannot
// read: mistakes in a program, found as it starts.
func Register(c CLI) {
	registry.Lock()
	defer registry.Unlock()
	if registry.clis == nil {
		registry.clis, registry.kinds = map[string]*CLI{}, map[string]*CLI{}
	}
	if c.Name == "" || strings.ContainsAny(c.Name, " \t\n\"") {
		panic(fmt.Sprintf("profile.Register: bad name %q", c.Name))
	}
	if _, dup := registry.clis[c.Name]; dup {
		panic(fmt.Sprintf("profile.Register: %q registered twice", c.Name))
	}
	if len(c.Kinds) > 0 && c.Hook == nil {
		panic(fmt.Sprintf("profile.Register: %q has hook kinds and no Hook to read them", c.Name))
	}
	for _, k := range c.Kinds {
		if other, dup := registry.kinds[k]; dup {
			panic(fmt.Sprintf("profile.Register: hook kind %q of %q is %q's", k, c.Name, other.Name))
		}
	}
	for k := range c.Calls {
		if !slices.Contains(c.Kinds, k) {
			panic(fmt.Sprintf("profile.Register: %q has a HookCall for %q, not one of its kinds", c.Name, k))
		}
	}
	cli := c
	cli.Programs, cli.Flags, cli.Kinds = slices.Clone(c.Programs), slices.Clone(c.Flags), slices.Clone(c.Kinds)
	registry.clis[c.Name] = &cli
	for _, k := range c.Kinds {
		registry.kinds[k] = &cli
	}
}

// Names lists the profiles For knows, as the team file spells them:
// "plain" first, then the CLIs by name.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.clis))
	for name := range registry.clis {
		names = append(names, name)
	}
	notPlain := func(n string) int {
		if n == PlainName {
			return 0
		}
		return 1
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(notPlain(a), notPlain(b)), cmp.Compare(a, b))
	})
	return names
}

// CLIs returns the registered CLIs in the order of Names. Each is a copy
// that shares its maps (Unattended.Flags, Calls) with the registry: read
// them, do not change them.
func CLIs() []CLI {
	var out []CLI
	for _, name := range Names() {
		if c := lookup(name); c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// AccountHome is the account of an agent of profile whose environment is
// env: the profile's name and its CLI's account home ("" when the CLI has
// none, or the home is not known).
func AccountHome(profile string, env func(string) string) string {
	c := lookup(cmp.Or(profile, PlainName))
	if c == nil || c.AccountHome == nil {
		return ""
	}
	if home := c.AccountHome(env); home != "" {
		return c.Name + ":" + home
	}
	return c.Name + ":"
}

// Footprint is what a session of profile is expected to take in memory
// before warden has learned it; ok is false when its CLI gives none.
func Footprint(profile string) (bytes int64, ok bool) {
	c := lookup(cmp.Or(profile, PlainName))
	if c == nil || c.Footprint == 0 {
		return 0, false
	}
	return c.Footprint, true
}

func lookup(name string) *CLI {
	registry.RLock()
	defer registry.RUnlock()
	return registry.clis[name]
}

// owner is the CLI that sends hook messages of kind, nil when none does.
func owner(kind string) *CLI {
	registry.RLock()
	defer registry.RUnlock()
	return registry.kinds[kind]
}

// For returns a fresh profile of the CLI called name ("" is plain).
func For(name string) (*Profile, error) {
	c := lookup(cmp.Or(name, PlainName))
	if c == nil {
		return nil, fmt.Errorf("profile %q: unknown (want one of %s)", name, strings.Join(Names(), ", "))
	}
	var p *Profile
	if c.New != nil {
		p = c.New()
	} else {
		p = plainProfile()
	}
	p.Name, p.cli = c.Name, c
	if p.Clock == nil {
		p.Clock = clock.Real{}
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	return p, nil
}

// Guess is the profile of a command by its program's name: the CLI with a
// program of exactly that name (claude, claude.exe, codex, gemini…), else
// the one whose program name begins it longest (claude-2.1), else "plain".
func Guess(program string) string {
	base := filepath.Base(program)
	best, bestLen := PlainName, 0
	for _, c := range CLIs() {
		for _, prog := range c.Programs {
			if base == prog {
				return c.Name
			}
			if strings.HasPrefix(base, prog) && len(prog) > bestLen {
				best, bestLen = c.Name, len(prog)
			}
		}
	}
	return best
}
