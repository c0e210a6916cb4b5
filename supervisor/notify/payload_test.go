//go:build !e2e

package notify

import (
	"reflect"
	"testing"
)

func TestPayload(t *testing.T) {
	cases := []struct {
		line       string
		suppressed int
		want       string
	}{
		{`{"event":"a","ts":"x"}` + "\n", 0, `{"event":"a","ts":"x"}` + "\n"},
		{`{"event":"a","ts":"x"}`, 0, `{"event":"a","ts":"x"}` + "\n"},
		{`{"event":"a","ts":"x"}` + "\r\n", 3, `{"event":"a","ts":"x","suppressed":3}` + "\n"},
		{`{ }`, 1, `{ "suppressed":1}` + "\n"},
		{`{"event":"a","suppressed":9}`, 2, `{"event":"a","suppressed":2}` + "\n"},
		{`not json`, 2, "not json\n"},
		{`[1]`, 2, "[1]\n"},
	}
	for _, c := range cases {
		if got := string(payload([]byte(c.line), c.suppressed)); got != c.want {
			t.Errorf("payload(%q, %d) = %q, want %q", c.line, c.suppressed, got, c.want)
		}
	}
}

func TestBaseEnv(t *testing.T) {
	in := []string{"PATH=/bin", "WARDEN_EVENT=x", "WARDEN_TEAM=y", "WARDEN_AGENT=", "WARDEN_TASK=t",
		"WARDEN_SUPPRESSED=4", "WARDEN_STATE_DIR=/s", "WARDEN_RUNNER_TAG=1.2", "HOME=/h"}
	want := []string{"PATH=/bin", "WARDEN_STATE_DIR=/s", "HOME=/h"}
	if got := baseEnv(in); !reflect.DeepEqual(got, want) {
		t.Errorf("baseEnv = %q, want %q", got, want)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 8}
	_, _ = b.Write([]byte("  hello"))
	if got := b.String(); got != "hello" {
		t.Errorf("short tail = %q", got)
	}
	_, _ = b.Write([]byte(" world, again\n"))
	if got := b.String(); got != "…, again" {
		t.Errorf("long tail = %q, want %q", got, "…, again")
	}
}
