package state

import "time"

// DialogOutcome is what became of the last dialog of an agent that a
// person answered (warden answer, the page's buttons): "declined" or
// "allowed once", whatever the CLI's transcript says after it (a declined
// Codex command may still read "Ran …"). warden ps and the page say it
// once the agent no longer waits.
type DialogOutcome struct {
	Outcome  string    `json:"outcome"`
	Question string    `json:"question,omitempty"`
	DialogID string    `json:"dialog_id,omitempty"`
	Via      string    `json:"via,omitempty"`
	At       time.Time `json:"at"`
}

// Outcomes of a person's answer.
const (
	Declined     = "declined"
	AllowedOnce  = "allowed once"
	answerDeny   = "deny"
	answerAllow1 = "allow-once"
)

// OutcomeOf is the outcome of a person's choice ("" for a choice that is
// neither deny nor allow-once).
func OutcomeOf(choice string) string {
	switch choice {
	case answerDeny:
		return Declined
	case answerAllow1:
		return AllowedOnce
	}
	return ""
}
