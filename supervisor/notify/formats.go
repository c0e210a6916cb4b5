package notify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	names "github.com/wardenhq/warden/supervisor/event"
)

// Message is what a url's POST says of one event, the same in every
// format: the json format's body is this object.
type Message struct {
	Title string `json:"title"`
	// Text is the message as a person reads it: the agent and task, the
	// dialog's question, how to answer it, the page's address.
	Text  string `json:"message"`
	Event string `json:"event"`
	Team  string `json:"team"`
	Agent string `json:"agent,omitempty"`
	Task  string `json:"task,omitempty"`
	// Question is what the dialog asks (agent_waiting), never its choices.
	Question string `json:"question,omitempty"`
	// DialogID names the dialog as the person saw it: `warden answer
	// --dialog ID` refuses to answer another one.
	DialogID string `json:"dialog_id,omitempty"`
	// Link is the team's page (warden run --http), without its token.
	Link string `json:"url,omitempty"`
	// Again counts the announcements of this wait before this one
	// (renotify); Waited is how long the agent has waited.
	Again  int    `json:"again,omitempty"`
	Waited string `json:"waited,omitempty"`
	// Suppressed counts the notifications min_interval held back.
	Suppressed int `json:"suppressed,omitempty"`
	// Data is the event's line as events.jsonl has it.
	Data json.RawMessage `json:"data"`
}

// Bounds of what a message carries: ntfy takes 4096 bytes of message
// before it makes it an attachment, a phone shows a few lines.
const (
	maxQuestion = 1200
	maxText     = 3500
)

// message builds the Message of job j.
func (n *Notifier) message(j job) Message {
	m := Message{Event: j.ev.Name, Team: n.team, Agent: j.ev.Agent, Task: j.ev.Task, Link: n.link(),
		Again: j.again, Suppressed: j.suppressed, Data: json.RawMessage(bytes.TrimSpace(j.ev.JSON))}
	if !json.Valid(m.Data) {
		m.Data, _ = json.Marshal(string(m.Data))
	}
	who := cmp.Or(j.ev.Agent, "the team")
	var lines []string
	if j.ev.Agent != "" || j.ev.Task != "" {
		lines = append(lines, strings.TrimSpace(labelled("agent", j.ev.Agent)+" "+labelled("task", j.ev.Task)))
	}
	switch j.ev.Name {
	case names.AgentWaiting:
		var f names.Waiting
		_ = json.Unmarshal(j.ev.JSON, &f)
		m.Question = clip(cmp.Or(f.Question, profile.QuestionOf(f.Text)), maxQuestion)
		// The id the event gave: a dialog announced by the CLI's status
		// report or hook has one of its own, which warden answer takes
		// once the screen shows the dialog too (its text's does not).
		m.DialogID = cmp.Or(f.DialogID, profile.DialogID(f.Text))
		if now := j.dialog; now != "" && now != f.Text { // read off the screen since
			m.Question = clip(cmp.Or(profile.QuestionOf(now), m.Question), maxQuestion)
			m.DialogID = profile.DialogID(now)
		}
		m.Title = who + " waits for you"
		if j.again > 0 {
			m.Waited = j.waited.Round(time.Second).String()
			m.Title = who + " still waits for you (" + m.Waited + ")"
		}
		if m.Question != "" {
			lines = append(lines, m.Question)
		}
		if j.ev.Agent != "" {
			lines = append(lines, "answer: warden answer "+j.ev.Agent+" allow-once|deny --dialog "+m.DialogID)
		}
	case names.TeamDone:
		m.Title = "the team is done"
		lines = append(lines, teamDoneText(j.ev.JSON))
	default:
		var f struct { // what many events have: why, or what was said
			Reason string `json:"reason"`
			Text   string `json:"text"`
		}
		_ = json.Unmarshal(j.ev.JSON, &f)
		m.Title = who + ": " + strings.ReplaceAll(j.ev.Name, "_", " ")
		if s := protocol.FirstLine(cmp.Or(f.Reason, f.Text)); s != "" {
			lines = append(lines, clip(s, maxQuestion))
		}
	}
	m.Title += " · " + n.team
	if m.Suppressed > 0 {
		lines = append(lines, fmt.Sprintf("(%d more held back by min_interval)", m.Suppressed))
	}
	if m.Link != "" {
		lines = append(lines, "page: "+m.Link)
	}
	m.Text = clip(strings.Join(lines, "\n"), maxText)
	return m
}

// body is the POST of m in format: its body and headers.
func body(format string, m Message) ([]byte, map[string]string) {
	switch format {
	case config.NotifyNtfy:
		h := map[string]string{"Content-Type": "text/plain; charset=utf-8", "Title": headerText(m.Title),
			"Tags": ntfyTag(m.Event), "Priority": ntfyPriority(m.Event)}
		if m.Link != "" {
			h["Click"] = m.Link
		}
		return []byte(m.Text), h
	case config.NotifySlack:
		b, _ := json.Marshal(slackBody(m))
		return b, map[string]string{"Content-Type": "application/json"}
	default:
		b, _ := json.Marshal(m)
		return b, map[string]string{"Content-Type": "application/json"}
	}
}

// slackBody is a Slack incoming webhook's payload: text (the notification's
// fallback) and blocks (a header, the message, the page's link).
func slackBody(m Message) map[string]any {
	text := slackEscape(m.Title) + "\n" + slackEscape(m.Text)
	blocks := []any{
		map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": clip(m.Title, 150)}},
		map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": clip(slackEscape(m.Text), 2900)}},
	}
	if m.Link != "" {
		blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn",
			"text": "<" + m.Link + "|Open the team's page>"}})
	}
	return map[string]any{"text": text, "blocks": blocks}
}

// slackEscape escapes the three characters Slack's mrkdwn gives meaning.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// headerText is s as a header value: one line, RFC 2047 encoded when it is
// not ASCII (ntfy decodes it).
func headerText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return mime.BEncoding.Encode("UTF-8", s)
}

func ntfyTag(name string) string {
	switch name {
	case names.AgentWaiting, names.AgentIdle:
		return "bell"
	case names.TeamDone, names.TaskCompleted:
		return "white_check_mark"
	}
	return "warning"
}

func ntfyPriority(name string) string {
	if name == names.AgentWaiting || name == names.AgentIdle {
		return "4" // high: a person is needed
	}
	return "3"
}

func labelled(label, v string) string {
	if v == "" {
		return ""
	}
	return label + ": " + v
}

// clip cuts s to at most n bytes, at a rune boundary, marked with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
