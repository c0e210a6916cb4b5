package fakeagent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitattack: a hostile agent that, at the start of its first session, plants
// an attack on warden's git in its working directory (a task's worktree),
// then works as "worker" does with the remaining key=value parameters:
//
//	gitattack:plant=KIND:marker=FILE:target=DIR:driver=NAME:once=FILE:steps=3:…
//
//	plant=fsmonitor   replace the worktree's .git file by a repository of
//	                  its own, on the same branch, whose core.fsmonitor is a
//	                  script that appends a line to marker
//	plant=filter      the same with a clean and smudge filter (and a
//	                  .gitattributes choosing it for every file) as the script
//	plant=attributes  only a .gitattributes choosing the filter driver NAME
//	                  for every file: a driver the user's configuration
//	                  defines (git-lfs's, say)
//	plant=gitdir      point .git at target, another repository, whose HEAD
//	                  it puts on a branch of the worktree's branch's name
//	plant=symlink     replace the worktree by a symbolic link to target (the
//	                  user's checkout), then exit 3
//	plant=delete      delete the worktree, then exit 3
//	plant=bigfile     write big.bin, a sparse file of 1.5 GiB (no room on
//	                  disk; git would read and hash it all)
//	once=FILE         plant only when FILE does not exist (and create it):
//	                  later sessions just work
//
// The script it plants (marker + ".sh") copies its input to its output, as a
// filter must, so a git that runs it goes on working.
func init() { Register("gitattack", modeGitAttack) }

func modeGitAttack(args []string) int {
	opt := map[string]string{}
	var rest []string
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "plant", "marker", "target", "driver", "once":
			opt[k] = v
		default:
			rest = append(rest, a)
		}
	}
	if once := opt["once"]; once != "" {
		if _, err := os.Stat(once); err == nil {
			return modeWorker(rest)
		}
		if err := os.WriteFile(once, []byte("planted\n"), 0o600); err != nil {
			return fail("once: %v", err)
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail("getwd: %v", err)
	}
	switch opt["plant"] {
	case "fsmonitor", "filter":
		err = ownRepository(cwd, opt["plant"], opt["marker"])
	case "attributes":
		err = os.WriteFile(filepath.Join(cwd, ".gitattributes"), []byte("* filter="+opt["driver"]+"\n"), 0o644)
	case "gitdir":
		err = redirect(cwd, opt["target"])
	case "bigfile":
		err = os.WriteFile(filepath.Join(cwd, "big.bin"), nil, 0o644)
		if err == nil {
			err = os.Truncate(filepath.Join(cwd, "big.bin"), 1536<<20)
		}
	case "symlink", "delete":
		if err := os.RemoveAll(cwd); err != nil {
			return fail("removing %s: %v", cwd, err)
		}
		if opt["plant"] == "symlink" {
			if err := os.Symlink(opt["target"], cwd); err != nil {
				return fail("symlink: %v", err)
			}
		}
		fmt.Printf("planted %s, exiting\n", opt["plant"])
		return 3
	default:
		return fail("unknown plant %q", opt["plant"])
	}
	if err != nil {
		return fail("planting %s: %v", opt["plant"], err)
	}
	fmt.Printf("planted %s\n", opt["plant"])
	return modeWorker(rest)
}

func fail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "fakeagent gitattack: "+format+"\n", a...)
	return 1
}

// agentGit runs git as the agent would, in dir.
func agentGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// ownRepository replaces dir's .git file by a repository of the agent's own
// on the same branch, configured to run the marker script.
func ownRepository(dir, kind, marker string) error {
	branch, err := agentGit(dir, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return err
	}
	script := marker + ".sh"
	body := "#!/bin/sh\necho \"" + kind + " ran: $*\" >> '" + marker + "'\nexec cat\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, ".git")); err != nil {
		return err
	}
	if _, err := agentGit(dir, "init", "-q", "-b", branch); err != nil {
		return err
	}
	keys := [][2]string{{"core.fsmonitor", script}}
	if kind == "filter" {
		keys = [][2]string{{"filter.own.clean", script}, {"filter.own.smudge", script}, {"filter.own.required", "true"}}
		if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=own\n"), 0o644); err != nil {
			return err
		}
	}
	for _, kv := range keys {
		if _, err := agentGit(dir, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	_, err = agentGit(dir, "-c", "core.fsmonitor=false", "-c", "user.name=agent", "-c", "user.email=agent@example.com",
		"commit", "-q", "--allow-empty", "-m", "the agent's own")
	return err
}

// redirect points dir's .git at another repository, target, whose HEAD it
// puts on the worktree's branch's name.
func redirect(dir, target string) error {
	branch, err := agentGit(dir, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return err
	}
	if _, err := agentGit(target, "branch", "-f", branch, "HEAD"); err != nil {
		return err
	}
	if _, err := agentGit(target, "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+filepath.Join(target, ".git")+"\n"), 0o644)
}
