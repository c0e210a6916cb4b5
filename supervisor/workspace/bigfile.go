package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxFileSize is the largest file a commit of a task's work takes. A larger
// one (a model, a dump, a build's output the agent did not ignore) would
// make every commit of the task hash and compress it again — a 1.5 GB file
// took git past its timeout at every checkpoint, so nothing of the task was
// committed any more — and no git host takes it (GitHub refuses files over
// 100 MiB). It is left out of the commit, named in the commit's message and
// in a warning, and stays in the worktree.
const MaxFileSize = 100 << 20

// BigFile is a file left out of a commit.
type BigFile struct {
	Path string // relative to the worktree's top, as git names it
	Size int64
}

// bigFiles lists the files `git add -A` would take (untracked and not
// ignored, or tracked and changed) that are larger than MaxFileSize.
func (w Worktree) bigFiles(ctx context.Context, off []string) ([]BigFile, error) {
	out, err := w.run(ctx, off, "", "ls-files", "-z", "--others", "--modified", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var big []BigFile
	for _, p := range strings.Split(out, "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		fi, err := os.Lstat(filepath.Join(w.Path, filepath.FromSlash(p)))
		if err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileSize {
			big = append(big, BigFile{Path: p, Size: fi.Size()})
		}
	}
	sort.Slice(big, func(i, j int) bool { return big[i].Path < big[j].Path })
	return big, nil
}

// add stages everything changed in the worktree but the big files, which
// are excluded by literal pathspecs given on stdin (no length limit, no
// pattern in a file name read as one).
func (w Worktree) add(ctx context.Context, off []string, big []BigFile) error {
	if len(big) == 0 {
		_, err := w.retryLocked(ctx, off, "", "add", "-A")
		return err
	}
	var spec strings.Builder
	spec.WriteString(":/\x00")
	for _, f := range big {
		spec.WriteString(":(exclude,literal,top)" + f.Path + "\x00")
	}
	_, err := w.retryLocked(ctx, off, spec.String(), "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul")
	return err
}

// Size is n bytes as a person reads it: "1.4 GiB", "100 MiB", "12 KiB".
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB"}[i]
}
