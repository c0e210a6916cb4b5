//go:build !e2e

package webpage

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A write from the page needs, beside the token, the page's own origin: a
// request another site's page makes the browser send (another Origin, or
// Sec-Fetch-Site cross-site, or the cookie alone without an Origin) is
// refused before warden is asked; a program with the token in its
// Authorization header passes; an answer that names no dialog is refused.
func TestAnswerNeedsThePageItself(t *testing.T) {
	srv, stop := serve(t, "127.0.0.1:0", testToken, t.TempDir())
	defer stop()
	base := "http://" + srv.Addr()
	host := srv.Addr()
	cookie := srv.cookieName() + "=" + testToken
	post := func(h map[string]string, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/api/answer/a", strings.NewReader(body))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const ok = `{"choice":"allow-once","dialog":"Do you want to proceed?"}`
	json := "application/json"
	cases := []struct {
		name   string
		h      map[string]string
		body   string
		status int
		says   string
	}{
		{"no token", map[string]string{"Origin": "http://" + host, "Content-Type": json}, ok, 401, "unauthorized"},
		{"another origin", map[string]string{"Cookie": cookie, "Origin": "http://evil.example", "Content-Type": json}, ok, 403, "Origin is not this page"},
		{"cross-site", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Sec-Fetch-Site": "cross-site", "Content-Type": json}, ok, 403, "another site"},
		{"cookie without an origin", map[string]string{"Cookie": cookie, "Content-Type": json}, ok, 403, "Authorization: Bearer"},
		{"a form", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Content-Type": "application/x-www-form-urlencoded"}, "choice=allow-once", 415, "JSON"},
		{"no dialog named", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Content-Type": json}, `{"choice":"deny"}`, 400, "names the dialog"},
		// Past every check: warden is asked (none runs here).
		{"the page", map[string]string{"Cookie": cookie, "Origin": "http://" + host, "Sec-Fetch-Site": "same-origin", "Content-Type": json}, ok, 409, ""},
		{"a program", map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": json}, ok, 409, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := post(c.h, c.body)
			if status != c.status || !strings.Contains(body, c.says) {
				t.Errorf("%d %s, want %d saying %q", status, body, c.status, c.says)
			}
		})
	}
}
