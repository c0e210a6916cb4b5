// Package box is the part of an agent's box that a process carries from its
// first instruction: a Landlock domain that handles no filesystem or network
// right, only the ABI 6 scopes (LANDLOCK_SCOPE_SIGNAL,
// LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET). Inside it a process cannot signal
// a process outside its domain (warden, another agent, a person's shell) nor
// connect to an abstract unix socket made outside it; everything it starts
// inherits the domain, whatever it does with its session, parent or
// environment.
//
// The domain handles no filesystem right on purpose: a Landlock domain that
// restricts any filesystem right makes every mount(2) fail, and with it
// bubblewrap, the sandbox of Codex (read-only, workspace-write) and of Claude
// Code (research/holder-and-box.md B3). So the box sits beside the CLIs'
// own sandboxes, and what it denies to files it denies with mounts, in the
// walls (walls_linux.go): warden's secrets hidden, the state dir read-only
// but for the holes an agent's own processes write (WallSpec), the cgroup
// tree read-only. Mounts leave a namespace the agent makes free to mount;
// what decides for an agent (its records, archives) is sealed by warden
// too, for where there are no walls.
//
// How the domain gets into the child: Landlock applies to the calling
// thread only (without TSYNC), and a child inherits the domain of the
// thread that forked it. Scoped runs the fork on a fresh OS thread locked to
// its goroutine, restricts that thread, forks from it, and lets the thread
// die with the goroutine (it never runs other Go code). Warden's other
// threads stay outside the domain; no re-exec of warden is needed, and it
// works for every way warden starts a process (the agent's pty, verify and
// notify commands).
package box

// WallSpec is what the box's walls do to the files an agent sees (Walls):
// Hide are paths it sees empty (warden's secrets: the record key, the
// page's token); ReadOnly are directories it sees read-only, with
// everything under them (the state dir: its records, archives, state.json,
// handoffs, events); Writable are the holes in them that stay writable as
// they are (the hook spool, an agent's own settings dir, the task
// worktrees). A Writable path counts only inside a ReadOnly one; the
// working directory of the process is one too, so an agent whose work dir
// is inside a read-only directory (a task worktree) writes it still. A
// path that is not there is left: nothing to hide, nothing to protect.
type WallSpec struct {
	Hide     []string `json:"hide,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	Writable []string `json:"writable,omitempty"`
}

// Empty says whether the spec asks for nothing: no walls needed.
func (s WallSpec) Empty() bool {
	return len(s.Hide) == 0 && len(s.ReadOnly) == 0 && len(s.Writable) == 0
}
