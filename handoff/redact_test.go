package handoff

import (
	"strings"
	"testing"
	"time"
)

// Secrets in an agent's argv never reach handoff.md, and its command never
// reaches a prompt.
func TestCommandsAreRedactedAndKeptOutOfPrompts(t *testing.T) {
	argv := []string{"claude", "--api-key=sk-ant-api03-SECRETSECRET", "--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"--model", "opus", "OPENAI_API_KEY=hunter2", "aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldCBrZXk", "--verbose"}
	got := strings.Join(Redact(argv), " ")
	want := "claude --api-key=<redacted> --token <redacted> --model opus OPENAI_API_KEY=<redacted> <redacted> --verbose"
	if got != want {
		t.Errorf("Redact = %q\nwant     %q", got, want)
	}
	d := Data{Team: "t", Reason: "r", Time: time.Unix(0, 0), Agents: []Agent{{Name: "w1", Profile: "claude", State: "stopped", Command: argv}}}
	md, prompt := Render(d), RenderPrompt(d)
	for _, secret := range []string{"SECRETSECRET", "ghp_", "hunter2", "aGVsbG8"} {
		if strings.Contains(md, secret) || strings.Contains(prompt, secret) {
			t.Errorf("%q leaked:\n%s\n%s", secret, md, prompt)
		}
	}
	if !strings.Contains(md, "`claude --api-key=<redacted>") || strings.Contains(prompt, "claude --") {
		t.Errorf("handoff.md shows the redacted command, prompts none:\n%s\n---\n%s", md, prompt)
	}
}
