package supervisor

import (
	"context"
	"fmt"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/control"
)

var _ control.Answerer = controlTeam{}

// Answer answers the dialog the agent called name waits on, for a person
// (warden answer, the page): only the dialog they saw, never without one
// on the screen (session.Answer).
func (c controlTeam) Answer(ctx context.Context, name string, req control.AnswerRequest) (*control.Answered, error) {
	s, err := c.session(name)
	if err != nil {
		return nil, err
	}
	id := req.DialogID
	if id == "" && req.Dialog != "" {
		id = profile.DialogID(req.Dialog)
	}
	switch req.Via {
	case "cli", "page":
	default:
		return nil, fmt.Errorf("answer: unknown via %q (cli or page)", req.Via)
	}
	a, err := s.Answer(ctx, req.Choice, id, req.Via)
	if err != nil {
		return nil, fmt.Errorf("%s's dialog not answered: %w", name, err)
	}
	return &control.Answered{Agent: name, Choice: a.Choice, Kind: a.Kind, Question: a.Question, DialogID: a.DialogID, Took: a.Took}, nil
}
