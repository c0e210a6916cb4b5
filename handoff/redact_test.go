//go:build !e2e

package handoff

import (
	"slices"
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

// Every form in which a command line carries a secret is redacted (issue
// 22: -k X, --pass X, URL credentials and Authorization: Bearer X were
// not), and what is no secret stays as it was.
func TestRedactEveryFormAndKeepsTheRest(t *testing.T) {
	const tok = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for _, tc := range []struct{ in, want []string }{
		{[]string{"openai", "-k", "hunter2", "api"}, []string{"openai", "-k", hidden, "api"}},
		{[]string{"tool", "--pass", "hunter2"}, []string{"tool", "--pass", hidden}},
		{[]string{"tool", "--password=hunter2", "--passwd", "hunter2", "-passin", "pass:hunter2"},
			[]string{"tool", "--password=" + hidden, "--passwd", hidden, "-passin", hidden}},
		{[]string{"git", "clone", "https://alice:hunter2@example.com/team/repo.git"},
			[]string{"git", "clone", "https://alice:" + hidden + "@example.com/team/repo.git"}},
		{[]string{"git", "clone", "https://" + tok + "@github.com/o/r"}, []string{"git", "clone", "https://" + hidden + "@github.com/o/r"}},
		{[]string{"tool", "DATABASE_URL=postgres://app:hunter2@db:5432/app"}, []string{"tool", "DATABASE_URL=postgres://app:" + hidden + "@db:5432/app"}},
		{[]string{"curl", "-H", "Authorization: Bearer hunter2", "https://api.example.com/v1"},
			[]string{"curl", "-H", "Authorization: Bearer " + hidden, "https://api.example.com/v1"}},
		{[]string{"curl", "--header=authorization: bearer hunter2"}, []string{"curl", "--header=authorization: bearer " + hidden}},
		{[]string{"curl", "-H", "X-Api-Key: hunter2", "-H", "Cookie: sid=hunter2; theme=dark"},
			[]string{"curl", "-H", "X-Api-Key: " + hidden, "-H", "Cookie: " + hidden}},
		{[]string{"curl", "-u", "alice:hunter2", "--proxy-user=bob:hunter2", "-k", "https://example.com/health"},
			[]string{"curl", "-u", "alice:" + hidden, "--proxy-user=bob:" + hidden, "-k", "https://example.com/health"}},
		{[]string{"sshpass", "-p", "hunter2", "ssh", "host"}, []string{"sshpass", "-p", hidden, "ssh", "host"}},
		{[]string{"mysql", "-phunter2", "app"}, []string{"mysql", "-p" + hidden, "app"}},
		{[]string{"mysql", "-p", "app"}, []string{"mysql", "-p", "app"}},
		{[]string{"redis-cli", "-a", "hunter2", "ping"}, []string{"redis-cli", "-a", hidden, "ping"}},
		{[]string{"env", "PGPASSWORD=hunter2", "AWS_SECRET_ACCESS_KEY=hunter2", "ANTHROPIC_AUTH_TOKEN=hunter2", "claude"},
			[]string{"env", "PGPASSWORD=" + hidden, "AWS_SECRET_ACCESS_KEY=" + hidden, "ANTHROPIC_AUTH_TOKEN=" + hidden, "claude"}},
		{[]string{"tool", "--client-secret", "hunter2", "--auth-token=hunter2", "--apiKey", "hunter2"},
			[]string{"tool", "--client-secret", hidden, "--auth-token=" + hidden, "--apiKey", hidden}},
		{[]string{"sh", "-c", `OPENAI_API_KEY=hunter2 codex --api-key 'hunter2' -c 'x=1' "fix it" && curl -H 'Authorization: Bearer hunter2' https://u:hunter2@h/`},
			[]string{"sh", "-c", `OPENAI_API_KEY=` + hidden + ` codex --api-key ` + hidden + ` -c 'x=1' "fix it" && curl -H 'Authorization: Bearer ` + hidden + `' https://u:` + hidden + `@h/`}},
		{[]string{"claude", "--mcp-config", `{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"hunter2","MODE":"ro"}}}}`},
			[]string{"claude", "--mcp-config", `{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"` + hidden + `","MODE":"ro"}}}}`}},
		{[]string{"claude", "use " + tok + " to push"}, []string{"claude", "use " + hidden + " to push"}},
		// Not secrets: kept as they were.
		{[]string{"claude", "-p", "fix the flaky test", "--model", "opus", "--max-tokens", "4000", "--token-limit", "5000"}, nil},
		{[]string{"codex", "--dangerously-bypass-approvals-and-sandbox", "implement T1", "-c", "model_reasoning_effort=high"}, nil},
		{[]string{"server", "-p", "8080", "--port", "9090", "--session-id", "123e4567-e89b-12d3-a456-426614174000"}, nil},
		{[]string{"claude", "--add-dir", "/home/alice/src/warden-worktrees/a-really-long-task-name-2", "--add-dir", "./src/Components/HeaderBarWidget2.tsx"}, nil},
		{[]string{"git", "clone", "https://github.com/org/repo.git", "ssh://git@github.com/org/repo.git", "git@github.com:org/repo.git"}, nil},
		{[]string{"docker", "login", "--password-stdin", "-u", "alice", "--cookie-jar", "jar.txt", "--author", "Alice <a@example.com>"}, nil},
		{[]string{"tool", "--token", "--verbose"}, nil},
	} {
		want := tc.want
		if want == nil {
			want = tc.in
		}
		if got := Redact(tc.in); !slices.Equal(got, want) {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, want)
		}
		// handoff.md's team table shows the command as Redact leaves it.
		md := Render(Data{Team: "t", Time: time.Unix(0, 0), Agents: []Agent{{Name: "w", Command: tc.in}}})
		if strings.Contains(md, "hunter2") || strings.Contains(md, tok) {
			t.Errorf("handoff.md shows a secret of %q:\n%s", tc.in, md)
		}
	}
}

// FuzzRedact: go test -fuzz Redact ./handoff/ — any command line: no panic,
// one argument out for each in, the program's name kept, and a secret
// after --token never shown.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"sh\x00-c\x00a 'b \"c\x00--token\x00x", "curl\x00-H\x00Authorization:  Bearer\x00-u\x00a:b:c", "x\x00-\x00--\x00--=\x00-k\x00\"\x00'", "x\x00https://a:b@c:d@e/f@g\x00-pX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		argv := append(strings.Split(joined, "\x00"), "--token", "s3cr3t-VALUE")
		got := Redact(argv)
		if len(got) != len(argv) || got[0] != argv[0] || got[len(got)-1] != hidden {
			t.Fatalf("Redact(%q) = %q", argv, got)
		}
	})
}
