//go:build !e2e

package pace

import (
	"testing"
	"time"
)

func TestBucketBurstThenPace(t *testing.T) {
	b := New(3, 100*time.Millisecond)
	t0 := time.Unix(1000, 0)
	for i := 0; i < 3; i++ {
		if ok, _ := b.Take(t0); !ok {
			t.Fatalf("take %d of the burst refused", i+1)
		}
	}
	ok, next := b.Take(t0.Add(10 * time.Millisecond))
	if ok || !next.Equal(t0.Add(100*time.Millisecond)) {
		t.Fatalf("an empty bucket: %v, next %v; want refused until +100ms", ok, next.Sub(t0))
	}
	if ok, _ := b.Take(t0.Add(100 * time.Millisecond)); !ok {
		t.Fatal("one token per 100ms: refused at +100ms")
	}
	if ok, _ := b.Take(t0.Add(150 * time.Millisecond)); ok {
		t.Fatal("a second token at +150ms")
	}
	// A long quiet refills the bucket, never beyond its burst.
	later := t0.Add(time.Hour)
	n := 0
	for {
		if ok, _ := b.Take(later); !ok {
			break
		}
		n++
	}
	if n != 3 {
		t.Fatalf("after an hour %d tokens, want the burst of 3", n)
	}
}
