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
