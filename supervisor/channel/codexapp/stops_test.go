//go:build !e2e

package codexapp

import (
	"testing"
	"time"
)

// Codex 0.171.0's typed stop reasons (CodexErrorInfo in the error
// notification and in turn/completed's turn.error; rateLimitReachedType
// and spendControlReached in the rate-limit snapshot) reach the session
// in Codex's own word: the account's limits as Limit, the thread's own
// (sessionBudgetExceeded, tooManyDenials, …) as Stopped, each turn's stop
// once although both notifications carry it.
func TestTypedStopReasons(t *testing.T) {
	c, srv := pipeClient(t)
	c.mu.Lock()
	c.thread = "th1"
	c.mu.Unlock()
	srv.send(`{"method":"error","params":{"threadId":"th1","turnId":"tu1","willRetry":false,"error":{"message":"This session's budget is spent.","codexErrorInfo":"sessionBudgetExceeded"}}}`)
	srv.send(`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","items":[],"status":"failed","error":{"message":"This session's budget is spent.","codexErrorInfo":"sessionBudgetExceeded"}}}}`)
	srv.send(`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu2","items":[],"status":"failed","error":{"message":"Too many actions were denied.","codexErrorInfo":"tooManyDenials"}}}}`)
	srv.send(`{"method":"error","params":{"threadId":"th1","turnId":"tu3","willRetry":false,"error":{"message":"stream failed","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":502}}}}}`)
	srv.send(`{"method":"error","params":{"threadId":"th1","turnId":"tu4","willRetry":true,"error":{"message":"retrying","codexErrorInfo":"serverOverloaded"}}}`)
	srv.send(`{"method":"error","params":{"threadId":"th1","turnId":"tu5","willRetry":false,"error":{"message":"You've hit your usage limit.","codexErrorInfo":"usageLimitExceeded"}}}`)
	srv.send(`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu5","items":[],"status":"failed","error":{"message":"You've hit your usage limit.","codexErrorInfo":"usageLimitExceeded"}}}}`)
	srv.send(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"rateLimitReachedType":"workspace_owner_credits_depleted"}}}`)
	srv.send(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"spendControlReached":true,"individualLimit":{"limit":"100","used":"100","remainingPercent":0,"resetsAt":4102444800}}}}`)
	srv.send(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"spendControlReached":null,"rateLimitReachedType":null,"primary":{"usedPercent":3}}}}`)
	srv.send(`{"method":"turn/started","params":{"threadId":"th1"}}`) // the end of what is read

	type stop struct {
		kind       Kind
		word, text string
		resets     int64
	}
	want := []stop{
		{Stopped, "sessionBudgetExceeded", "This session's budget is spent.", 0},
		{Stopped, "tooManyDenials", "Too many actions were denied.", 0},
		{Stopped, "responseStreamDisconnected", "stream failed", 0},
		{Limit, "usageLimitExceeded", "You've hit your usage limit.", 0},
		{Limit, "workspace_owner_credits_depleted", "", 0},
		{Limit, "spendControlReached", "", 4102444800},
	}
	var got []stop
	for deadline := time.After(5 * time.Second); ; {
		select {
		case e := <-c.events:
			switch e.Kind {
			case Stopped, Limit:
				got = append(got, stop{e.Kind, e.Status, e.Text, e.Resets})
				continue
			case TurnStarted:
			default:
				continue
			}
		case <-deadline:
			t.Fatalf("the stream's end not read; got %+v", got)
		}
		break
	}
	if len(got) != len(want) {
		t.Fatalf("stops %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stop %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
