package fakeagent

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// EnvAnswerLog names a file (outside warden's state dir) where the
// answering modes — worker, answer, tui-answer — log every answer they
// emit, the ground truth a test compares warden's records with. Each
// answer then carries one more line, "Answer: PID.N" (N counts the
// process's answers from 1; a record keeps it in its extra fields), and
// the file gets two lines:
//
//	begin PID.N TASK UNIXNANO   before its first byte is written
//	end PID.N TASK UNIXNANO     after its last byte is written
//
// An answer with a begin and no end was cut off (its process ended while
// it wrote it). Drawing an answer again (worker's repaint=1) logs nothing:
// it is the same answer. Unset, nothing changes.
const EnvAnswerLog = "WARDEN_FAKE_ANSWER_LOG"

// AnswerKey is the key of the line the answers carry under EnvAnswerLog.
const AnswerKey = "Answer"

var answers struct {
	sync.Mutex
	n int
}

// answerBegin starts an answer for task: line is the "Answer: PID.N" line
// to add to it ("" when EnvAnswerLog is unset), and end is to be called once
// its last byte is written.
func answerBegin(task string) (line string, end func()) {
	path := os.Getenv(EnvAnswerLog)
	if path == "" {
		return "", func() {}
	}
	answers.Lock()
	answers.n++
	id := fmt.Sprintf("%d.%d", os.Getpid(), answers.n)
	answers.Unlock()
	logAnswer(path, "begin", id, task)
	return AnswerKey + ": " + id, func() { logAnswer(path, "end", id, task) }
}

// logAnswer appends one line to the answer log: one write of a few bytes
// to a file opened for appending, so the lines of many agents never mix.
func logAnswer(path, what, id, task string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: answer log:", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s %s %d\n", what, id, task, time.Now().UnixNano())
}

// loggedBlock is AnswerBlock(task, n) begun as an answer (answerBegin):
// with its Answer line, and the end to call once it is written.
func loggedBlock(task string, n int) ([]string, func()) {
	block := AnswerBlock(task, n)
	line, end := answerBegin(task)
	if line != "" {
		block = append(block, line)
	}
	return block, end
}

// workerAnswer begins an answer for task (answerBegin): extra with its
// Answer line, and the end to call once it is written.
func workerAnswer(task, extra string) (string, func()) {
	line, end := answerBegin(task)
	if line != "" {
		extra += line + "\n"
	}
	return extra, end
}

// dripSay is say writing what it is given a line at a time, d apart (an
// answer that takes a while to write); d 0 is say itself.
func dripSay(say func(string, ...any), d time.Duration) func(string, ...any) {
	if d <= 0 {
		return say
	}
	return func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		for i, l := range strings.SplitAfter(s, "\n") {
			if l == "" {
				continue
			}
			if i > 0 {
				time.Sleep(d)
			}
			say("%s", l)
		}
	}
}
