package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/protocol"
)

// Info reads the branch and head commit of the work tree holding dir
// straight from .git (no subprocess on the checkpoint path); nil when dir is
// not in a git work tree.
func Info(dir string) *protocol.Git {
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return nil
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return nil
	}
	h := strings.TrimSpace(string(head))
	ref, isRef := strings.CutPrefix(h, "ref: ")
	if !isRef {
		return &protocol.Git{Branch: "HEAD", Head: h} // detached
	}
	return &protocol.Git{Branch: strings.TrimPrefix(ref, "refs/heads/"), Head: resolveRef(gitDir, ref)}
}

// findGitDir walks up from dir to the .git directory (or the directory a
// .git file points to, for worktrees and submodules).
func findGitDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil && fi.IsDir() {
			return p
		}
		if err == nil {
			b, err := os.ReadFile(p)
			if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
				if !filepath.IsAbs(rest) {
					rest = filepath.Join(d, rest)
				}
				return rest
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// resolveRef returns the commit a ref names: a loose ref file, else
// packed-refs (a worktree's refs live in the common dir).
func resolveRef(gitDir, ref string) string {
	dirs := []string{gitDir}
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, ref)); err == nil {
			return strings.TrimSpace(string(b))
		}
		f, err := os.Open(filepath.Join(d, "packed-refs"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if sha, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
				f.Close()
				return sha
			}
		}
		f.Close()
	}
	return ""
}

// BranchExists reports whether the work tree at dir has branch, reading .git
// without a subprocess (Repo.BranchExists asks git).
func BranchExists(dir, branch string) bool {
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return false
	}
	if resolveRef(gitDir, "refs/heads/"+branch) != "" {
		return true
	}
	packed, _ := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	return strings.Contains(string(packed), " refs/heads/"+branch+"\n")
}
