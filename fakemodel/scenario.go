package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// ErrInvalidScenario is wrapped by every error about a scenario's content
// (as opposed to an error reading it).
var ErrInvalidScenario = errors.New("invalid scenario")

// Scenario is a scripted conversation: what the model answers to each main
// request, and which HTTP errors come first.
type Scenario struct {
	// Name identifies the scenario in logs and test names.
	Name string `json:"name"`
	// Description says what the scenario exercises; free text.
	Description string `json:"description,omitempty"`
	// Errors are answered, in order, to the first main requests (those that
	// declare tools), before any turn is served: retryable failures.
	Errors []HTTPError `json:"errors,omitempty"`
	// Fatal, when set, is the answer to every request, main or side.
	Fatal *HTTPError `json:"fatal,omitempty"`
	// Title is the text answered to side requests (requests that declare no
	// tools, such as opencode's title generation). Defaults to "Fake session".
	Title string `json:"title,omitempty"`
	// Turns are the model's answers, one per main request that gets through.
	// Every turn but the last calls at least one tool; the last one ends the run.
	Turns []Turn `json:"turns"`
	// Agents script subagents: a main request whose first message contains
	// an agent's Match text (the prompt the main agent gave the subagent) is
	// answered from that agent's turns instead, counted the same way.
	Agents []AgentScript `json:"agents,omitempty"`
	// Headers are sent with every answer (not with errors), e.g. the
	// anthropic-ratelimit-unified-* headers a CLI turns into rate limit events.
	Headers map[string]string `json:"headers,omitempty"`
}

// AgentScript is the script of one subagent.
type AgentScript struct {
	Match string `json:"match"`
	Turns []Turn `json:"turns"`
}

// Turn is one model answer: optional thinking, optional text, then tool calls.
type Turn struct {
	// Thinking is streamed as reasoning (Anthropic thinking block, Responses
	// reasoning summary, Chat reasoning_content, Gemini thought part).
	Thinking string `json:"thinking,omitempty"`
	// Text is the visible answer.
	Text string `json:"text,omitempty"`
	// Chunks are the sizes, in characters (runes), of the deltas Thinking and
	// Text are cut into; the list is cycled. Empty means one delta each.
	Chunks []int `json:"chunks,omitempty"`
	// ToolCalls are made after the text, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// InputTokens and OutputTokens are reported as usage; zero picks a default.
	InputTokens  int `json:"input_tokens,omitempty"`
	OutputTokens int `json:"output_tokens,omitempty"`
}

// ToolCall is a tool call stated as an intent; exactly one field is set. The
// server turns it into the tool name and argument shape that the requesting
// CLI declared (see resolveCall).
type ToolCall struct {
	// Shell runs a shell command line.
	Shell string `json:"shell,omitempty"`
	// Read reads a file; a relative path is joined to the working directory
	// the CLI announced in its request (or Options.Workdir).
	Read string `json:"read,omitempty"`
	// Write creates a file with the given content (codex: an apply_patch).
	Write *WriteIntent `json:"write,omitempty"`
	// Tool calls a tool by name with the given arguments, as written: the
	// first of Names the request declared (or Names[0] when none is), for
	// tools no intent covers (a subagent tool, an MCP tool, a to-do list).
	Tool *NamedCall `json:"tool,omitempty"`
}

// NamedCall is a tool call given verbatim.
type NamedCall struct {
	Names []string        `json:"names"`
	Args  json.RawMessage `json:"args"`
}

// WriteIntent is the argument of a Write tool call.
type WriteIntent struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// HTTPError is an error answer. Status is used for every protocol unless
// ByProtocol names another status for the protocol at hand; the body is
// shaped like the provider's own error bodies.
type HTTPError struct {
	Status     int              `json:"status"`
	ByProtocol map[Protocol]int `json:"by_protocol,omitempty"`
	// Message replaces the provider-typical message for the status.
	Message string `json:"message,omitempty"`
	// RetryAfterSeconds, when set, is sent as a Retry-After header (and, for
	// Gemini, as a RetryInfo detail).
	RetryAfterSeconds *int `json:"retry_after_seconds,omitempty"`
}

// statusFor returns the HTTP status this error has for protocol p.
func (e *HTTPError) statusFor(p Protocol) int {
	if s, ok := e.ByProtocol[p]; ok {
		return s
	}
	return e.Status
}

// LoadScenarioFile reads and checks the scenario in the JSON file at path.
func LoadScenarioFile(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open scenario: %w", err)
	}
	defer f.Close()
	sc, err := LoadScenario(f)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return sc, nil
}

// LoadScenario decodes a scenario, expands its placeholders (see
// expandPlaceholders) and checks it. Unknown fields are an error, so a typo
// in a scenario file does not silently change what the model does.
func LoadScenario(r io.Reader) (*Scenario, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("%w: decode: %w", ErrInvalidScenario, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the scenario object", ErrInvalidScenario)
	}
	for i := range sc.Turns {
		t := &sc.Turns[i]
		t.Thinking = expandPlaceholders(t.Thinking)
		t.Text = expandPlaceholders(t.Text)
	}
	if err := sc.validate(); err != nil {
		return nil, err
	}
	return &sc, nil
}

func (sc *Scenario) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidScenario, fmt.Sprintf(format, args...))
	}
	if sc.Fatal == nil && len(sc.Turns) == 0 {
		return bad("no turns and no fatal error: the server would have nothing to answer")
	}
	for i, e := range append(append([]HTTPError(nil), sc.Errors...), derefErr(sc.Fatal)...) {
		if e.Status < 400 || e.Status > 599 {
			return bad("error %d: status %d is not an HTTP error status", i, e.Status)
		}
		for p, s := range e.ByProtocol {
			if !p.valid() {
				return bad("error %d: unknown protocol %q in by_protocol", i, p)
			}
			if s < 400 || s > 599 {
				return bad("error %d: status %d for %s is not an HTTP error status", i, s, p)
			}
		}
	}
	if err := validTurns(sc.Turns); err != nil {
		return err
	}
	for i, a := range sc.Agents {
		if a.Match == "" || len(a.Turns) == 0 {
			return bad("agent %d needs a match and turns", i)
		}
		if err := validTurns(a.Turns); err != nil {
			return fmt.Errorf("agent %d: %w", i, err)
		}
	}
	return nil
}

func validTurns(turns []Turn) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidScenario, fmt.Sprintf(format, args...))
	}
	for i, t := range turns {
		last := i == len(turns)-1
		if !last && len(t.ToolCalls) == 0 {
			return bad("turn %d calls no tool, so the CLI would stop there; only the last turn may end the run", i)
		}
		if t.Thinking == "" && t.Text == "" && len(t.ToolCalls) == 0 {
			return bad("turn %d is empty", i)
		}
		for _, c := range t.Chunks {
			if c <= 0 {
				return bad("turn %d: chunk size %d must be positive", i, c)
			}
		}
		for j, c := range t.ToolCalls {
			n := 0
			if c.Shell != "" {
				n++
			}
			if c.Read != "" {
				n++
			}
			if c.Write != nil {
				n++
				if c.Write.Path == "" {
					return bad("turn %d tool call %d: write needs a path", i, j)
				}
			}
			if c.Tool != nil {
				n++
				if len(c.Tool.Names) == 0 || !json.Valid(c.Tool.Args) {
					return bad("turn %d tool call %d: tool needs names and JSON args", i, j)
				}
			}
			if n != 1 {
				return bad("turn %d tool call %d: set exactly one of shell, read, write, tool", i, j)
			}
		}
	}
	return nil
}

func derefErr(e *HTTPError) []HTTPError {
	if e == nil {
		return nil
	}
	return []HTTPError{*e}
}

// turnsFor returns the script that answers req: a subagent's when req's
// first message names it, else the main one.
func (sc *Scenario) turnsFor(req *request) []Turn {
	for _, a := range sc.Agents {
		if strings.Contains(req.first, a.Match) {
			return a.Turns
		}
	}
	return sc.Turns
}

// pickTurn picks the turn that answers a request carrying toolResults tool
// results: the first turn whose preceding turns made at least that many tool
// calls. Counting results in the request (rather than requests seen) keeps
// the choice right when a CLI retries or sends side requests in between.
func pickTurn(turns []Turn, toolResults int) (int, *Turn) {
	made := 0
	for i := range turns {
		if made >= toolResults {
			return i, &turns[i]
		}
		made += len(turns[i].ToolCalls)
	}
	last := len(turns) - 1
	return last, &turns[last]
}

// chunk cuts s into pieces of the given rune counts (cycled); an empty sizes
// list gives s whole. Cutting on runes keeps every delta valid UTF-8.
func chunk(s string, sizes []int) []string {
	if s == "" {
		return nil
	}
	if len(sizes) == 0 {
		return []string{s}
	}
	var out []string
	for k := 0; s != ""; k++ {
		n := sizes[k%len(sizes)]
		end := 0
		for r := 0; r < n && end < len(s); r++ {
			_, w := utf8.DecodeRuneInString(s[end:])
			end += w
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// Placeholders a scenario's texts may contain. Fake credentials are assembled
// here from pieces so that no file in the repository holds a string a secret
// scanner would flag, while the served text holds one that redaction must catch.
const (
	PlaceholderAnthropicKey = "{{FAKE_ANTHROPIC_KEY}}"
	PlaceholderAWSKeyID     = "{{FAKE_AWS_KEY_ID}}"
	PlaceholderGitHubToken  = "{{FAKE_GITHUB_TOKEN}}"
)

// FakeAnthropicKey returns the fake Anthropic API key that
// PlaceholderAnthropicKey expands to. It has the provider's shape (prefix,
// length, alphabet) and is deterministic.
func FakeAnthropicKey() string {
	return "sk-" + "ant-" + "api03-" + fakeBody("evcapFAKEkeyNOTrealDoNotUse", 93) + "AA"
}

// FakeAWSKeyID returns the fake AWS access key id that PlaceholderAWSKeyID
// expands to (4-letter prefix and 16 upper-case characters).
func FakeAWSKeyID() string {
	return "AK" + "IA" + fakeBody("EVCAPFAKEKEYID", 16)
}

// FakeGitHubToken returns the fake GitHub token that PlaceholderGitHubToken
// expands to (prefix and 36 characters).
func FakeGitHubToken() string {
	return "gh" + "p_" + fakeBody("evcapFAKEtoken", 36)
}

// fakeBody repeats seed to exactly n characters.
func fakeBody(seed string, n int) string {
	return strings.Repeat(seed, n/len(seed)+1)[:n]
}

func expandPlaceholders(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return strings.NewReplacer(
		PlaceholderAnthropicKey, FakeAnthropicKey(),
		PlaceholderAWSKeyID, FakeAWSKeyID(),
		PlaceholderGitHubToken, FakeGitHubToken(),
	).Replace(s)
}
