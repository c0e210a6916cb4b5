//go:build e2e

package fakeagent

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

func TestModesRunInTheTestBinary(t *testing.T) {
	for _, c := range []struct {
		mode, out string
		code      int
	}{
		{"exit:3", "exiting with code 3\n", 3},
		{"lines:2", "line 1\nline 2\n", 0},
		{"partial:a:b", "a:b", 0},
		{"crash:1ms:4", "running\ncrashing\n", 4},
		{"no-such-mode", "", 97},
	} {
		out, code := runMode(t, c.mode)
		if out != c.out || code != c.code {
			t.Errorf("%s: %q exit %d, want %q exit %d", c.mode, out, code, c.out, c.code)
		}
	}
}

func runMode(t *testing.T, mode string) (string, int) {
	t.Helper()
	argv := Command(mode)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), Env(mode)...)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}
