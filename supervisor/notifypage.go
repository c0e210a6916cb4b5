package supervisor

// SetPage makes the team's [[notify]] messages link to its page (warden run
// --http): the page's address, never its token.
func (t *Team) SetPage(url string) {
	if t.notifier != nil {
		t.notifier.SetPage(url)
	}
}

// dialogOf is the text of the dialog agent waits on now ("" none), as warden
// ps shows it: a notification tells its question as the screen has it.
func (t *Team) dialogOf(agent string) string {
	if a := t.agentNamed(agent); a != nil {
		return a.Status().Dialog
	}
	return ""
}
