package teamtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/testrig/realcli"
)

// RealCLI returns an installed agent CLI and holds one of the machine's
// real-CLI slots for t (realcli.Hold), or skips when it is not installed
// (`.ci/run` installs them, so in CI this never skips).
func RealCLI(t testing.TB, cli string) string {
	bin, err := realcli.Bin(cli)
	if err != nil {
		t.Skip(err)
	}
	realcli.Hold(t)
	return bin
}

// BuildWarden builds cmd/warden once per test binary, for the CLIs' hooks
// to run (`warden hook KIND`) as WARDEN_BIN.
var BuildWarden = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "warden-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "warden")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/wardenhq/warden/cmd/warden").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// Seed prepares home for cli (testrig/realcli) and returns its environment
// as a team file's env table.
func Seed(t testing.TB, cli, home, project, url string) map[string]string {
	entries, err := realcli.Seed(cli, home, project, url)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range entries {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}
