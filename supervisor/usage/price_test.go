//go:build !e2e

package usage

import (
	"math"
	"testing"
)

func TestPricesCostEachModelByItsRow(t *testing.T) {
	ps := Prices{
		{Model: "claude-sonnet-*", Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
		{Model: "gpt-6*", Input: 1.25, Output: 10},
	}
	if err := ps.Check(); err != nil {
		t.Fatal(err)
	}
	rep := Report{ByModel: map[string]Tokens{
		"claude-sonnet-5-5": {Input: 1_000_000, CachedInput: 600_000, CacheWrite: 100_000, Output: 10_000},
		"gpt-6-luna":        {Input: 2_000_000, CachedInput: 1_000_000, Output: 100_000},
		"gemini-3.8-flash":  {Input: 5, Output: 5},
	}}
	dollars, unpriced := ps.Cost(rep)
	// Sonnet: 0.3M plain at 3 + 0.6M cached at 0.3 + 0.1M written at 3.75 + 0.01M out at 15;
	// gpt-6-luna: cached input defaults to the input price: 2M at 1.25 + 0.1M at 10.
	want := 0.9 + 0.18 + 0.375 + 0.15 + 2.5 + 1.0
	if math.Abs(dollars-want) > 1e-9 || len(unpriced) != 1 || unpriced[0] != "gemini-3.8-flash" {
		t.Errorf("cost %v (want %v), unpriced %v", dollars, want, unpriced)
	}
	if err := (Prices{{Model: "[", Input: 1}}).Check(); err == nil {
		t.Error("a malformed glob passed the check")
	}
	if err := (Prices{{Model: "x", Output: -1}}).Check(); err == nil {
		t.Error("a negative price passed the check")
	}
}
