package control

import (
	"errors"
	"time"
)

// CmdResume lets agents parked by the team's budget (on_budget = "pause")
// go on: `warden resume [AGENT]`, or the page; with an account, the agents
// parked at its usage limit (`warden resume --account NAME`).
const CmdResume = "resume"

// ResumeRequest is what `warden resume` asks: the agent to let go on (""
// every parked one) and the team's budget from now on — MaxCost and
// MaxTokens raise it (0: unchanged); without either, the budget that was
// reached no longer applies to this run.
type ResumeRequest struct {
	Agent     string  `json:"agent,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	// Account, when set, asks instead to end the usage-limit park of that
	// account (or of the account of the agent so named) at once: a
	// person's word (issue 33). It goes alone, without Agent or a budget.
	Account string `json:"account,omitempty"`
	// Via is who asks: "cli" (warden resume) or "page".
	Via string `json:"via,omitempty"`
}

// Resumed says what warden resume did.
type Resumed struct {
	// Agents are the agents let go on (none: nothing was parked for the
	// budget; a raise alone).
	Agents []string `json:"agents"`
	// The team's budget from now on: Lifted, it no longer applies to this
	// run; else MaxCost and MaxTokens (0: none).
	Lifted    bool    `json:"lifted,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	// Account is the account whose usage-limit park was ended (a request
	// with Account).
	Account string `json:"account,omitempty"`
}

// Resumer is a Team that can let agents parked by its budget go on.
type Resumer interface {
	Resume(req ResumeRequest) (*Resumed, error)
}

// errNoResume: the team behind the socket cannot resume (a test's).
var errNoResume = errors.New("this warden cannot resume agents")

// resume answers CmdResume.
func (s *Server) resume(req Request) Response {
	r, ok := s.team.(Resumer)
	if !ok {
		return answer(Response{}, errNoResume)
	}
	rr := ResumeRequest{Agent: req.Agent, Via: "cli"}
	if req.Resume != nil {
		rr = *req.Resume
		rr.Agent = req.Agent
	}
	res, err := r.Resume(rr)
	return answer(Response{Resume: res}, err)
}

// Resume asks the team to let agents parked by its budget go on (see
// ResumeRequest).
func (c *Client) Resume(req ResumeRequest) (*Resumed, error) {
	r, err := c.do(Request{Cmd: CmdResume, Agent: req.Agent, Resume: &req}, 30*time.Second)
	if err != nil {
		return nil, err
	}
	return r.Resume, nil
}
