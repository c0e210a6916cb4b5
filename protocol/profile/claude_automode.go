package profile

import (
	"fmt"
	"slices"
)

// Claude Code's auto mode: a model (its server-side safety check) approves
// each action. 2.1.332 makes it the default permission mode ("Auto mode is
// now Claude Code's default permission mode", its first screen); its
// --permission-mode takes acceptEdits, auto, bypassPermissions, manual,
// dontAsk and plan (claude --help).

// claudeInstead is what to set instead of auto mode.
const claudeInstead = `set --permission-mode dontAsk with --allowedTools for what may run, as warden init writes it ` +
	`(docs/agent-clis.md, "Presets"), or --permission-mode acceptEdits (which still asks before other commands)`

// claudeModelApproves: no --permission-mode (the default, auto mode, unless
// --dangerously-skip-permissions picks bypassPermissions), or
// --permission-mode auto.
func claudeModelApproves(argv []string, _ map[string]string) []string {
	modes, found := flagValues(argv, "--permission-mode")
	switch {
	case slices.Contains(modes, "auto"):
		return []string{fmt.Sprintf("--permission-mode auto: %s (Claude Code's auto mode); %s", ModelApprovesText, claudeInstead)}
	case found:
		return nil
	}
	if _, skip := flagValues(argv, "--dangerously-skip-permissions"); skip {
		return nil
	}
	return []string{fmt.Sprintf("no --permission-mode: Claude Code 2.1.332's default is auto mode, where %s "+
		"(behind a gateway that does not pass its check through, it asks a person at the first tool call instead); %s",
		ModelApprovesText, claudeInstead)}
}
