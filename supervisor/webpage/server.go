// Package webpage serves the live dashboard page of a running team (warden
// run --http, warden serve): one page from the binary, its updates over
// server-sent events, /healthz for schedulers. It reaches the team through
// the team's control socket, so it runs inside warden or beside it alike.
package webpage

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/supervisor/control"
)

//go:embed static
var static embed.FS

// Options configure the page's server.
type Options struct {
	Addr string
	// Token must come with every request but /healthz's: ?token=, the
	// Authorization: Bearer header, or the cookie the page sets. It is
	// required, on loopback too.
	Token  string
	Client *control.Client
	// StateDir is the team's state dir: with no warden running, the page
	// shows the last state and events it holds (disk.go).
	StateDir string
	Log      hclog.Logger
	// Limits bound what the page costs; zero fields are DefaultLimits'.
	Limits Limits
}

// Server is the page's HTTP server.
type Server struct {
	opts     Options
	limits   Limits
	log      hclog.Logger
	ln       *limitListener
	srv      *http.Server
	loopback bool
	streams  chan struct{} // one per event stream served now
	hcache   healthCache
	// refusals bounds the log lines of writes refused for who made them.
	refusals unixsock.Refusals
	// recs are the state dir's records, for the agents ps gives none of.
	recs records
}

// healthEvery: /healthz asks the team for its state at most this often,
// however many ask it (without the token too): a flood of probes costs the
// control socket one ps a second, never the slots warden ps needs.
const healthEvery = time.Second

// healthCache is the team's state as /healthz last asked for it.
type healthCache struct {
	mu  sync.Mutex
	at  time.Time
	ps  *control.PS
	err error
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

// Listen starts listening on opts.Addr; Serve serves.
func Listen(opts Options) (*Server, error) {
	if opts.Token == "" {
		return nil, errors.New("the dashboard page needs a token")
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard page: %w", err)
	}
	l := opts.Limits.filled()
	log := opts.Log.Named("http")
	s := &Server{opts: opts, limits: l, log: log, ln: newLimitListener(ln, l, log), loopback: Loopback(opts.Addr),
		streams: make(chan struct{}, l.MaxStreams), refusals: unixsock.Refusals{Every: 10 * time.Second}}
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug}),
	}
	log.Debug("listening", "addr", ln.Addr().String(), "max_conns", l.MaxConns, "max_conns_per_host", l.MaxConnsPerHost, "max_streams", l.MaxStreams)
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the page's address, without its token; on every address
// (0.0.0.0, [::]) it names the machine by its host name.
func (s *Server) URL() string {
	addr := s.Addr()
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			if name, err := os.Hostname(); err == nil && name != "" {
				addr = net.JoinHostPort(name, port)
			}
		}
	}
	return "http://" + addr + "/"
}

// Limits are the limits the server keeps.
func (s *Server) Limits() Limits { return s.limits }

// Close stops listening, for a server that never served (its run failed
// to begin).
func (s *Server) Close() error { return s.ln.Close() }

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
	mux.HandleFunc("POST /api/answer/{agent}", s.answer)
	mux.HandleFunc("POST /api/resume", s.resume) // resume.go
	return s.guard(mux)
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
// only with full: to a request that carries the token.
func (s *Server) health(w http.ResponseWriter, full bool) {
	ps, err := s.teamState()
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

// teamState is the team's state for /healthz: asked at most once in
// healthEvery, by one request while the others wait for its answer.
func (s *Server) teamState() (*control.PS, error) {
	h := &s.hcache
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.at.IsZero() || time.Since(h.at) >= healthEvery {
		h.ps, h.err = s.opts.Client.PS()
		h.at = time.Now()
	}
	return h.ps, h.err
}

func (s *Server) ps(w http.ResponseWriter, r *http.Request) {
	ps, err := s.opts.Client.PS()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, Health{Status: "not_running", Error: err.Error()})
		return
	}
	s.fillRecords(ps)
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
