package webpage

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/safefile"
)

// TokenFileName is the file in the state dir that holds the page's token
// when warden made it up: 0600, like every state file, so only the user
// (and what runs as the user) reads it — never stdout, a log or argv.
const TokenFileName = "page-token"

// minTokenLen is the shortest token accepted from a person.
const minTokenLen = 16

// NewToken returns a fresh random token (128 bits, hex).
func NewToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// CheckToken says what is wrong with a token a person gave, or nil: it must
// be at least 16 characters of letters, digits and -._~+/= (so that it
// travels as is in a header, a URL and a cookie).
func CheckToken(tok string) error {
	if len(tok) < minTokenLen {
		return fmt.Errorf("the page's token is %d characters: it needs at least %d (make one with `openssl rand -hex 16`)", len(tok), minTokenLen)
	}
	for _, r := range tok {
		if !tokenRune(r) {
			return errors.New("the page's token holds a character other than letters, digits and -._~+/=")
		}
	}
	return nil
}

func tokenRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/=", r)
}

// ReadTokenFile reads a token from the file a person named (--http-token-
// file): its first line, spaces around it dropped. A secret mounted by a
// scheduler is a symbolic link into its own directory, so links are
// followed here, unlike in the state dir.
func ReadTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("the page's token file: %w", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if err := CheckToken(tok); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return tok, nil
}

// StateToken returns the token in stateDir's page-token file, making one
// up and writing it there (0600) when there is none or what is there is not
// a token: a page beside the team (warden serve) and the team's own (run
// --http) share it, and a person's cookie outlives a restart. Remove the
// file for a new token at the next start. The state dir must exist.
func StateToken(stateDir string) (tok, path string, err error) {
	path = filepath.Join(stateDir, TokenFileName)
	b, err := safefile.ReadFile(path)
	switch {
	case err == nil:
		if tok := strings.TrimSpace(string(b)); CheckToken(tok) == nil {
			return tok, path, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", path, fmt.Errorf("the page's token: %w", err)
	}
	if fi, err := os.Stat(stateDir); err != nil || !fi.IsDir() {
		return "", path, fmt.Errorf("the page needs a token and the state dir %s that would hold it is not there yet: "+
			"start the team first, or give one (--http-token-file FILE or WARDEN_HTTP_TOKEN)", stateDir)
	}
	tok = NewToken()
	if err := safefile.WriteAtomic(stateDir, path, []byte(tok+"\n")); err != nil {
		return "", path, fmt.Errorf("the page's token: %w", err)
	}
	return tok, path, nil
}
