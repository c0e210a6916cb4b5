// Package webpage serves the live dashboard page of a running team (warden
// run --http, warden serve): one page from the binary, its updates over
// server-sent events, /healthz for schedulers. It reaches the team through
// the team's control socket, so it runs inside warden or beside it alike.
package webpage

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/control"
)

//go:embed static
var static embed.FS

// Options configure the page's server.
type Options struct {
	Addr string
	// Token, when set, must come with every request: ?token=, the
	// Authorization: Bearer header, or the cookie the page sets. Without
	// one, only a loopback address is served.
	Token  string
	Client *control.Client
	Log    hclog.Logger
}

// Server is the page's HTTP server.
type Server struct {
	opts Options
	log  hclog.Logger
	ln   net.Listener
	srv  *http.Server
}

// Loopback reports whether addr (host:port) listens on loopback only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewToken returns a fresh random token.
func NewToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Listen starts listening on opts.Addr; Serve serves. An address that is
// not loopback needs a token.
func Listen(opts Options) (*Server, error) {
	if opts.Token == "" && !Loopback(opts.Addr) {
		return nil, fmt.Errorf("--http %s is not a loopback address: it needs a token (--http-token, or let warden make one)", opts.Addr)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard page: %w", err)
	}
	s := &Server{opts: opts, log: opts.Log.Named("http"), ln: ln}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the page's address, with the token when there is one; on every
// address (0.0.0.0, [::]) it names the machine by its host name.
func (s *Server) URL() string {
	addr := s.Addr()
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			if name, err := os.Hostname(); err == nil && name != "" {
				addr = net.JoinHostPort(name, port)
			}
		}
	}
	u := "http://" + addr + "/"
	if s.opts.Token != "" {
		u += "?token=" + s.opts.Token
	}
	return u
}

// Serve serves until ctx ends.
func (s *Server) Serve(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if s.srv.Shutdown(sctx) != nil {
			s.srv.Close()
		}
	}()
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("dashboard page: %w", err)
	}
	return nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	files := http.FileServer(http.FS(sub))
	mux.Handle("GET /", files)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /api/ps", s.ps)
	mux.HandleFunc("GET /api/screen/{agent}", s.screen)
	mux.HandleFunc("GET /api/events", s.events)
	return s.guard(mux)
}

// guard checks every request: the token when there is one; without one,
// that the Host is a loopback name (a page elsewhere that resolves its own
// name to 127.0.0.1 cannot read this one). It sets the headers every answer
// carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		if s.opts.Token == "" {
			if !loopbackHost(r.Host) {
				http.Error(w, "forbidden: this page answers to loopback names only", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		tok, fromQuery := requestToken(r)
		if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) != 1 {
			if r.Method == http.MethodGet && r.URL.Path == "/healthz" {
				s.health(w, false) // a scheduler's probe holds no secret: the status alone
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="warden"`)
			http.Error(w, "unauthorized: this page needs its token (?token=, Authorization: Bearer)", http.StatusUnauthorized)
			return
		}
		if fromQuery {
			http.SetCookie(w, &http.Cookie{Name: "warden_token", Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		next.ServeHTTP(w, r)
	})
}

func requestToken(r *http.Request) (string, bool) {
	if t := r.URL.Query().Get("token"); t != "" {
		return t, true
	}
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		return strings.TrimPrefix(a, "Bearer "), false
	}
	if c, err := r.Cookie("warden_token"); err == nil {
		return c.Value, false
	}
	return "", false
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

// Health is /healthz's answer.
type Health struct {
	Status string      `json:"status"` // running | not_running
	Error  string      `json:"error,omitempty"`
	Team   *control.PS `json:"team,omitempty"`
}

// healthz: 200 with the team's state while a warden runs it, 503 when not.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) { s.health(w, true) }

// health answers /healthz; the team's state (and why it is not running)
// only with full: to a request that carries the token, or on loopback.
func (s *Server) health(w http.ResponseWriter, full bool) {
	ps, err := s.opts.Client.PS()
	if err != nil {
		h := Health{Status: "not_running"}
		if full {
			h.Error = err.Error()
		}
		writeJSON(w, http.StatusServiceUnavailable, h)
		return
	}
	h := Health{Status: "running"}
	if full {
		h.Team = ps
	}
	writeJSON(w, http.StatusOK, h)
}

func (s *Server) ps(w http.ResponseWriter, r *http.Request) {
	ps, err := s.opts.Client.PS()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, Health{Status: "not_running", Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, ps)
}

func (s *Server) screen(w http.ResponseWriter, r *http.Request) {
	scr, err := s.opts.Client.Screen(r.PathValue("agent"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, scr)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
