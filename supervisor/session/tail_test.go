//go:build !e2e

package session

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Whatever the sizes of the writes, the ring keeps exactly the last bytes
// written, oldest first.
func TestTailRingKeepsTheLastBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{1, 7, 64} {
		r := tailRing{size: size}
		var all []byte
		for i := range 500 {
			p := make([]byte, rng.IntN(3*size))
			for j := range p {
				p[j] = byte(i + j)
			}
			r.Write(p)
			all = append(all, p...)
			want := all[max(0, len(all)-size):]
			if got := r.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("size %d, after %d writes (%d bytes): %v, want %v", size, i+1, len(all), got, want)
			}
		}
	}
	if got := (&tailRing{}).Bytes(); len(got) != 0 {
		t.Errorf("empty ring: %q", got)
	}
}
