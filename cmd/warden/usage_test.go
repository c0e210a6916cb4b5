//go:build !e2e

package main

import (
	"bytes"
	"testing"
)

func TestUnknownCommandIsUsageError(t *testing.T) {
	if code := realMain([]string{"frobnicate"}, new(bytes.Buffer), new(bytes.Buffer)); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}
