//go:build e2e

package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
	"github.com/wardenhq/warden/testrig/realcli"
)

// BenchmarkRealCLITakeBack is issue 36's figure with the real CLIs: each
// one the only agent of a held team (holder = true), offline against a fake
// provider whose model takes 3 s to answer a checkpoint request; N times,
// with a request in the model, warden is killed with -9 and run again at
// once. Per CLI: ms from the new warden's start to its agent_started
// {taken_back: true} (min, median, max), answers in flight recorded exactly
// once, restarts, and requests typed again (by warden, or reaching the
// model more often than typed). A CLI not installed is skipped.
//
//	WARDEN_TAKEBACK_CLIS=claude,codex WARDEN_TAKEBACK_N=10 \
//	  go test -tags e2e -run '^$' -bench BenchmarkRealCLITakeBack -benchtime 1x ./cmd/warden/
func BenchmarkRealCLITakeBack(b *testing.B) {
	clis := realCLIs
	if s := os.Getenv("WARDEN_TAKEBACK_CLIS"); s != "" {
		clis = strings.Split(s, ",")
	}
	rounds := 10
	if n, err := strconv.Atoi(os.Getenv("WARDEN_TAKEBACK_N")); err == nil && n > 0 {
		rounds = n
	}
	for _, cli := range clis {
		b.Run(cli, func(b *testing.B) {
			bin, err := realcli.Bin(cli)
			if err != nil {
				b.Skip(err)
			}
			realcli.Hold(b)
			for range b.N {
				takeBackRounds(b, cli, bin, rounds)
			}
		})
	}
}

func takeBackRounds(b *testing.B, cli, bin string, rounds int) {
	defer proctest.AssertNone(b)
	h := startHeldCLI(b, cli, bin, 3*time.Second)
	defer h.stop(b)
	var ms []float64
	var all []takeBack
	bad := 0
	for i := range rounds {
		wait := 30 * time.Second
		if i == 0 {
			wait = 150 * time.Second // the CLI's start on a loaded machine
		}
		r := h.round(b, wait)
		ms, all = append(ms, r.ms), append(all, r)
		if !r.samePid || !r.firstLine {
			bad++
			b.Errorf("%s round %d: %+v (want the same pid, taken back, and the first line saying so)", cli, i+1, r)
		}
		b.Logf("%s round %d: taken back in %.0f ms, answer %d%% in flight", cli, i+1, r.ms, r.inFlight)
	}
	records, restarts, retyped, rejected := h.stop(b)
	once := 0
	for _, r := range all {
		restarts += r.restarts
		retyped += r.retyped
		if records[r.inFlight] == 1 {
			once++
		} else {
			b.Errorf("%s: the answer in flight %d%% recorded %d times", cli, r.inFlight, records[r.inFlight])
		}
	}
	for p, n := range records {
		if n != 1 {
			b.Errorf("%s: the answer %d%% recorded %d times:\n%s", cli, p, n,
				h.said(fmt.Sprintf("(%d%%)", p), fmt.Sprintf("progress=%d", p), "taken back", "checkpoint requested"))
		}
	}
	if restarts != 0 || retyped != 0 || rejected != 0 {
		b.Errorf("%s: %d restarts, %d requests typed again, %d rejections:\n%s", cli, restarts, retyped, rejected,
			h.said("rejected", "drawn again", "checkpoint requested", "  | "))
	}
	slices.Sort(ms)
	b.ReportMetric(float64(rounds), "n")
	b.ReportMetric(ms[0], "ms-min")
	b.ReportMetric(ms[len(ms)/2], "ms-median")
	b.ReportMetric(ms[len(ms)-1], "ms-max")
	b.ReportMetric(float64(once), "recorded-once")
	b.ReportMetric(float64(bad), "not-taken-back")
	b.ReportMetric(float64(restarts), "restarts")
	b.ReportMetric(float64(retyped), "retyped")
	b.ReportMetric(float64(rejected), "rejected")
}
