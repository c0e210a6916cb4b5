//go:build !linux

package runner

// TreeRSS fails: it reads Linux's /proc.
func TreeRSS(roots []int) (map[int]int64, error) { return nil, errUnsupported }
