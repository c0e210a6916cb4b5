package hold

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
)

// Claim marks the holder's agent id as this warden's, to be taken back
// (Take) or dropped (Drop): StopLive leaves it alone.
func (h *Hold) Claim(id string) {
	h.mu.Lock()
	h.claimed[id] = true
	h.mu.Unlock()
}

// Take takes a claimed agent back: the holder hands over its master with
// what it read while no warden did, which goes to cfg.Output and the log
// first; from there the Process is one Start made. An agent that exited
// meanwhile gives its last output and its exit at once.
func (h *Hold) Take(log hclog.Logger, cfg runner.Config, id string) (*runner.Process, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	ads, err := h.client.Adopt(ctx, id)
	if err == nil && len(ads) != 1 {
		err = fmt.Errorf("%d agents handed over, not 1", len(ads))
	}
	if err != nil {
		for _, ad := range ads {
			if ad.Master != nil {
				_ = ad.Master.Close()
			}
		}
		h.stop(id)
		return nil, fmt.Errorf("take %s back from the holder: %w", cfg.Name, err)
	}
	ad := ads[0]
	if ad.Dropped > 0 {
		log.Warn("the holder dropped output while no warden read it", "bytes", ad.Dropped)
	}
	log.Info("taken back from the holder", "pid", ad.Agent.Pid, "buffered", len(ad.Output), "exited", ad.Agent.Exit != nil)
	return h.attach(log, cfg, ad)
}

// Drop ends a claimed agent that is not taken back.
func (h *Hold) Drop(id string) { h.stop(id) }
