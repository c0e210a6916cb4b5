//go:build !e2e

package main

import (
	"strings"
	"testing"
)

func TestProbeScanFindsTheProbeSplitAcrossReads(t *testing.T) {
	stream := "\x1b[?25l" + osc7501Probe + "text" + osc7501Probe + "\x1b]7501;state=idle\x07"
	for _, size := range []int{1, 2, 5, 7, len(stream)} {
		var ps probeScan
		total := 0
		for i := 0; i < len(stream); i += size {
			total += ps.scan([]byte(stream[i:min(i+size, len(stream))]))
		}
		if total != 2 {
			t.Errorf("reads of %d bytes: found %d probes, want 2", size, total)
		}
	}
	var ps probeScan
	if n := ps.scan([]byte(osc7501Reply)); n != 0 {
		t.Errorf("a reply (ST-terminated) counted as a probe")
	}
}

func TestScanOSCListsTitlesAndStatusOnce(t *testing.T) {
	raw := "\x1b]0;⠙ project\x07x\x1b]0;⠹ project\x07\x1b]0;⠸ project\x07" +
		"\x1b]7501;state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBCYXNoOiBscw==\x07" +
		"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\" + // hyperlinks are not listed
		"\x1b]7501;state=blocked:app=codex:kind=permission\x1b\\\x1b]0;[ ! ] Action Required\x07"
	marks := []mark{{Offset: 20, AtMS: 5}, {Offset: len(raw), AtMS: 9}}
	got := scanOSC([]byte(raw), marks)
	var lines []string
	for _, o := range got {
		lines = append(lines, o.Code+"|"+o.Text+"|"+o.Message+"|"+o.Terminator+"|"+string(rune('0'+o.Repeats)))
	}
	want := []string{
		"0|⠙ project||BEL|2",
		"7501|state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBCYXNoOiBscw==|approve Bash: ls|BEL|0",
		"7501|state=blocked:app=codex:kind=permission||ST|0",
		"0|[ ! ] Action Required||BEL|0",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("scanOSC =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got[0].Offset != 0 || got[0].AtMS != 5 || got[len(got)-1].AtMS != 9 {
		t.Errorf("offsets and times: %+v", got)
	}
}

func TestStatusMessageAndSpinner(t *testing.T) {
	if got := statusMessage("state=blocked:app=claude-code:msg=ZGlhbG9nIG9wZW4="); got != "dialog open" {
		t.Errorf("statusMessage = %q", got)
	}
	if got := statusMessage("state=blocked:msg=not*b64"); got != "(not base64) not*b64" {
		t.Errorf("statusMessage of bad base64 = %q", got)
	}
	if unspun("⠙ fake | project") != unspun("⠸ fake | project") || unspun("[ ! ] x") == unspun("[ . ] x") {
		t.Error("unspun does not tell spinner frames from titles")
	}
}
