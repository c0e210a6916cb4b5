//go:build !e2e

package hookbus

import (
	"testing"

	"github.com/wardenhq/warden/protocol/profile"
)

// BenchmarkSend is the socket round trip alone.
func BenchmarkSend(b *testing.B) {
	s, err := Listen(testLogger(), socketOf(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	go func() {
		for range s.Messages() {
		}
	}()
	m := Message{Agent: "w1", Kind: profile.KindClaudeStatus, Payload: []byte(`{"context_window":{"used_percentage":42}}`)}
	for b.Loop() {
		if err := Send(s.Path(), m); err != nil {
			b.Fatal(err)
		}
	}
}
