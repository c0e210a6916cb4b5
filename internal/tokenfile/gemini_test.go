//go:build !e2e

package tokenfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A gemini message counts once, its last version winning; messages in a
// $set count as well; a sub-agent's chat in chats/<session>/ counts too.
func TestGeminiCountsEachMessageOnce(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".gemini")
	appendFile(t, filepath.Join(home, "projects.json"), `{"projects": {"/work/p": "p"}}`)
	chats := GeminiChats(home, "/work/p")
	if chats != filepath.Join(home, "tmp", "p", "chats") {
		t.Fatalf("chats = %q", chats)
	}
	main := filepath.Join(chats, "session-2026-11-25T22-17-9ac5031c.jsonl")
	appendFile(t, main, geminiMeta+
		`{"$set":{"messages":[`+geminiMessage("g0", "gemini-3.8-flash", 500, 0, 5)[:len(geminiMessage("g0", "gemini-3.8-flash", 500, 0, 5))-1]+`]}}`+"\n"+
		`{"id":"g1","type":"gemini","content":"partial"}`+"\n"+
		geminiMessage("g1", "gemini-3.8-flash", 20001, 15000, 51)+
		geminiMessage("g1", "gemini-3.8-flash", 20001, 15000, 51))
	if GeminiSession(chats, "9ac5031c-f37e-47f1-9a94-45c42cd89bdd") != main {
		t.Fatalf("session file = %q", GeminiSession(chats, "9ac5031c-f37e-47f1-9a94-45c42cd89bdd"))
	}
	g := NewGemini(main)
	if rep := mustRead(t, g); rep.Tokens != (Tokens{Input: 20501, CachedInput: 15000, Output: 56}) {
		t.Errorf("tokens %+v", rep.Tokens)
	}
	sub := filepath.Join(chats, "9ac5031c-f37e-47f1-9a94-45c42cd89bdd", "sub1.jsonl")
	appendFile(t, sub, geminiMessage("s1", "gemini-3.5-flash-lite", 700, 0, 7))
	rep := mustRead(t, g)
	if rep.Tokens != (Tokens{Input: 21201, CachedInput: 15000, Output: 63}) || len(rep.Files) != 2 ||
		rep.ByModel["gemini-3.5-flash-lite"] != (Tokens{Input: 700, Output: 7}) {
		t.Errorf("with a sub-agent: %+v", rep)
	}
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
}
