package fakeprovider

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkStreamedCheckpoint measures one streamed checkpoint answer per
// provider, end to end over loopback HTTP.
func BenchmarkStreamedCheckpoint(b *testing.B) {
	cases := []struct{ name, path, body string }{
		{"anthropic", "/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"CHECKPOINT REQUEST: T060"}]}`},
		{"openai", "/v1/responses", `{"model":"m","stream":true,"input":"CHECKPOINT REQUEST: T060"}`},
		{"gemini", "/v1beta/models/g:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"CHECKPOINT REQUEST: T060"}]}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := New(nilLogger(), Script{Answers: []Answer{{Text: checkpointText}}})
			defer s.Close()
			for b.Loop() {
				resp, err := http.Post(s.URL()+c.path, "application/json", strings.NewReader(c.body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
