//go:build !e2e

package webpage

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The page's resume is a write, guarded as an answer is: the token, the
// page's own origin (or the token in Authorization from a program) and a
// JSON body; a negative budget is refused before warden is asked.
func TestResumeNeedsThePageItself(t *testing.T) {
	srv, stop := serve(t, "127.0.0.1:0", testToken, t.TempDir())
	defer stop()
	base, host := "http://"+srv.Addr(), srv.Addr()
	cookie := srv.cookieName() + "=" + testToken
	json := "application/json"
	for _, c := range []struct {
		name   string
		h      map[string]string
		body   string
		status int
		says   string
	}{
		{"no token", map[string]string{"Origin": "http://" + host, "Content-Type": json}, `{}`, 401, "unauthorized"},
		{"another origin", map[string]string{"Cookie": cookie, "Origin": "http://evil.example", "Content-Type": json}, `{}`, 403, "Origin is not this page"},
		{"cookie without an origin", map[string]string{"Cookie": cookie, "Content-Type": json}, `{}`, 403, "Authorization: Bearer"},
		{"a form", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Content-Type": "application/x-www-form-urlencoded"}, "max_cost=1", 415, "JSON"},
		{"a negative budget", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Content-Type": json}, `{"max_cost":-1}`, 400, "positive"},
		// Past every check: warden is asked (none runs here).
		{"the page", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Content-Type": json}, `{}`, 409, "no warden"},
		{"a program", map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": json}, `{"max_tokens":5}`, 409, "no warden"},
		{"an account's limit", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Content-Type": json}, `{"account":"w1"}`, 409, "no warden"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, base+"/api/resume", strings.NewReader(c.body))
			for k, v := range c.h {
				req.Header.Set(k, v)
			}
			resp, err := noRedirects.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.says) {
				t.Errorf("%d %s, want %d saying %q", resp.StatusCode, b, c.status, c.says)
			}
		})
	}
}
