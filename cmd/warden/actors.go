package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/webpage"
)

// addTeamActor adds the team: it returns when every agent is done for good,
// or the team was stopped; its result lands in *result. Another actor that
// fails (an edge) stops it cleanly for that error (Team.Fail: a team
// checkpoint, then exit 1).
func addTeamActor(g *run.Group, team *supervisor.Team, result *supervisor.Result) {
	g.Add(func() error {
		*result = team.Run()
		return nil
	}, func(err error) {
		if err != nil {
			team.Fail(err)
			return
		}
		team.Stop(true)
	})
}

// addEdgeActor adds one of the team's edges (supervisor.Edge): it holds
// until the group ends, or fails — then the group ends with its error.
func addEdgeActor(g *run.Group, e *supervisor.Edge) {
	ctx, cancel := context.WithCancel(context.Background())
	g.Add(func() error { return e.Run(ctx) }, func(error) { cancel() })
}

// addPageActor serves the dashboard page while the team runs.
func addPageActor(g *run.Group, srv *webpage.Server) {
	ctx, cancel := context.WithCancel(context.Background())
	g.Add(func() error {
		err := srv.Serve(ctx)
		<-ctx.Done() // a page that failed never ends the team
		return err
	}, func(error) { cancel() })
}

// addSignalActor adds the signal handler: the first INT, TERM or HUP stops
// the team cleanly (a team checkpoint), a second forces — a second
// request, that is: signals within supervisor.SignalWindow of the first
// are that one again (a terminal's Ctrl-C and the copy a wrapper such as
// `timeout` forwards; supervisor.StopSignals). The registration lives
// until the team is done, so a second Ctrl-C reaches warden instead of
// killing it and orphaning the agents. onWinch, when set, gets SIGWINCH.
func addSignalActor(g *run.Group, logger hclog.Logger, team *supervisor.Team, onWinch func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if onWinch != nil {
		signal.Notify(sigs, syscall.SIGWINCH)
	}
	done := make(chan struct{})
	g.Add(func() error {
		defer signal.Stop(sigs)
		stops := supervisor.NewStopSignals(clock.Real{})
		for {
			select {
			case sig := <-sigs:
				if sig == syscall.SIGWINCH {
					onWinch()
					continue
				}
				switch stops.Take() {
				case supervisor.StopClean:
					logger.Warn("received signal, stopping the team", "signal", sig.String())
					team.Stop(true)
				case supervisor.StopSame:
					logger.Info("signal again within a second of the first: the same stop, not a second one", "signal", sig.String(),
						"window", supervisor.SignalWindow)
				case supervisor.StopForce:
					logger.Warn("received second signal, forcing", "signal", sig.String())
					team.Force()
				}
			case <-done:
				return nil
			}
		}
	}, func(error) {
		close(done)
	})
}
