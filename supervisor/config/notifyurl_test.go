//go:build !e2e

package config

import (
	"strings"
	"testing"
	"time"
)

// A [[notify]] with a url instead of a command: its format (json by
// default), renotify (none by default), strict like every key.
func TestNotifyURLKeys(t *testing.T) {
	src := "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n\n" +
		"[[notify]]\nevents = [\"agent_waiting\", \"team_done\"]\nurl = \"https://ntfy.example/warden-night\"\nformat = \"ntfy\"\nrenotify = \"30m\"\n\n" +
		"[[notify]]\nevents = \"*\"\nurl = \"http://127.0.0.1:9/hook\"\n\n" +
		"[[notify]]\nevents = [\"agent_failed\"]\nurl = \"https://hooks.slack.example/services/T/B/x\"\nformat = \"slack\"\n"
	team, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := team.Notify
	if len(n) != 3 {
		t.Fatalf("%d rules", len(n))
	}
	if n[0].URL != "https://ntfy.example/warden-night" || n[0].Format != NotifyNtfy || n[0].Renotify != 30*time.Minute || n[0].Command != nil {
		t.Errorf("ntfy rule: %+v", n[0])
	}
	if n[1].Format != NotifyJSON || n[1].Renotify != 0 || n[1].Timeout != DefaultNotifyTimeout {
		t.Errorf("json rule (defaults): %+v", n[1])
	}
	if n[2].Format != NotifySlack {
		t.Errorf("slack rule: %+v", n[2])
	}
}

func TestNotifyURLKeysInvalid(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	const waiting = "[[notify]]\nevents = [\"agent_waiting\"]\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"command and url", agent + waiting + "command = [\"x\"]\nurl = \"https://ntfy.example/t\"\n",
			[]string{"t.toml:7:1: a [[notify]] has either command or url, not both"}},
		{"neither", agent + waiting + "timeout = \"5s\"\n",
			[]string{`t.toml:4:1: missing key "command" or "url" in [[notify]]`}},
		{"format without url", agent + waiting + "command = [\"x\"]\nformat = \"ntfy\"\n",
			[]string{"t.toml:7:1: format is the body of a url's POST: this [[notify]] has no url"}},
		{"unknown format", agent + waiting + "url = \"https://ntfy.example/t\"\nformat = \"discord\"\n",
			[]string{`t.toml:7:1: unknown format "discord" (want ntfy, json or slack)`}},
		{"not a web address", agent + waiting + "url = \"ftp://ntfy.example/t\"\n",
			[]string{"t.toml:6:1: url must start with https:// or http://"}},
		{"no host", agent + waiting + "url = \"https:///t\"\n",
			[]string{"t.toml:6:1: url has no host"}},
		{"empty url", agent + waiting + "url = \" \"\n",
			[]string{"t.toml:6:1: url must not be empty"}},
		{"url as an array", agent + waiting + "url = [\"https://a\"]\n",
			[]string{"t.toml:6:1: url must be a string, not array"}},
		{"renotify without agent_waiting", agent + "[[notify]]\nevents = [\"agent_failed\"]\nurl = \"https://n.example/t\"\nrenotify = \"30m\"\n",
			[]string{`t.toml:7:1: renotify announces an agent still waiting again: events must list "agent_waiting" (or be "*")`}},
		{"renotify not a duration", agent + waiting + "url = \"https://n.example/t\"\nrenotify = \"often\"\n",
			[]string{`t.toml:7:1: renotify: invalid duration "often" (want a Go duration such as "30s", "5m" or "1h30m")`}},
		{"renotify misspelt", agent + waiting + "url = \"https://n.example/t\"\nrenotfy = \"30m\"\n",
			[]string{`t.toml:7:1: unknown key "renotfy" in [[notify]]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.toml", []byte(c.src))
			es, ok := AsErrors(err)
			if !ok {
				t.Fatalf("Parse error = %v, want Errors", err)
			}
			if got, want := es.Error(), strings.Join(c.want, "\n"); got != want {
				t.Errorf("errors:\n%s\nwant:\n%s", got, want)
			}
			if strings.Contains(es.Error(), "ntfy.example/t") {
				t.Errorf("an error quotes the url (it may hold a secret): %s", es.Error())
			}
		})
	}
}
