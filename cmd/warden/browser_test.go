//go:build e2e

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// The page's tests drive Debian's chromium headless with chromedp: a tab is
// a context, its actions run with chromedp.Run, and the browser's end kills
// every process it started.

// chromium returns Debian's chromium, failing in CI (.ci/run installs it)
// and skipping, saying so, elsewhere.
func chromium(t testing.TB) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed: .ci/run installs Debian's chromium for the page's tests")
	}
	t.Skip("chromium is not installed (apt-get install chromium): the dashboard page is not tested in a browser here")
	return ""
}

// startBrowser starts bin headless, w×h pixels, with a fresh profile that
// chromedp makes and removes, and returns its first tab (open others from
// it with openTab) and the func that ends it. Its flags are the ones this
// machine needs as root (no sandbox, no GPU, no connection of its own to
// anywhere: background networking, component updates, sync and QUIC off).
//
// No process of it may outlive the test. The browser and its crashpad
// handlers carry the test's owner mark in their environment, which
// proctest.AssertNone looks for; the zygotes and what they start (renderers,
// the GPU, network and storage processes) are started with an environment of
// Chromium's own, without it, but every one of them names the profile in
// its --user-data-dir. The end func kills the browser (chromedp kills the
// rest by that flag) and fails the test if any process naming the profile
// is still there 2 s later.
func startBrowser(t testing.TB, ctx context.Context, bin string, w, h int) (context.Context, func()) {
	t.Helper()
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(w, h),
		chromedp.Env(fakeagent.EnvOwner+"="+strconv.Itoa(os.Getpid())),
	)
	tab, cancel := chromedp.NewContext(actx)
	if err := chromedp.Do(tab); err != nil { // starts it
		cancel()
		acancel()
		t.Fatalf("start chromium: %v", err)
	}
	profile := profileArg(chromedp.FromContext(tab).Browser.Process().Pid)
	if profile == "" {
		cancel()
		acancel()
		t.Fatal("chromium's command line names no --user-data-dir")
	}
	return tab, func() {
		t.Helper()
		cancel()
		acancel()
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			left := processesWithArg(profile)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				var lines []string
				for pid, cmd := range left {
					syscall.Kill(pid, syscall.SIGKILL)
					lines = append(lines, fmt.Sprintf("pid=%d cmd=%.200q", pid, cmd))
				}
				t.Errorf("%d chromium process(es) outlived the browser:\n%s", len(left), strings.Join(lines, "\n"))
				return
			}
		}
	}
}

// profileArg is the --user-data-dir=… argument of process pid, or "".
func profileArg(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	for _, arg := range strings.Split(string(b), "\x00") {
		if strings.HasPrefix(arg, "--user-data-dir=") {
			return arg
		}
	}
	return ""
}

// processesWithArg returns the live (non-zombie) processes with arg on
// their command line, pid → command line.
func processesWithArg(arg string) map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		// A zygote's children set their title: one string, spaces between
		// the arguments.
		cmd := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
		if err != nil || !slices.Contains(cmd, arg) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && (st[i+2] == 'Z' || st[i+2] == 'X') {
				continue
			}
		}
		out[pid] = strings.Join(cmd, " ")
	}
	return out
}

// openTab opens a new tab in the browser of bctx; the func closes it.
func openTab(t testing.TB, bctx context.Context) (context.Context, func()) {
	t.Helper()
	tab, cancel := chromedp.NewContext(bctx)
	if err := chromedp.Do(tab); err != nil {
		cancel()
		t.Fatalf("open a tab: %v", err)
	}
	return tab, cancel
}

// navigate loads url in tab and waits for its load event.
func navigate(t testing.TB, tab context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate to %s: %v", url, err)
	}
}

// evalBool evaluates a JavaScript expression that gives a boolean.
func evalBool(tab context.Context, expr string) (bool, error) {
	return chromedp.Run(tab, chromedp.Evaluate[bool](expr))
}

// innerText is what the page in tab shows, for a failure's message.
func innerText(tab context.Context) string {
	s, err := chromedp.Run(tab, chromedp.Evaluate[string]("document.body ? document.body.innerText : ''"))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return s
}

// screenshot returns a PNG of the whole page in tab.
func screenshot(tab context.Context) ([]byte, error) {
	return chromedp.Run(tab, chromedp.FullScreenshot(100))
}

// artifacts is where a test keeps what it makes for people to look at:
// $WARDEN_ARTIFACTS when set, else def.
func artifacts(def string) string {
	if d := strings.TrimSpace(os.Getenv("WARDEN_ARTIFACTS")); d != "" {
		os.MkdirAll(d, 0o755)
		return d
	}
	return def
}
