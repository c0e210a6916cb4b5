package land

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
)

// The end of a land, and land_verify: base fast-forwarded with ff-base,
// work_landed, how land_verify ran and how its failure is told.

// verify runs land_verify in the integration worktree.
func (l *lander) verify(ctx context.Context) queue.VerifyResult {
	timeout := l.o.Landing.LandVerifyTimeout
	if timeout <= 0 {
		timeout = config.DefaultLandVerifyTimeout
	}
	run := l.o.Verify
	if run == nil {
		run = func(ctx context.Context, argv []string, dir string, timeout time.Duration) queue.VerifyResult {
			return queue.VerifyWithin(ctx, argv, dir, nil, timeout)
		}
	}
	v := run(ctx, l.o.Landing.LandVerify, l.wt.Dir, timeout)
	l.res.Verify = v.Summary
	return v
}

// finish fast-forwards base with ff-base, and records work_landed.
func (l *lander) finish(ctx context.Context) {
	res := l.res
	if l.o.Landing.Land == config.LandFFBase {
		switch {
		case res.Stop != nil:
			res.BaseNote = "not moved: the land stopped"
		default:
			if err := l.repo.FastForward(ctx, res.Base, res.Branch); err != nil {
				res.BaseNote = "not moved: " + err.Error()
			} else {
				res.BaseMoved = true
			}
		}
	}
	var tasks []string
	for _, d := range res.Landed {
		tasks = append(tasks, d.Task)
	}
	l.emit(event.WorkLanded, "", "branch", res.Branch, "base", res.Base, "tasks", tasks,
		"verify", res.Verify, "base_moved", res.BaseMoved, "stopped", res.Stop != nil)
}

func (l *lander) emit(name, task string, kv ...any) {
	if l.o.Emit != nil {
		l.o.Emit(name, task, kv...)
	}
	if l.o.Log != nil {
		l.o.Log.Info(name, append([]any{"task", task}, kv...)...)
	}
}

// failed says how land_verify failed, with the last lines of its output.
func failed(argv []string, v queue.VerifyResult, when string) string {
	out := strings.Split(strings.TrimSpace(v.Output), "\n")
	if len(out) > lastLines {
		out = out[len(out)-lastLines:]
	}
	return fmt.Sprintf("land_verify `%s` %s: %s; its last lines:\n%s", strings.Join(argv, " "), when, v.Summary,
		strings.Join(out, "\n"))
}

// lastLines is how many lines of a failed land_verify's output are told.
const lastLines = 15
