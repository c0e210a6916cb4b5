package control

import (
	"context"
	"errors"
	"time"
)

// CmdAnswer answers the dialog an agent waits on for a person: `warden
// answer AGENT allow-once|deny`, or the page's buttons.
const CmdAnswer = "answer"

// AnswerRequest is a person's answer: the choice (allow-once or deny),
// the dialog they saw — its id (profile.DialogID) or its text, as warden
// ps shows it — and where it comes from: "cli" or "page".
type AnswerRequest struct {
	Choice   string `json:"choice"`
	DialogID string `json:"dialog_id,omitempty"`
	Dialog   string `json:"dialog,omitempty"`
	Via      string `json:"via,omitempty"`
}

// Answered says what the answer did: the dialog is gone from the screen.
type Answered struct {
	Agent    string `json:"agent"`
	Choice   string `json:"choice"`
	Kind     string `json:"kind"`
	Question string `json:"question"`
	DialogID string `json:"dialog_id"`
	// Took is from the keys typed to the dialog gone from the screen.
	Took time.Duration `json:"took"`
}

// Answerer is a Team whose agents' dialogs a person can answer.
type Answerer interface {
	Answer(ctx context.Context, agent string, req AnswerRequest) (*Answered, error)
}

// answerWait bounds an answer: the keys, and the dialog leaving the screen.
const answerWait = 30 * time.Second

var errNoAnswer = errors.New("this warden cannot answer dialogs")

// answer serves CmdAnswer.
func (s *Server) answer(ctx context.Context, req Request) Response {
	a, ok := s.team.(Answerer)
	if !ok {
		return answer(Response{}, errNoAnswer)
	}
	ar := AnswerRequest{Via: "cli"}
	if req.Answer != nil {
		ar = *req.Answer
	}
	if ar.Via == "" {
		ar.Via = "cli"
	}
	res, err := a.Answer(ctx, req.Agent, ar)
	return answer(Response{Answered: res}, err)
}

// Answer answers the dialog agent waits on (see AnswerRequest).
func (c *Client) Answer(agent string, req AnswerRequest) (*Answered, error) {
	r, err := c.do(Request{Cmd: CmdAnswer, Agent: agent, Answer: &req}, answerWait+5*time.Second)
	if err != nil {
		return nil, err
	}
	return r.Answered, nil
}
