package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// cmdVersion prints warden's version: the module version from the build
// info ("(devel)" for a build from a checkout), the commit it was built
// from and whether the tree had changes, and the Go version.
func cmdVersion(stdout io.Writer) error {
	fmt.Fprintln(stdout, versionLine())
	return nil
}

func versionLine() string {
	version, commit, modified, at := "(devel)", "", false, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" {
			version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				at = s.Value
			}
		}
	}
	line := "warden " + version
	if commit != "" {
		line += " commit " + commit
		if modified {
			line += " (modified)"
		}
		if at != "" {
			line += " " + at
		}
	}
	return line + " " + runtime.Version()
}
