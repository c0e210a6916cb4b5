package usage

import "github.com/wardenhq/warden/protocol"

// Figure is a session's usage as its record carries it: the report's
// tokens, and dollars — the CLI's own price of the session when it gave one
// (cli not nil: Claude Code's status line), else the price table's, the
// models no row prices listed as unpriced (their tokens are in no dollar).
func Figure(r Report, cli *float64, ps Prices) protocol.Usage {
	u := protocol.Usage{Tokens: r.Tokens}
	switch {
	case cli != nil:
		c := *cli
		u.CostUSD, u.CostFrom = &c, protocol.CostFromCLI
	case r.Tokens == (Tokens{}):
	default:
		dollars, unpriced := ps.Cost(r)
		if len(unpriced) < len(r.ByModel) {
			u.CostUSD, u.CostFrom = &dollars, protocol.CostFromPrice
		}
		for i, m := range unpriced {
			if m == "" {
				unpriced[i] = "(no model named)"
			}
		}
		u.Unpriced = unpriced
	}
	return u
}
