package main

import (
	"fmt"
	"strings"
)

// block is one checkpoint a correct parser must extract, with exact values.
type block struct {
	TaskID          string   `json:"task_id"`
	Status          string   `json:"status"`
	Completed       []string `json:"completed"`
	Remaining       []string `json:"remaining"`
	FilesModified   []string `json:"files_modified"`
	ProgressPercent int      `json:"progress_percent"`
	Resume          string   `json:"resume"`
}

// taskID is the task every recording works on.
const taskID = "T060"

// checkpointRequest is what warden types to ask for a checkpoint.
const checkpointRequest = "CHECKPOINT REQUEST: " + taskID

// preamble is the first prompt: one line (so no LF submits it early) and
// under 1 KB (Gemini drops larger unbracketed writes). Its placeholders
// must never parse as a checkpoint.
const preamble = "You are supervised by warden. Your task is " + taskID + ": Convert Nature Trail PDFs to Markdown. " +
	"Whenever you receive a line CHECKPOINT REQUEST: <task>, reply with a block in exactly this form, " +
	"values filled in: CHECKPOINT: <task> / Status: implementing|testing|awaiting-verification|blocked|complete / " +
	"Completed: (list) / Remaining: (list) / Files Modified: a.go, b.go / Estimated Progress: [N]% / Resume: (how to go on). " +
	"Reply READY now."

// readyReply is the fake model's answer to the preamble.
const readyReply = "READY. I will answer each CHECKPOINT REQUEST with a checkpoint block."

// expected is the checkpoint the fake model sends. The first Completed
// item, Files Modified and Resume are longer than 80 columns, so the
// 80-column recording shows the CLI's own word wrap.
var expected = block{
	TaskID: taskID,
	Status: "implementing",
	Completed: []string{
		"Converted trail-01.pdf through trail-12.pdf to Markdown with headings, tables and figure captions kept",
		"Added a page count check to scripts/convert.sh",
	},
	Remaining: []string{
		"Convert trail-13.pdf through trail-20.pdf",
		"Proofread the species tables against the printed guide",
	},
	FilesModified:   []string{"docs/trails/trail-01.md", "docs/trails/trail-02.md", "docs/trails/index.md", "scripts/convert.sh"},
	ProgressPercent: 65,
	Resume:          "continue with trail-13.pdf, then run scripts/convert.sh --check on every converted file before committing",
}

// text renders a block in the DESIGN.md section 4 form.
func (b block) text() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "CHECKPOINT: %s\n", b.TaskID)
	fmt.Fprintf(&sb, "Status: %s\n", b.Status)
	sb.WriteString("Completed:\n")
	for _, c := range b.Completed {
		fmt.Fprintf(&sb, "- %s\n", c)
	}
	sb.WriteString("Remaining:\n")
	for _, r := range b.Remaining {
		fmt.Fprintf(&sb, "- %s\n", r)
	}
	fmt.Fprintf(&sb, "Files Modified: %s\n", strings.Join(b.FilesModified, ", "))
	fmt.Fprintf(&sb, "Estimated Progress: %d%%\n", b.ProgressPercent)
	fmt.Fprintf(&sb, "Resume: %s", b.Resume)
	return sb.String()
}
