package webpage

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/wardenhq/warden/supervisor/control"
)

// maxAnswerBody bounds an answer's body: a choice and the dialog's text.
const maxAnswerBody = 64 << 10

// answerBody is what the page's buttons POST to /api/answer/{agent}: the
// choice and the dialog as the page showed it (its text, or its id).
type answerBody struct {
	Choice   string `json:"choice"`
	Dialog   string `json:"dialog,omitempty"`
	DialogID string `json:"dialog_id,omitempty"`
}

// answer answers the dialog an agent waits on from the page's buttons.
// The guard took the token; on top of it the request must come from the
// page itself: an Origin naming this page's host, or — from a program
// that sends none — the token in the Authorization header (which no other
// site's page can make a browser send), and a JSON body (a cross-site form
// cannot send one without asking first). warden refuses an answer to any
// dialog but the one the page showed (control.AnswerRequest), and a
// client that is an agent's process (peer.go).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "an answer is a JSON body"})
		return
	}
	var b answerBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAnswerBody)).Decode(&b); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad answer: " + err.Error()})
		return
	}
	if b.Dialog == "" && b.DialogID == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "an answer names the dialog it answers (dialog or dialog_id)"})
		return
	}
	c, err := s.clientFor(r)
	if err != nil {
		s.refuseWrite(w, r, err)
		return
	}
	a, err := c.Answer(r.PathValue("agent"), control.AnswerRequest{Choice: b.Choice, Dialog: b.Dialog, DialogID: b.DialogID, Via: "page"})
	if refusedForWho(err) {
		s.refuseWrite(w, r, err)
		return
	}
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	}
	s.log.Info("a dialog answered from the page", "agent", a.Agent, "choice", a.Choice)
	writeJSON(w, http.StatusOK, a)
}

// sameOrigin checks that a write comes from the page: its Origin's host is
// the one the request was made to; without an Origin, the token came in
// the Authorization header and the browser (if any) says same-origin.
func sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return errors.New("refused: the request comes from another site (Sec-Fetch-Site: " + site + ")")
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			return errors.New("refused: a write without an Origin header must carry the token in Authorization: Bearer")
		}
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
		return errors.New("refused: the request's Origin is not this page")
	}
	return nil
}
