//go:build !e2e

package holder

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The ring keeps the newest bytes, oldest first, and counts every byte it
// dropped: what it holds plus what it dropped is what was written.
func TestRingKeepsTheTailAndCountsTheDropped(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 7, 64, 1000} {
		r := newRing(size)
		var all []byte
		for round := 0; round < 200; round++ {
			b := make([]byte, rng.IntN(3*size+1))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			r.write(b)
			all = append(all, b...)
			if cap(r.buf) > size {
				t.Fatalf("size %d: the buffer grew to %d", size, cap(r.buf))
			}
			if round%17 == 16 {
				got, dropped := r.take()
				want := all[max(0, len(all)-size):]
				if !bytes.Equal(got, want) {
					t.Fatalf("size %d round %d: took %d bytes, want the last %d written", size, round, len(got), len(want))
				}
				if dropped != int64(len(all)-len(want)) {
					t.Fatalf("size %d round %d: dropped %d, want %d", size, round, dropped, len(all)-len(want))
				}
				if r.len() != 0 {
					t.Fatalf("size %d: %d bytes left after take", size, r.len())
				}
				all = nil
			}
		}
	}
}

func TestRingUnderItsSizeDropsNothing(t *testing.T) {
	r := newRing(16)
	r.write([]byte("hello "))
	r.write([]byte("world"))
	got, dropped := r.take()
	if string(got) != "hello world" || dropped != 0 {
		t.Fatalf("take = %q, %d; want %q, 0", got, dropped, "hello world")
	}
}
