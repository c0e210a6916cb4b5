package fakeagent

import (
	"os"
	"path/filepath"
	"strings"
)

// resolveMarkers resolves every conflict git's merge left in the files
// under dir (not in .git) the way a person keeping both sides' work does:
// the marker lines go, both sides' lines stay, ours first.
func resolveMarkers(dir string) {
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), "<<<<<<< ") {
			return nil
		}
		var kept []string
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") ||
				strings.HasPrefix(line, "||||||| ") || strings.TrimRight(line, "\n") == "=======" {
				continue
			}
			kept = append(kept, line)
		}
		os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
		return nil
	})
}
