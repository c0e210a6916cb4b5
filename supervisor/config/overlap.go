package config

// Values of on_overlap: what warden does when two open tasks' latest
// records name a common file (issue 37).
const (
	// OverlapWarn: overlap and a WARNING line; both tasks go on.
	OverlapWarn = "warn"
	// OverlapSerialize: the same, and the later task (whose record named
	// the path second) is held until the first completes or fails.
	OverlapSerialize = "serialize"
	DefaultOnOverlap = OverlapWarn
)
