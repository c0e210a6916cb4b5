package webpage

import (
	"crypto/subtle"
	"html"
	"net"
	"net/http"
	"strings"
)

// guard checks every request. The token comes first, on every address
// (issue 22, item 7: on loopback the page served every agent's screen and
// dialogs to every local user): ?token= (which sets the cookie; the page
// itself then drops it from the address), the Authorization: Bearer header,
// or the cookie. Without it: /healthz says ok or not, the page is a form
// that asks for the token, anything else 401 — and the connection is closed
// with the answer, so that it costs nothing past it. On a loopback address
// the Host must be a loopback name too (a page elsewhere that resolves its
// own name to 127.0.0.1 cannot reach this one). It sets the headers every
// answer carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
		if s.loopback && !loopbackHost(r.Host) {
			h.Set("Connection", "close")
			http.Error(w, "forbidden: this page answers to loopback names only", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.URL.Path == "/login" {
			s.login(w, r)
			return
		}
		tok, fromQuery := s.requestToken(r)
		if !s.tokenOK(tok) {
			h.Set("Connection", "close")
			switch {
			case r.Method == http.MethodGet && r.URL.Path == "/healthz":
				s.health(w, false) // a scheduler's probe holds no secret: ok or not, nothing more
			case r.Method == http.MethodGet && (r.URL.Path == "/" || r.URL.Path == "/index.html"):
				s.loginPage(w, tok != "")
			default:
				h.Set("WWW-Authenticate", `Bearer realm="warden"`)
				http.Error(w, "unauthorized: this page needs its token (?token=, Authorization: Bearer)", http.StatusUnauthorized)
			}
			return
		}
		if fromQuery {
			s.setCookie(w, tok)
			if r.Method == http.MethodGet && r.URL.Path == "/" {
				seeThePage(w) // the token leaves the address bar and the history
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(tok string) bool {
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

// cookieName is the token's cookie: named by the port, so that pages of
// two teams on one host keep their own.
func (s *Server) cookieName() string {
	_, port, _ := net.SplitHostPort(s.Addr())
	return "warden_token_" + port
}

func (s *Server) setCookie(w http.ResponseWriter, tok string) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

func (s *Server) requestToken(r *http.Request) (string, bool) {
	if t := r.URL.Query().Get("token"); t != "" {
		return t, true
	}
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		return strings.TrimPrefix(a, "Bearer "), false
	}
	if c, err := r.Cookie(s.cookieName()); err == nil {
		return c.Value, false
	}
	return "", false
}

// login takes the token from the form loginPage shows: the cookie, and
// back to the page; a wrong one gets the form again.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	tok := ""
	if r.ParseForm() == nil {
		tok = strings.TrimSpace(r.PostForm.Get("token"))
	}
	if !s.tokenOK(tok) {
		w.Header().Set("Connection", "close")
		s.loginPage(w, true)
		return
	}
	s.setCookie(w, tok)
	seeThePage(w)
}

// seeThePage sends the browser on to the page, by a relative address (so
// that a proxy that serves the page under a path of its own keeps it).
func seeThePage(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", "./")
	w.WriteHeader(http.StatusSeeOther)
}

// loginPage is what a browser without the token gets: where the token is,
// and a form for it. It names no path of the team's.
func (s *Server) loginPage(w http.ResponseWriter, wrong bool) {
	msg := ""
	if wrong {
		msg = "<p><strong>That is not this page's token.</strong></p>\n"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>warden: token needed</title></head>
<body>
<h1>warden</h1>
<p>This dashboard needs its token. Unless one was given (<code>--http-token-file</code> or
<code>WARDEN_HTTP_TOKEN</code>), warden made one up and wrote it to the file <code>` + html.EscapeString(TokenFileName) + `</code>
in the team's state directory; the <code>DASHBOARD:</code> line warden printed names that file.</p>
` + msg + `<form method="post" action="login">
<label>Token <input type="password" name="token" autocomplete="current-password" autofocus></label>
<button type="submit">Open</button>
</form>
</body></html>
`))
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
