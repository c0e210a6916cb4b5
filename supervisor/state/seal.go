package state

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
)

// Seals (issue 33). Every record warden writes carries a MAC, "record:HEX";
// the archive it makes when a task's verify passed carries "complete:HEX":
// HMAC-SHA256, with the key LoadKey keeps outside the state dir, over the
// seal's purpose and the record's canonical bytes (every other field, as
// encoding/json writes them after one round trip). An agent that can write
// the state dir but not read the key cannot make either: a record it
// forged or edited (a byte of it), or a record copied to an archive's name,
// is not warden's — never a completion, never a point to resume from.
const (
	// SealRecord: a record warden made (a checkpoint, a dispatch, a
	// spooled answer).
	SealRecord = "record"
	// SealComplete: the archive warden made when the task's verify passed
	// (or it had none): the one proof a task is complete.
	SealComplete = "complete"
)

// sealDomain separates warden's record MACs from any other use of a key.
const sealDomain = "warden checkpoint record v1\x00"

// sealer computes and checks seals with one key.
type sealer struct{ key []byte }

// canonical is the bytes of cp a seal covers: its fields but the seal, as
// encoding/json writes them once read back (invalid UTF-8 becomes U+FFFD,
// a record without a version version 1), so that the record read from its
// file gives the bytes the record saved gave.
func canonical(cp *protocol.Checkpoint) ([]byte, error) {
	c := *cp
	c.Mac = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	var back protocol.Checkpoint
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, err
	}
	back.Mac = ""
	return json.Marshal(&back)
}

// seal is cp's seal for purpose.
func (k *sealer) seal(cp *protocol.Checkpoint, purpose string) (string, error) {
	b, err := canonical(cp)
	if err != nil {
		return "", fmt.Errorf("seal checkpoint: %w", err)
	}
	return purpose + ":" + hex.EncodeToString(k.sum(purpose, b)), nil
}

func (k *sealer) sum(purpose string, b []byte) []byte {
	h := hmac.New(sha256.New, k.key)
	h.Write([]byte(sealDomain + purpose + "\x00"))
	h.Write(b)
	return h.Sum(nil)
}

// Why a record is not warden's.
var (
	errNoSeal  = errors.New("it carries no seal of warden's")
	errBadSeal = errors.New("its seal does not match its contents (changed since warden wrote it, or made elsewhere)")
)

// check returns the purpose of cp's seal when it is warden's, or why not.
func (k *sealer) check(cp *protocol.Checkpoint) (string, error) {
	if cp.Mac == "" {
		return "", errNoSeal
	}
	purpose, sum, ok := strings.Cut(cp.Mac, ":")
	if !ok || (purpose != SealRecord && purpose != SealComplete) {
		return "", errBadSeal
	}
	got, err := hex.DecodeString(sum)
	if err != nil {
		return "", errBadSeal
	}
	b, err := canonical(cp)
	if err != nil {
		return "", errBadSeal
	}
	if !hmac.Equal(got, k.sum(purpose, b)) {
		return "", errBadSeal
	}
	return purpose, nil
}

// trust is what a record read from the state dir may be used for.
type trust int

const (
	// untrusted: not warden's (no seal in a run warden seals, a seal that
	// does not match): never read as a record.
	untrusted trust = iota
	// legacy: no seal, of a run no warden that seals has written (an older
	// warden's), or any record of a store without a key: a point to resume
	// from, never by its seal a completion.
	legacy
	// sealedRecord: a record warden sealed.
	sealedRecord
	// sealedComplete: the archive of a verified task warden sealed.
	sealedComplete
)

// SetKey makes the store seal every record it writes with key, and trust
// a record it reads only on its seal (issue 33): see trustOf. Call it before
// the store is used; a store without a key seals nothing and trusts every
// record, as warden did before seals.
func (s *Store) SetKey(key []byte) {
	s.sealer = &sealer{key: key}
	if s.hist != nil {
		s.hist.trust = s.trustOf
	}
}

// Sealing reports whether the store seals its records.
func (s *Store) Sealing() bool { return s.sealer != nil }

// sealAs sets cp's seal for purpose (nothing without a key).
func (s *Store) sealAs(cp *protocol.Checkpoint, purpose string) error {
	if s.sealer == nil {
		return nil
	}
	mac, err := s.sealer.seal(cp, purpose)
	if err != nil {
		return err
	}
	cp.Mac = mac
	s.markSealed(cp.RunID)
	return nil
}

// trustOf judges cp, read from file (a name for the report): a store
// without a key trusts it as before seals (legacy); with one, a record is
// warden's when its seal matches, an older warden's when it has none and
// its run has no sealed record, and otherwise not warden's — reported once
// through OnUntrusted.
func (s *Store) trustOf(file string, cp *protocol.Checkpoint) trust {
	if s.sealer == nil {
		return legacy
	}
	purpose, err := s.sealer.check(cp)
	switch {
	case err == nil && purpose == SealComplete:
		return sealedComplete
	case err == nil:
		return sealedRecord
	case errors.Is(err, errNoSeal) && !s.runSealed(cp.RunID):
		return legacy
	}
	s.untrusted(file, cp, err)
	return untrusted
}

// untrusted reports a record that is not warden's, once per file and
// contents, when someone listens (OnUntrusted).
func (s *Store) untrusted(file string, cp *protocol.Checkpoint, why error) {
	if s.OnUntrusted == nil {
		return
	}
	rel, err := filepath.Rel(s.dir, file)
	if err != nil || !filepath.IsLocal(rel) {
		rel = filepath.Base(file)
	}
	b, _ := json.Marshal(cp)
	sum := sha256.Sum256(b)
	key := rel + "\x00" + hex.EncodeToString(sum[:])
	s.sealMu.Lock()
	if s.reported == nil {
		s.reported = map[string]bool{}
	}
	seen := s.reported[key]
	s.reported[key] = true
	s.sealMu.Unlock()
	if !seen {
		s.log.Warn("checkpoint not written by warden: not trusted", "file", rel, "checkpoint_id", cp.CheckpointID, "reason", why)
		s.OnUntrusted(filepath.ToSlash(rel), cp, why.Error())
	}
}

// markSealed notes that run has a record warden sealed.
func (s *Store) markSealed(run string) {
	s.sealMu.Lock()
	defer s.sealMu.Unlock()
	if s.sealedRuns == nil {
		s.sealedRuns = map[string]bool{}
	}
	s.sealedRuns[run] = true
}

// RunSealed reports whether a record of run carries a seal (a store that
// seals nothing: false): the run is not an older warden's.
func (s *Store) RunSealed(run string) bool { return s.runSealed(run) }

// runSealed reports whether any record of run carries a seal — warden's,
// or one that does not match (its key lost, or forged): then every record
// of it must carry warden's (a record without one is not an older
// warden's but someone's since). Looked for once per run in the latest files, the
// backups and the history's records of that run, then known: a record
// this store seals marks its run (markSealed); a sealed record someone
// copies in later from elsewhere is not looked for again.
func (s *Store) runSealed(run string) bool {
	if s.sealer == nil {
		return false
	}
	s.sealMu.Lock()
	sealed, known := s.sealedRuns[run]
	s.sealMu.Unlock()
	if known {
		return sealed
	}
	defer func() {
		s.sealMu.Lock()
		if _, set := s.sealedRuns[run]; !set {
			s.sealedRuns[run] = false
		}
		s.sealMu.Unlock()
	}()
	s.sealMu.Lock()
	if s.sealedRuns == nil {
		s.sealedRuns = map[string]bool{}
	}
	s.sealMu.Unlock()
	for _, f := range s.recordFiles(run) {
		b, err := safefile.ReadFile(f)
		if err != nil {
			continue
		}
		var cp protocol.Checkpoint
		if json.Unmarshal(b, &cp) != nil || cp.RunID != run || cp.Mac == "" {
			continue
		}
		// A seal, whether this key made it or not (a key lost and made
		// anew, a seal forged): either way not an older warden's run.
		s.markSealed(run)
		return true
	}
	return false
}

// KeyLost reports whether run has sealed records and none of them is
// sealed with this store's key: the key that sealed them is gone (made
// anew, or replaced), and no record of the run can be trusted.
func (s *Store) KeyLost(run string) bool {
	if s.sealer == nil || !s.runSealed(run) {
		return false
	}
	for _, f := range s.recordFiles(run) {
		b, err := safefile.ReadFile(f)
		if err != nil {
			continue
		}
		var cp protocol.Checkpoint
		if json.Unmarshal(b, &cp) != nil || cp.RunID != run || cp.Mac == "" {
			continue
		}
		if _, err := s.sealer.check(&cp); err == nil {
			return false
		}
	}
	return true
}

// recordFiles lists every file that may hold a record of run: the latest
// files and archives in checkpoints/, their backups, and the history's
// records the index lists for run ("" for every run).
func (s *Store) recordFiles(run string) []string {
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.json"))
	backups, _ := filepath.Glob(filepath.Join(s.dir, "backups", "*.json"))
	files = append(files, backups...)
	if s.hist != nil {
		s.hist.mu.Lock()
		for _, e := range s.hist.entries {
			if run == "" || e.Run == run {
				files = append(files, filepath.Join(s.dir, e.Path))
			}
		}
		s.hist.mu.Unlock()
	}
	out := files[:0]
	for _, f := range files {
		if filepath.Base(f) != "index.json" {
			out = append(out, f)
		}
	}
	return out
}

// SealLegacy seals, as they are, the records of run that an older warden
// wrote — run has no sealed record yet: every one of it is an older
// warden's, trusted as that warden trusted them — so that from now on a
// record of run without a seal is nobody's (issue 33). An archive of a
// completed task it seals as a record, never as a completion: the task's
// verify decides again. It returns how many records it sealed and the
// tasks whose completion it did not take. A store without a key, or a run
// with a sealed record, is left as it is.
func (s *Store) SealLegacy(run string) (int, []string, error) {
	if s.sealer == nil || run == "" || s.runSealed(run) {
		return 0, nil, nil
	}
	n := 0
	var reopened []string
	var errs []error
	for _, f := range s.recordFiles(run) {
		b, err := safefile.ReadFile(f)
		if err != nil {
			continue
		}
		var cp protocol.Checkpoint
		if json.Unmarshal(b, &cp) != nil || cp.RunID != run || cp.Mac != "" {
			continue
		}
		if err := s.sealAs(&cp, SealRecord); err != nil {
			errs = append(errs, err)
			continue
		}
		out, err := json.MarshalIndent(&cp, "", "  ")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := safefile.WriteAtomic(filepath.Dir(s.dir), f, append(out, '\n')); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		if strings.HasSuffix(f, "-complete.json") && filepath.Dir(f) == s.dir {
			reopened = append(reopened, cp.TaskID)
		}
	}
	s.markSealed(run)
	return n, reopened, errors.Join(errs...)
}
