package profile

// Codex's "Resume paused goal?" (0.171.0): opened when a thread whose goal
// is paused is taken back with no prompt (codex resume), in place of the
// input box — a selection view (chatwidget's show_resume_paused_goal_prompt
// in Codex's source; its strings are in the 0.171.0 binary):
//
//	  Resume paused goal?
//	  Goal: Ship the release notes
//
//	› 1. Resume goal   Mark it active and continue when idle
//	  2. Leave paused  Keep it paused; use /goal resume later
//
//	  Press enter to confirm or esc to go back
//
// "Resume goal" is preselected: an Enter meant for the box would set the
// goal active and start its turns. Each choice is the user's decision
// about work they paused — Esc leaves the goal paused, which is a choice
// too —, so warden announces it as it does a permission dialog (at once,
// agent_waiting with its text and question) and never answers it: no deny
// of on_dialog = "deny", no warden answer; a person answers at the CLI
// (Dialog.PersonOnly).

func init() {
	goal := `(?m)^\s*Resume paused goal\?\s*$`
	codexRules.dialog = append(codexRules.dialog, dialogs(DialogPermission, goal)...)
	codexRules.personOnly = append(codexRules.personOnly, res(goal)...)
}
