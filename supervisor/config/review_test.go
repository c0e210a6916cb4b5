//go:build !e2e

package config

import (
	"strings"
	"testing"
)

// The review keys: review_by at the top is every task's reviewer, a task's
// own overrides it ("" turns it off); max_review_rounds defaults to 2.
func TestReviewKeys(t *testing.T) {
	agents := "[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n[[agent]]\nname = \"r\"\ncommand = [\"x\"]\n"
	team, err := Parse("t.toml", []byte("name = \"t\"\nreview_by = \"r\"\nmax_review_rounds = 3\n"+agents+
		"[[task]]\nid = \"T1\"\nprompt = \"p\"\nagent = \"a\"\n"+
		"[[task]]\nid = \"T2\"\nprompt = \"p\"\nreview_by = \"\"\n"+
		"[[task]]\nid = \"T3\"\nprompt = \"p\"\nagent = \"r\"\nreview_by = \"a\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if team.ReviewBy != "r" || team.MaxReviewRounds != 3 {
		t.Errorf("review = %+v, want r, 3", team.Review)
	}
	for i, want := range []string{"r", "", "a"} {
		if got := team.Tasks[i].ReviewBy; got != want {
			t.Errorf("task %s review_by = %q, want %q", team.Tasks[i].ID, got, want)
		}
	}
	plain, err := Parse("t.toml", []byte("name = \"t\"\n"+agents+"[[task]]\nid = \"T1\"\nprompt = \"p\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.ReviewBy != "" || plain.MaxReviewRounds != DefaultMaxReviewRounds || plain.Tasks[0].ReviewBy != "" {
		t.Errorf("defaults: %+v, task %q", plain.Review, plain.Tasks[0].ReviewBy)
	}
}

// A reviewer that is no agent, a task's own pinned agent, a team of one,
// and a bad max_review_rounds are errors at the key that says so.
func TestReviewKeysInvalid(t *testing.T) {
	agents := "[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n[[agent]]\nname = \"r\"\ncommand = [\"x\"]\n"
	one := "[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n"
	task := "[[task]]\nid = \"T1\"\nprompt = \"p\"\n"
	for src, want := range map[string]string{
		"name = \"t\"\nreview_by = \"nobody\"\n" + agents + task:                                         `t.toml:2:1: review_by names unknown agent "nobody"`,
		"name = \"t\"\n" + agents + task + "review_by = \"ghost\"\n":                                     `t.toml:11:1: review_by names unknown agent "ghost"`,
		"name = \"t\"\n" + agents + task + "agent = \"r\"\nreview_by = \"r\"\n":                          `t.toml:12:1: task T1 is reviewed by its own agent "r"`,
		"name = \"t\"\nreview_by = \"a\"\n" + agents + task + "agent = \"a\"\n":                          `t.toml:2:1: task T1 is reviewed by its own agent "a"`,
		"name = \"t\"\nreview_by = \"a\"\n" + one + task:                                                 `t.toml:2:1: task T1 is reviewed by "a", the team's only agent`,
		"name = \"t\"\nmax_review_rounds = 0\n" + agents + task:                                          `t.toml:2:1: max_review_rounds`,
		"name = \"t\"\nreview_by = 3\n" + agents + task:                                                  `t.toml:2:1: review_by must be a string`,
		"name = \"t\"\nreview_by = \"r\"\n" + agents + "[[task]]\nid = \"T1.review1\"\nprompt = \"p\"\n": `contains ".review"`,
	} {
		if _, err := Parse("t.toml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s\n: %v, want %q", src, err, want)
		}
	}
}

func TestReviewID(t *testing.T) {
	if id := ReviewID("T1", 2); id != "T1.review2" {
		t.Fatalf("ReviewID = %q", id)
	}
	for id, want := range map[string]bool{"T1.review2": true, "a.b.review10": true, "T1": false, "T1.review": false,
		".review1": false, "T1.reviewx": false, "T1.review0": false} {
		if _, _, ok := ParseReviewID(id); ok != want {
			t.Errorf("ParseReviewID(%q) ok = %v, want %v", id, ok, want)
		}
	}
	if task, round, _ := ParseReviewID("a.b.review10"); task != "a.b" || round != 10 {
		t.Errorf("ParseReviewID = %q %d", task, round)
	}
}
