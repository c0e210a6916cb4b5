//go:build !e2e

package fakeagent

import "testing"

func TestRegisterRejectsDuplicates(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering \"exit\" twice did not panic")
		}
	}()
	Register("exit", func([]string) int { return 0 })
}
