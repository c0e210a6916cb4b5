package webpage

import (
	"encoding/json"
	"mime"
	"net/http"

	"github.com/wardenhq/warden/supervisor/control"
)

// maxResumeBody bounds a resume's body: an agent's name and two numbers.
const maxResumeBody = 4 << 10

// resumeBody is what the page's Resume button POSTs to /api/resume: the
// agent to let go on ("" every one parked) and the team's budget from now
// on (none: the budget reached no longer applies to the run), as `warden
// resume` takes them; or an account, whose usage-limit park ends now
// (`warden resume --account`).
type resumeBody struct {
	Agent     string  `json:"agent,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	Account   string  `json:"account,omitempty"`
}

// resume lets the agents parked at the team's budget go on, from the
// page: `warden resume` over the control socket, budget_resumed with via
// "page". A write, guarded as answer is: the token, then the page's own
// origin and a JSON body, and a client that is not an agent's (peer.go).
func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "a resume is a JSON body"})
		return
	}
	var b resumeBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxResumeBody)).Decode(&b); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad resume: " + err.Error()})
		return
	}
	if b.MaxCost < 0 || b.MaxTokens < 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "a budget is positive"})
		return
	}
	c, err := s.clientFor(r)
	if err != nil {
		s.refuseWrite(w, r, err)
		return
	}
	res, err := c.Resume(control.ResumeRequest{Agent: b.Agent, MaxCost: b.MaxCost, MaxTokens: b.MaxTokens,
		Account: b.Account, Via: "page"})
	if refusedForWho(err) {
		s.refuseWrite(w, r, err)
		return
	}
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	}
	s.log.Info("agents resumed from the page", "agents", res.Agents, "lifted", res.Lifted)
	writeJSON(w, http.StatusOK, res)
}
