package hooked

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/testrig/fakeagent"
)

// hookflood:n=N:done=FILE — a hostile agent on the hook socket: once its
// first prompt is in, it sends N distinct valid blocks as Stop-hook
// messages, many on one connection, as fast as warden takes them (it is
// the agent process itself, so warden accepts them as its own), then
// creates FILE and stays. It prints "hook flood: SENT sent, BUSY busy".
func init() { fakeagent.Register("hookflood", modeHookFlood) }

func modeHookFlood(args []string) int {
	opt := map[string]string{"n": "1000"}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opt[k] = v
		}
	}
	n, _ := strconv.Atoi(opt["n"])
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	task := ""
	for task == "" && in.Scan() {
		if line := strings.TrimSpace(in.Text()); strings.HasPrefix(line, "Your task:") {
			task = strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, "Your task:"))[0], ".")
		}
	}
	sent, busy := 0, 0
	for i := 1; i <= n; {
		to := min(n, i+999)
		ok, nb, err := sendBatch(os.Getenv(profile.EnvSocket), task, i, to)
		sent, busy, i = sent+ok, busy+nb, i+ok+nb
		if err == nil {
			// Every block was written: one whose receipt was cut off (the
			// connection's deadline) may have been taken, so none is sent
			// again — a block sent twice would be counted twice by the
			// test that checks records + dropped ≤ blocks.
			i = to + 1
		}
		if err != nil && ok+nb == 0 {
			fmt.Fprintln(os.Stderr, "fakeagent: hookflood:", err)
			time.Sleep(10 * time.Millisecond)
		}
	}
	fmt.Printf("hook flood: %d sent, %d busy\n", sent, busy)
	if f := opt["done"]; f != "" {
		os.WriteFile(f, []byte("done\n"), 0o600)
	}
	for in.Scan() { // stay until stopped
	}
	return 0
}

// sendBatch sends blocks from..to on one connection and counts the
// receipts: ok and busy (no room: a real hook would spool it).
func sendBatch(socket, task string, from, to int) (ok, busy int, err error) {
	c, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	replies := make(chan [2]int, 1)
	go func() {
		r := bufio.NewScanner(c)
		var n [2]int
		for r.Scan() {
			if r.Text() == "ok" {
				n[0]++
			} else {
				n[1]++
			}
		}
		replies <- n
	}()
	w := bufio.NewWriter(c)
	for i := from; i <= to; i++ {
		payload, _ := json.Marshal(map[string]any{"last_assistant_message": "Done.\n\n" + fakeagent.FloodBlock(task, i)})
		m := hookbus.Message{Agent: os.Getenv(profile.EnvAgent), Kind: profile.KindClaudeStop, Payload: payload, At: time.Now()}
		b, _ := m.MarshalJSON()
		if _, err = w.Write(append(b, '\n')); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if uc, isUnix := c.(*net.UnixConn); isUnix {
		_ = uc.CloseWrite()
	}
	n := <-replies
	return n[0], n[1], err
}
