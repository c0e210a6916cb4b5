package session

import (
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// dialogQuestion is what dialog d asks, as events carry it: its question
// (the profile's), or its text without the choices.
func dialogQuestion(d profile.Dialog) string {
	q := d.Question
	if q == "" {
		q = profile.QuestionOf(d.Text)
	}
	return protocol.Visible(profile.Sanitize(q))
}
