// Package cdp drives a headless Chromium through the DevTools protocol, for
// tests of the dashboard page: start the browser, open a page, evaluate
// JavaScript, take a screenshot. It speaks just enough WebSocket (RFC 6455,
// client side) for that.
package cdp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Browser is a headless Chromium.
type Browser struct {
	cmd  *exec.Cmd
	port string
	dir  string
}

// Find returns the Chromium binary on PATH ("chromium", Debian's), or "".
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

var listening = regexp.MustCompile(`DevTools listening on ws://[^:]+:(\d+)/`)

// Start starts bin headless with a fresh profile in dir, w×h pixels.
func Start(ctx context.Context, bin, dir string, w, h int) (*Browser, error) {
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
		fmt.Sprintf("--window-size=%d,%d", w, h), "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--user-data-dir="+dir, "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close ends its helpers too
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	b := &Browser{cmd: cmd, dir: dir}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case b.port = <-found:
		return b, nil
	case <-time.After(30 * time.Second):
		b.Close()
		return nil, errors.New("chromium did not say where DevTools listens within 30 s")
	}
}

// Close ends the browser and every process it started.
func (b *Browser) Close() {
	if b.cmd.Process != nil {
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		b.cmd.Wait()
	}
}

// Open opens a new tab at about:blank and connects to it.
func (b *Browser) Open() (*Page, error) {
	req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1:"+b.port+"/json/new?about:blank", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("new tab: %w", err)
	}
	defer resp.Body.Close()
	var target struct {
		ID                   string `json:"id"`
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&target); err != nil {
		return nil, fmt.Errorf("new tab: %w", err)
	}
	p, err := dial(target.WebSocketDebuggerURL)
	if err != nil {
		return nil, err
	}
	p.closeURL = "http://127.0.0.1:" + b.port + "/json/close/" + target.ID
	return p, nil
}

// Page is one tab.
type Page struct {
	ws       *wsConn
	closeURL string // closes the tab
	mu       sync.Mutex
	id       int
	wait     map[int]chan reply
	events   chan Event
}

// Event is a DevTools event.
type Event struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type reply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func dial(wsURL string) (*Page, error) {
	ws, err := wsDial(wsURL)
	if err != nil {
		return nil, err
	}
	p := &Page{ws: ws, wait: map[int]chan reply{}, events: make(chan Event, 256)}
	go p.read()
	return p, nil
}

func (p *Page) read() {
	for {
		msg, err := p.ws.read()
		if err != nil {
			p.mu.Lock()
			for id, ch := range p.wait {
				close(ch)
				delete(p.wait, id)
			}
			p.mu.Unlock()
			return
		}
		var r reply
		if json.Unmarshal(msg, &r) != nil {
			continue
		}
		if r.Method != "" {
			select {
			case p.events <- Event{Method: r.Method, Params: r.Params}:
			default:
			}
			continue
		}
		p.mu.Lock()
		ch := p.wait[r.ID]
		delete(p.wait, r.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// Events delivers the page's events (after a domain was enabled).
func (p *Page) Events() <-chan Event { return p.events }

// Call sends a command and decodes its result into out (may be nil).
func (p *Page) Call(ctx context.Context, method string, params any, out any) error {
	p.mu.Lock()
	p.id++
	id := p.id
	ch := make(chan reply, 1)
	p.wait[id] = ch
	p.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := p.ws.write(msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed", method)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(ctx context.Context, u string) error {
	if err := p.Call(ctx, "Page.enable", nil, nil); err != nil {
		return err
	}
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": u}, nil); err != nil {
		return err
	}
	for {
		select {
		case e := <-p.events:
			if e.Method == "Page.loadEventFired" {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("navigate %s: %w", u, ctx.Err())
		}
	}
}

// Eval evaluates a JavaScript expression and decodes its value into out.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("eval %q: %s", expr, r.Exception.Text)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot returns a PNG of the page, the whole of it.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close closes the tab and the connection to it.
func (p *Page) Close() {
	p.ws.close()
	if p.closeURL == "" {
		return
	}
	// The tab goes too, and its connections with it (a browser keeps only
	// a few open to one host).
	if resp, err := http.Get(p.closeURL); err == nil {
		resp.Body.Close()
	}
}

// wsConn is the client side of a WebSocket: masked frames out, text
// messages (reassembled) in.
type wsConn struct {
	c  net.Conn
	br *bufio.Reader
	wm sync.Mutex
}

func wsDial(raw string) (*wsConn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("websocket: %w", err)
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	br := bufio.NewReaderSize(c, 1<<20)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, fmt.Errorf("websocket handshake: %s", resp.Status)
	}
	return &wsConn{c: c, br: br}, nil
}

func (w *wsConn) write(msg []byte) error {
	w.wm.Lock()
	defer w.wm.Unlock()
	var h bytes.Buffer
	h.WriteByte(0x81) // FIN, text
	n := len(msg)
	switch {
	case n < 126:
		h.WriteByte(0x80 | byte(n))
	case n < 1<<16:
		h.WriteByte(0x80 | 126)
		h.WriteByte(byte(n >> 8))
		h.WriteByte(byte(n))
	default:
		h.WriteByte(0x80 | 127)
		for i := 7; i >= 0; i-- {
			h.WriteByte(byte(uint64(n) >> (8 * i)))
		}
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	h.Write(mask)
	body := make([]byte, n)
	for i := range msg {
		body[i] = msg[i] ^ mask[i%4]
	}
	_, err := w.c.Write(append(h.Bytes(), body...))
	return err
}

// read returns the next text or binary message; it answers pings.
func (w *wsConn) read() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		op, fin := h[0]&0x0f, h[0]&0x80 != 0
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(b[0])<<8 | uint64(b[1])
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = 0
			for _, x := range b {
				n = n<<8 | uint64(x)
			}
		}
		if n > 256<<20 {
			return nil, fmt.Errorf("websocket frame of %d bytes", n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(w.br, payload); err != nil {
			return nil, err
		}
		switch op {
		case 0x8:
			return nil, io.EOF
		case 0x9: // ping: pong
			w.wm.Lock()
			w.c.Write(append([]byte{0x8a, 0x80 | byte(len(payload)&0x7f), 0, 0, 0, 0}, payload...))
			w.wm.Unlock()
			continue
		case 0xa:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

func (w *wsConn) close() { w.c.Close() }

// Artifacts is where a test keeps what it makes for people to look at:
// $WARDEN_ARTIFACTS when set, else def.
func Artifacts(def string) string {
	if d := strings.TrimSpace(os.Getenv("WARDEN_ARTIFACTS")); d != "" {
		os.MkdirAll(d, 0o755)
		return d
	}
	return def
}
