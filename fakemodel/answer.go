package fakemodel

import (
	"fmt"
	"unicode/utf8"
)

// answer is one model reply made ready for a protocol writer: the turn's
// texts cut into deltas, its tool calls resolved against the request.
type answer struct {
	// id is unique per request and deterministic (from the request number).
	id    string
	model string
	// thinking and text are the deltas; thinkingAll and textAll the wholes.
	thinking, text       []string
	thinkingAll, textAll string
	calls                []call
	// argChunks are the sizes argument deltas are cut into.
	argChunks                 []int
	inputTokens, outputTokens int
	reasoningTokens           int
}

// stopped reports whether the answer ends the agent loop (no tool calls).
func (a *answer) stopped() bool { return len(a.calls) == 0 }

// buildAnswer resolves turn t for request req. seq numbers the request and
// makes the ids. A tool intent the CLI offers no tool for becomes a text
// that says so, so the failure is visible in the CLI's own output.
func buildAnswer(req *request, t *Turn, seq int, workdir string) *answer {
	a := &answer{
		id:          fmt.Sprintf("%04d", seq),
		model:       req.model,
		thinkingAll: t.Thinking,
		textAll:     t.Text,
		argChunks:   t.Chunks,
	}
	if a.model == "" {
		a.model = "fake-model"
	}
	if workdir == "" {
		workdir = req.workdir
	}
	for i, c := range t.ToolCalls {
		rc, err := resolveCall(req, c, workdir)
		if err != nil {
			a.textAll += fmt.Sprintf("\n[fakemodel: tool call %d of this turn cannot be made: %v]", i, err)
			continue
		}
		rc.id = fmt.Sprintf("%s_%d", a.id, i)
		a.calls = append(a.calls, rc)
	}
	a.thinking = chunk(a.thinkingAll, t.Chunks)
	a.text = chunk(a.textAll, t.Chunks)
	a.inputTokens = t.InputTokens
	if a.inputTokens == 0 {
		a.inputTokens = 1000 + 100*seq
	}
	a.reasoningTokens = tokens(a.thinkingAll)
	a.outputTokens = t.OutputTokens
	if a.outputTokens == 0 {
		a.outputTokens = a.reasoningTokens + tokens(a.textAll)
		for _, c := range a.calls {
			a.outputTokens += tokens(c.args) + 5
		}
	}
	return a
}

// sideAnswer is the reply to a side request: the scenario's title, whole.
func sideAnswer(req *request, title string, seq int) *answer {
	if title == "" {
		title = "Fake session"
	}
	a := &answer{id: fmt.Sprintf("%04d", seq), model: req.model, textAll: title, text: []string{title}}
	if a.model == "" {
		a.model = "fake-model"
	}
	a.inputTokens = 100
	a.outputTokens = tokens(title)
	return a
}

// tokens is a rough, deterministic token count: a token per four characters.
func tokens(s string) int {
	if s == "" {
		return 0
	}
	return utf8.RuneCountInString(s)/4 + 1
}
