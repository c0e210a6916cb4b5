//go:build e2e

package main

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/wardenhq/warden/testrig/proctest"
)

// `warden run --http ADDR` with its token in $WARDEN_HTTP_TOKEN (taken out
// of warden's environment at start): after `warden upgrade` the new binary
// serves the page again on the same address with the same token.
func TestUpgradeServesThePageAgainOnTheSameAddress(t *testing.T) {
	defer proctest.AssertNone(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	team := heldTeam(t, "", "worker:steps=40:slow=100ms")
	const token = "upgrade-test-token-0123456789abcdef"
	p := startPage(t, stateOf(team), 0, []string{"WARDEN_HTTP_TOKEN=" + token}, "run", "--http", addr, team)
	defer p.stop()
	p.out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	if code, body := p.get("/api/ps", true); code != 200 {
		t.Fatalf("the page before the upgrade: %d %s", code, body)
	}
	msg, err := warden("upgrade", team).CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "1 agent taken back, 0 restarted") {
		t.Fatalf("warden upgrade: %v\n%s\n%s", err, msg, p.out.dump())
	}
	code, body := p.get("/api/ps", true)
	if code != 200 || !strings.Contains(body, fmt.Sprintf(`"pid":%d`, p.cmd.Process.Pid)) {
		t.Errorf("the page after the upgrade, same address and token: %d %.300s", code, body)
	}
	if code, _ := p.get("/api/ps", false); code == 200 {
		t.Errorf("the page after the upgrade answers without its token")
	}
}
