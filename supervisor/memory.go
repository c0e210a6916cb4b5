package supervisor

import "github.com/wardenhq/warden/supervisor/state"

// The team's memory (issue 24): max_running and memory_floor admit the
// agents' sessions in turn, memory_max is held by a cgroup or the RSS
// watch, and an OOM kill is agent_oom whatever the team file sets
// (supervisor/agent: memory.go and beside it). The team makes the services
// in New, closes them when its run ends, and shows them in ps and the page.

// memoryStatus is the team's memory for ps and the page (nil: the team
// file sets none of max_running, memory_floor, memory_max).
func (t *Team) memoryStatus() *state.MemoryStatus { return t.deps.Memory.Status() }
