package supervisor

// SetPage makes the team's [[notify]] messages link to its page (warden run
// --http): the page's address, never its token.
func (t *Team) SetPage(url string) {
	if t.notifier != nil {
		t.notifier.SetPage(url)
	}
}
