package profile

import (
	"fmt"
	"regexp"
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

// Auto mode's offer (2.1.332, protocol/testdata/cli-claude/dialog-auto-*):
// when its safety check cannot run (behind a gateway), the first tool call
// draws "Auto mode can't check actions in this session", five paragraphs,
// and "Enter to stay in auto mode · shift+Tab to leave for accept edits
// mode and stop · Esc to cancel". It is a permission dialog: its answer
// decides whether the waiting actions run. In the binary, Enter is
// "confirm:yes" (stay: each action that needs the check then draws its
// own approval dialog), shift+Tab "confirm:cycleMode" (switch to accept
// edits mode, under which edits and commands in the project run without
// asking, and stop the turn), and Esc the dialog's onCancel, "interrupt":
// the turn stops, its waiting actions do not run, the permission mode
// stays. Esc is the only choice that neither approves nor widens what runs
// without asking: the deny (Deny). No choice allows one action: allow-once
// is refused (Answer), a person answers with warden attach --rw.
const claudeAutoOffer = `Enter to stay in auto mode`

// claudeAutoOfferHook is its Notification hook's message
// (agent_needs_input, testdata/hooks).
var claudeAutoOfferHook = regexp.MustCompile(`Auto mode can't check actions in this session and needs your choice`)

// claudeAutoOfferQuestion is its question as warden reports it (ps, the
// page, agent_waiting), the choices under it.
const claudeAutoOfferQuestion = "Auto mode can't check actions in this session: stay in auto mode, or leave it?\n" +
	"Enter: stay in auto mode (each action that needs the check then asks a person)\n" +
	"shift+Tab: leave for accept edits mode and stop this turn (edits and commands in the project then run without asking)\n" +
	"Esc: cancel, warden's deny (this turn stops, its waiting actions do not run, the mode stays)"

func init() {
	knownDialogs = append(knownDialogs,
		knownDialog{re: regexp.MustCompile(claudeAutoOffer), question: claudeAutoOfferQuestion},
		knownDialog{re: claudeAutoOfferHook, question: claudeAutoOfferQuestion})
}
