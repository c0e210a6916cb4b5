package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// worker: a scripted agent working on one task, for the supervisor's end to
// end tests. Parameters are key=value pairs after the mode name:
//
//	worker:steps=3:final=complete:crash=1:unasked=1:silent=1:done=FILE
//
//	steps=N    it answers N checkpoint requests; the Nth reports `final`
//	final=S    complete (default), awaiting-verification or blocked (with
//	           a Blockers line)
//	crash=K    on its first session (a prompt without "You are resuming"),
//	           exit 1 right after answering request K
//	unasked=1  print a valid block unasked as soon as the first prompt is in
//	silent=1   read input but never print anything
//	done=FILE  on "VERIFY FAILED" create FILE (fixing the work) and answer
//	           with a complete block at once
//	ignore=1   ignore SIGTERM, SIGINT and SIGHUP, and stay after the end of
//	           input (only SIGKILL ends it)
//	spawn=1    start a grandchild that ignores SIGTERM, SIGINT and SIGHUP
//	           (and so outlives a killed supervisor's hung-up terminal)
//	lead=1     after its first answer (first session only) print
//	           CHECKPOINT COMPLETE alone on a line, as a team lead does
//	write=FILE append "TASK step N" to FILE (in its working directory) before
//	           each answer: work on disk for a worktree to commit
//	chatty=1   print a line every 100 ms and never answer a request (an agent
//	           that keeps busy but makes no checkpoint)
//	alt=1      work on the alternate screen, as a full-screen TUI does, and
//	           leave it when told to end (SIGTERM, SIGINT, SIGHUP): back to
//	           the empty main screen
//	bad=1      answer the first request with a block whose progress is 250%,
//	           the second with a placeholder "[N]%", and only then validly
//	seed=1     add the seeds' optional lines to every block: Phase, Current
//	           Step, a Subtasks checklist of its steps, Files Created, Errors
//	           and one line of its own (Mood: steady)
//	resumable=no  add "Resumable: no" to every block (an agent mid-way
//	           through something a fresh session cannot pick up)
//	edit=1     each task appends to the file its prompt names on an
//	           "Edit: FILE" line (instead of write's) and its blocks name that
//	           file in Files Modified: tasks that clash on purpose
//	resolve=1  on a land task (an id beginning "land."), before each
//	           answer remove git's conflict markers from the files of its
//	           working directory, keeping both sides' lines (resolve.go)
//	slow=D     answer each request D (a Go duration) after it came: a turn
//	           that takes a while, its answer in flight meanwhile
//	repaint=1  on SIGUSR1 print its last answer again, as a TUI redraws
//	           its screen
//	tick=D     print "TICK <unix nanoseconds>" every D (a Go duration), all
//	           along: output written steadily, stamped when it was written
//	           (the relay's pauses are measured from it)
//	brief=1    name the steps done and those remaining on a line each
//	           ("- steps 1 to 7"), not a line a step: the answers of a
//	           task of many steps stay short
//	drip=D     write each answer a line at a time, D (a Go duration)
//	           apart: an answer being written for a while
//
// With EnvAnswerLog set every valid answer is logged there (answerlog.go).
//
// It prints "RESUME-SEEN: <line>" for every prompt line that carries resume
// information, so tests can check what a resumed session was told.
func init() { Register("worker", modeWorker) }

func modeWorker(args []string) int {
	opt := map[string]string{"steps": "3", "final": "complete"}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opt[k] = v
		}
	}
	steps, _ := strconv.Atoi(opt["steps"])
	drip, _ := time.ParseDuration(opt["drip"])
	briefSteps = opt["brief"] == "1"
	crash, _ := strconv.Atoi(opt["crash"])
	silent := opt["silent"] == "1"
	seed := opt["seed"] == "1"
	extra := ""
	if opt["resumable"] == "no" {
		extra = "Resumable: no\n"
	}
	resumed := false
	answered, badSent := 0, 0
	editFile := "" // edit=1: the file this task's prompt names
	say := func(format string, a ...any) {
		if !silent {
			fmt.Printf(format, a...)
		}
	}
	if opt["ignore"] == "1" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	}
	if opt["spawn"] == "1" {
		if _, err := spawn("ignore", false); err != nil {
			fmt.Fprintf(os.Stderr, "fakeagent: spawn: %v\n", err)
			return 1
		}
	}
	if opt["alt"] == "1" {
		ends := make(chan os.Signal, 1)
		signal.Notify(ends, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		write([]byte("\x1b[?1049h\x1b[2J\x1b[H"))
		go func() {
			<-ends
			os.Stdout.Write([]byte("\x1b[?1049l"))
			os.Exit(143)
		}()
	}
	if opt["chatty"] == "1" {
		for i := 0; ; i++ {
			fmt.Printf("thinking about it, %d\n", i)
			time.Sleep(100 * time.Millisecond)
		}
	}
	if d, err := time.ParseDuration(opt["tick"]); err == nil && d > 0 {
		go func() {
			for {
				fmt.Printf("TICK %d\n", time.Now().UnixNano()) // one write: never inside a block
				time.Sleep(d)
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		switch {
		case strings.HasPrefix(line, "You are resuming"):
			resumed = true
			say("RESUME-SEEN: %s\n", line)
			// "… The previous session reached 25% …": carry on from there.
			if _, rest, ok := strings.Cut(line, "reached "); ok {
				if pct, err := strconv.Atoi(strings.SplitN(rest, "%", 2)[0]); err == nil {
					answered = pct * steps / 100
				}
			}
		case strings.HasPrefix(line, "Resume instructions") || strings.HasPrefix(line, "* ") ||
			strings.HasPrefix(line, "The team was checkpointed") || strings.HasPrefix(line, "# Handoff:"):
			say("RESUME-SEEN: %s\n", line)
		case strings.HasPrefix(line, "Edit: ") && opt["edit"] == "1":
			editFile = strings.TrimSpace(strings.TrimPrefix(line, "Edit: "))
		case strings.HasPrefix(line, "Your task:"):
			say("working on it\n")
			if opt["unasked"] == "1" {
				ex, end := workerAnswer(taskOf(line), extra)
				printWorkerBlock(dripSay(say, drip), taskOf(line), 0, steps, "implementing", seed, ex, editFile)
				end()
			}
		case strings.HasPrefix(line, "VERIFY FAILED") && opt["done"] != "":
			os.WriteFile(opt["done"], []byte("fixed\n"), 0o600)
			say("fixed what verify found\n")
			task := strings.TrimSuffix(strings.Fields(line)[3], ":")
			ex, end := workerAnswer(task, extra)
			printWorkerBlock(dripSay(say, drip), task, steps, steps, opt["final"], seed, ex, editFile)
			end()
		case strings.HasPrefix(line, "CHECKPOINT REQUEST:"):
			task, _ := requestTask(line)
			if d, err := time.ParseDuration(opt["slow"]); err == nil {
				time.Sleep(d)
			}
			if opt["bad"] == "1" && badSent < 2 {
				badSent++
				progress := map[int]string{1: "250%", 2: "[N]%"}[badSent]
				say("CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- a\nRemaining:\n- b\nFiles Modified: none\nEstimated Progress: %s\n\n", task, progress)
				continue
			}
			answered++
			if opt["resolve"] == "1" && strings.HasPrefix(task, "land.") {
				resolveMarkers(".")
			}
			if f := opt["write"]; f != "" || editFile != "" {
				if editFile != "" {
					f = editFile
				}
				if fh, err := os.OpenFile(f, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
					fmt.Fprintf(fh, "%s step %d\n", task, answered)
					fh.Close()
				}
			}
			status := "implementing"
			if answered >= steps {
				status = opt["final"]
			}
			ex, end := workerAnswer(task, extra)
			printWorkerBlock(dripSay(say, drip), task, min(answered, steps), steps, status, seed, ex, editFile)
			end()
			if opt["repaint"] == "1" {
				done := min(answered, steps)
				repaintOn(func() { printWorkerBlock(say, task, done, steps, status, seed, ex, editFile) })
			}
			if opt["lead"] == "1" && answered == 1 && !resumed {
				say("Team handoff written.\nCHECKPOINT COMPLETE\n")
			}
			if crash > 0 && answered == crash && !resumed {
				say("crashing now\n")
				return 1
			}
		}
	}
	if opt["ignore"] == "1" {
		for { // deaf to the quit keys and to SIGTERM
			time.Sleep(time.Hour)
		}
	}
	return 0
}

// taskOf returns the task id of a "Your task: T1 - title." line.
func taskOf(line string) string {
	f := strings.Fields(strings.TrimPrefix(line, "Your task:"))
	if len(f) == 0 {
		return ""
	}
	return strings.TrimSuffix(f[0], ".")
}

func printWorkerBlock(say func(string, ...any), task string, done, steps int, status string, seed bool, extra, files string) {
	var b strings.Builder
	fmt.Fprintf(&b, "CHECKPOINT: %s\nStatus: %s\nCompleted:\n", task, status)
	if done == 0 {
		b.WriteString("- read the task\n")
	}
	b.WriteString(stepLines(1, done))
	b.WriteString("Remaining:\n")
	if done >= steps {
		b.WriteString("- nothing\n")
	}
	b.WriteString(stepLines(done+1, steps))
	if files == "" {
		files = fmt.Sprintf("step%d.go", done)
	}
	fmt.Fprintf(&b, "Files Modified: %s\nEstimated Progress: %d%%\n", files, done*100/max(steps, 1))
	if status == "blocked" {
		b.WriteString("Blockers:\n- waiting for the API key\n")
	}
	if seed {
		fmt.Fprintf(&b, "Phase: build\nCurrent Step: step %d\nSubtasks:\n", min(done+1, steps))
		for i := 1; i <= steps; i++ {
			box := " "
			if i <= done {
				box = "x"
			}
			fmt.Fprintf(&b, "- [%s] step %d\n", box, i)
		}
		fmt.Fprintf(&b, "Files Created: new%d.go\nErrors:\n- step%d.go:3: undefined: x\nMood: steady\n", done, done)
	}
	b.WriteString(extra)
	fmt.Fprintf(&b, "Resume: continue with step %d\n\n", done+1)
	say("%s", b.String())
}

// briefSteps is brief=1: stepLines names a range on one line.
var briefSteps bool

// stepLines are the "- step N" lines from first to last (none when last
// is before first); one "- steps FIRST to LAST" line with brief=1.
func stepLines(first, last int) string {
	if last < first {
		return ""
	}
	if briefSteps {
		return fmt.Sprintf("- steps %d to %d\n", first, last)
	}
	var b strings.Builder
	for i := first; i <= last; i++ {
		fmt.Fprintf(&b, "- step %d\n", i)
	}
	return b.String()
}

// repaint is what SIGUSR1 prints (repaint=1): the last answer.
var repaint struct {
	sync.Mutex
	draw func()
	once sync.Once
}

// repaintOn makes draw the last answer SIGUSR1 prints again.
func repaintOn(draw func()) {
	repaint.Lock()
	repaint.draw = draw
	repaint.Unlock()
	repaint.once.Do(func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGUSR1)
		go func() {
			for range sig {
				repaint.Lock()
				repaint.draw()
				repaint.Unlock()
			}
		}()
	})
}
