package usage

import (
	"fmt"
	"path"
	"sort"
)

// Price is one row of a [[price]] table: what a million tokens cost, in
// dollars, for the models whose name matches Model (a glob:
// "claude-sonnet-*"). CachedInput and CacheWrite default to Input when
// zero (set them: a provider's cache reads are usually far cheaper).
type Price struct {
	Model       string  `toml:"model" json:"model"`
	Input       float64 `toml:"input" json:"input"`
	CachedInput float64 `toml:"cached_input" json:"cached_input,omitempty"`
	CacheWrite  float64 `toml:"cache_write" json:"cache_write,omitempty"`
	Output      float64 `toml:"output" json:"output"`
}

// Prices is a [[price]] table; the first row whose glob matches a model
// prices it.
type Prices []Price

// Check reports a row whose glob is malformed or whose price is negative.
func (ps Prices) Check() error {
	for i, p := range ps {
		if _, err := path.Match(p.Model, ""); err != nil || p.Model == "" {
			return fmt.Errorf("price %d: model %q is not a glob", i+1, p.Model)
		}
		if p.Input < 0 || p.CachedInput < 0 || p.CacheWrite < 0 || p.Output < 0 {
			return fmt.Errorf("price %d (%s): a price is negative", i+1, p.Model)
		}
	}
	return nil
}

// For returns the row that prices model.
func (ps Prices) For(model string) (Price, bool) {
	for _, p := range ps {
		if ok, _ := path.Match(p.Model, model); ok {
			return p, true
		}
	}
	return Price{}, false
}

// Cost is what t costs at p: the uncached input at Input, the cached part
// at CachedInput, the cache-written part at CacheWrite, the output at
// Output, per million tokens.
func (p Price) Cost(t Tokens) float64 {
	cached, write := p.CachedInput, p.CacheWrite
	if cached == 0 {
		cached = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	plain := t.Input - t.CachedInput - t.CacheWrite
	return (float64(plain)*p.Input + float64(t.CachedInput)*cached + float64(t.CacheWrite)*write +
		float64(t.Output)*p.Output) / 1e6
}

// Cost prices a report's tokens model by model. Unpriced lists the models
// no row matched (their tokens are left out of dollars, never guessed).
func (ps Prices) Cost(r Report) (dollars float64, unpriced []string) {
	for model, t := range r.ByModel {
		p, ok := ps.For(model)
		if !ok {
			unpriced = append(unpriced, model)
			continue
		}
		dollars += p.Cost(t)
	}
	sort.Strings(unpriced)
	return dollars, unpriced
}
