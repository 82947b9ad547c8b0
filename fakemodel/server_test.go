package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
	"github.com/tidwall/gjson"
)

// The request bodies below are synthetic: cut-down versions of what each CLI
// sends (the corpus request logs keep only tool names, not schemas), with
// the fields the server reads: the tool declarations with their argument
// schemas, the tool results of earlier turns, and the working directory
// sentence of the prompt.

const testWorkdir = "/work/demo project"

func syntheticAnthropicRequest(toolResults int, withTools bool) []byte {
	msgs := []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "List the files."}}}}
	for i := 0; i < toolResults; i++ {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprint("t", i), "name": "Bash", "input": map[string]any{"command": "ls"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprint("t", i), "content": "README.md"}}})
	}
	body := map[string]any{
		"model":    "claude-sonnet-4-5-20250929",
		"stream":   true,
		"system":   []any{map[string]any{"type": "text", "text": "Here is useful information about the environment you are running in:\n<env>\nWorking directory: " + testWorkdir + "\n</env>"}},
		"messages": msgs,
	}
	if withTools {
		body["tools"] = []any{
			map[string]any{"name": "Bash", "input_schema": schema("command", "string", "description", "string", "timeout", "number")},
			map[string]any{"name": "Read", "input_schema": schema("file_path", "string", "offset", "number")},
			map[string]any{"name": "Write", "input_schema": schema("file_path", "string", "content", "string")},
		}
	}
	return mustJSON(body)
}

func syntheticResponsesRequest(toolResults int) []byte {
	input := []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context>\n  <cwd>" + testWorkdir + "</cwd>\n</environment_context>"}}}}
	for i := 0; i < toolResults; i++ {
		input = append(input,
			map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"ls"}`, "call_id": fmt.Sprint("c", i)},
			map[string]any{"type": "function_call_output", "call_id": fmt.Sprint("c", i), "output": "README.md\n"})
	}
	return mustJSON(map[string]any{
		"model":  "gpt-5.5",
		"stream": true,
		"input":  input,
		"tools": []any{
			map[string]any{"type": "function", "name": "exec_command", "parameters": schema("cmd", "string", "workdir", "string")},
			map[string]any{"type": "custom", "name": "apply_patch", "format": map[string]any{"type": "grammar"}},
			map[string]any{"type": "web_search"},
		},
	})
}

func syntheticChatRequest(toolResults int, withTools bool) []byte {
	msgs := []any{
		map[string]any{"role": "system", "content": "You are opencode.\n<env>\n  Working directory: " + testWorkdir + "\n</env>"},
		map[string]any{"role": "user", "content": "List the files."},
	}
	for i := 0; i < toolResults; i++ {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": fmt.Sprint("c", i), "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"ls"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": fmt.Sprint("c", i), "content": "README.md\n"})
	}
	body := map[string]any{
		"model":          "fake-model",
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
		"messages":       msgs,
	}
	if withTools {
		body["tools"] = []any{
			map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": schema("command", "string", "description", "string")}},
			map[string]any{"type": "function", "function": map[string]any{"name": "read", "parameters": schema("filePath", "string", "offset", "number")}},
			map[string]any{"type": "function", "function": map[string]any{"name": "write", "parameters": schema("filePath", "string", "content", "string")}},
		}
	}
	return mustJSON(body)
}

func syntheticGeminiRequest(toolResults int) []byte {
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "- **Workspace Directories:**\n  - " + testWorkdir + "\n- **Directory Structure:**"}}}}
	for i := 0; i < toolResults; i++ {
		contents = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": "ls"}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "run_shell_command", "response": map[string]any{"output": "README.md"}}}}})
	}
	return mustJSON(map[string]any{
		"contents": contents,
		"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "run_shell_command", "parametersJsonSchema": schema("command", "string", "description", "string", "dir_path", "string")},
			map[string]any{"name": "read_file", "parametersJsonSchema": schema("file_path", "string")},
			map[string]any{"name": "write_file", "parametersJsonSchema": schema("file_path", "string", "content", "string")},
		}}},
	})
}

// schema builds a JSON schema object from (name, type) pairs.
func schema(pairs ...string) map[string]any {
	props := map[string]any{}
	for i := 0; i < len(pairs); i += 2 {
		props[pairs[i]] = map[string]any{"type": pairs[i+1]}
	}
	return map[string]any{"type": "object", "properties": props}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// protoCase says how to reach one protocol.
type protoCase struct {
	p    Protocol
	path string
	req  func(toolResults int) []byte
}

func protoCases() []protoCase {
	return []protoCase{
		{Anthropic, "/v1/messages?beta=true", func(n int) []byte { return syntheticAnthropicRequest(n, true) }},
		{OpenAIResponses, "/v1/responses", syntheticResponsesRequest},
		{OpenAIChat, "/v1/chat/completions", func(n int) []byte { return syntheticChatRequest(n, true) }},
		{Gemini, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", syntheticGeminiRequest},
	}
}

func loadTestScenario(t *testing.T, name string) *Scenario {
	t.Helper()
	sc, err := LoadScenarioFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// do sends one request to the handler and returns the response as text:
// status line, content type, Retry-After when set, blank line, body.
func do(t *testing.T, h http.Handler, path string, body []byte) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
	head := fmt.Sprintf("HTTP %d\nContent-Type: %s\n", rec.Code, rec.Header().Get("Content-Type"))
	if ra := rec.Header().Get("Retry-After"); ra != "" {
		head += "Retry-After: " + ra + "\n"
	}
	out := rec.Body.String()
	if !strings.HasSuffix(out, "\n") {
		// JSON bodies end without a newline; add one so goldens stay readable.
		out += "\n"
	}
	return rec.Code, head + "\n" + out
}

func newGoldie(t *testing.T) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".golden"))
}

// TestGoldenTools serves the tools scenario turn by turn over each protocol.
func TestGoldenTools(t *testing.T) {
	sc := loadTestScenario(t, "tools")
	for _, pc := range protoCases() {
		t.Run(string(pc.p), func(t *testing.T) {
			srv := New(sc, Options{})
			var all strings.Builder
			for turn, results := range []int{0, 1, 2} {
				code, out := do(t, srv, pc.path, pc.req(results))
				if code != http.StatusOK {
					t.Fatalf("turn %d: status %d:\n%s", turn, code, out)
				}
				fmt.Fprintf(&all, "### request with %d tool results\n%s", results, out)
			}
			newGoldie(t).Assert(t, "tools-"+string(pc.p), []byte(all.String()))
			if got := fmt.Sprint(srv.Stats().Turns); got != "[0 1 2]" {
				t.Errorf("turns %s", got)
			}
		})
	}
}

// TestGoldenErrors serves the error-retry and fatal-error scenarios.
func TestGoldenErrors(t *testing.T) {
	retry, fatal := loadTestScenario(t, "error-retry"), loadTestScenario(t, "fatal-error")
	for _, pc := range protoCases() {
		t.Run(string(pc.p), func(t *testing.T) {
			var all strings.Builder
			srv := New(retry, Options{})
			for i, want := range []int{0, 429, http.StatusOK} {
				code, out := do(t, srv, pc.path, pc.req(0))
				if want != 0 && code != want || want == 0 && code < 500 {
					t.Errorf("error-retry request %d: status %d", i, code)
				}
				fmt.Fprintf(&all, "### error-retry request %d\n%s", i, out)
			}
			srv = New(fatal, Options{})
			for i := 0; i < 2; i++ {
				code, out := do(t, srv, pc.path, pc.req(i))
				if code != 401 && code != 400 {
					t.Errorf("fatal request %d: status %d", i, code)
				}
				fmt.Fprintf(&all, "### fatal-error request %d\n%s", i, out)
			}
			newGoldie(t).Assert(t, "errors-"+string(pc.p), []byte(all.String()))
		})
	}
}

// TestGoldenLongText streams the long text over each protocol and checks that
// the deltas, put back together, are exactly the scripted text.
func TestGoldenLongText(t *testing.T) {
	sc := loadTestScenario(t, "long-text")
	want := sc.Turns[0].Text
	for _, pc := range protoCases() {
		t.Run(string(pc.p), func(t *testing.T) {
			code, out := do(t, New(sc, Options{}), pc.path, pc.req(0))
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			// The golden is made from the text with its placeholders put back,
			// so that no fake credential is written to a repository file.
			_, golden := do(t, New(withPlaceholders(sc), Options{}), pc.path, pc.req(0))
			newGoldie(t).Assert(t, "long-text-"+string(pc.p), []byte(golden))
			thinking, text, _ := reassemble(t, pc.p, out)
			if text != want {
				t.Errorf("reassembled text differs:\n got %q\nwant %q", text, want)
			}
			if thinking != sc.Turns[0].Thinking {
				t.Errorf("reassembled thinking %q", thinking)
			}
		})
	}
}

// withPlaceholders returns a copy of sc whose texts hold the placeholders
// instead of the fake credentials they expanded to.
func withPlaceholders(sc *Scenario) *Scenario {
	r := strings.NewReplacer(FakeAnthropicKey(), PlaceholderAnthropicKey, FakeAWSKeyID(), PlaceholderAWSKeyID, FakeGitHubToken(), PlaceholderGitHubToken)
	c := *sc
	c.Turns = append([]Turn(nil), sc.Turns...)
	for i := range c.Turns {
		c.Turns[i].Text = r.Replace(c.Turns[i].Text)
		c.Turns[i].Thinking = r.Replace(c.Turns[i].Thinking)
	}
	return &c
}

// TestReassembleTools checks that each protocol's tool-call deltas add up to
// the arguments the CLI's schema asks for.
func TestReassembleTools(t *testing.T) {
	sc := loadTestScenario(t, "tools")
	want := map[Protocol][]string{
		Anthropic:       {`Bash {"command":"ls","description":"Run: ls"}`, `Read {"file_path":"/work/demo project/README.md"}`},
		OpenAIResponses: {`exec_command {"cmd":"ls"}`, `exec_command {"cmd":"cat README.md"}`},
		OpenAIChat:      {`bash {"command":"ls","description":"Run: ls"}`, `read {"filePath":"/work/demo project/README.md"}`},
		Gemini:          {`run_shell_command {"command":"ls","description":"Run: ls"}`, `read_file {"file_path":"/work/demo project/README.md"}`},
	}
	for _, pc := range protoCases() {
		t.Run(string(pc.p), func(t *testing.T) {
			srv := New(sc, Options{})
			var calls []string
			for turn := 0; turn < 2; turn++ {
				_, out := do(t, srv, pc.path, pc.req(turn))
				_, text, c := reassemble(t, pc.p, out)
				if text != sc.Turns[turn].Text {
					t.Errorf("turn %d text %q", turn, text)
				}
				calls = append(calls, c...)
			}
			if fmt.Sprint(calls) != fmt.Sprint(want[pc.p]) {
				t.Errorf("calls\n got %q\nwant %q", calls, want[pc.p])
			}
		})
	}
}

// reassemble parses an SSE response the way a client would and joins the
// deltas: thinking, text, and each tool call as "name args".
func reassemble(t *testing.T, p Protocol, resp string) (thinking, text string, calls []string) {
	t.Helper()
	_, body, _ := strings.Cut(resp, "\n\n")
	var th, tx strings.Builder
	args := map[int]*strings.Builder{}
	names := map[int]string{}
	var order []int
	addCall := func(i int, name string) {
		if _, ok := args[i]; !ok {
			order = append(order, i)
			args[i] = &strings.Builder{}
		}
		names[i] = name
	}
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		var data string
		for _, line := range strings.Split(ev, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = d
			}
		}
		if data == "[DONE]" {
			continue
		}
		if !gjson.Valid(data) {
			t.Fatalf("event data is not JSON: %q", data)
		}
		d := gjson.Parse(data)
		switch p {
		case Anthropic:
			switch d.Get("type").String() {
			case "content_block_start":
				if d.Get("content_block.type").String() == "tool_use" {
					addCall(int(d.Get("index").Int()), d.Get("content_block.name").String())
				}
			case "content_block_delta":
				th.WriteString(d.Get("delta.thinking").String())
				tx.WriteString(d.Get("delta.text").String())
				if b, ok := args[int(d.Get("index").Int())]; ok {
					b.WriteString(d.Get("delta.partial_json").String())
				}
			}
		case OpenAIResponses:
			switch d.Get("type").String() {
			case "response.output_item.added":
				if n := d.Get("item.name"); n.Exists() {
					addCall(int(d.Get("output_index").Int()), n.String())
				}
			case "response.reasoning_summary_text.delta":
				th.WriteString(d.Get("delta").String())
			case "response.output_text.delta":
				tx.WriteString(d.Get("delta").String())
			case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
				args[int(d.Get("output_index").Int())].WriteString(d.Get("delta").String())
			}
		case OpenAIChat:
			delta := d.Get("choices.0.delta")
			th.WriteString(delta.Get("reasoning_content").String())
			tx.WriteString(delta.Get("content").String())
			delta.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				i := int(tc.Get("index").Int())
				if n := tc.Get("function.name"); n.Exists() {
					addCall(i, n.String())
				}
				args[i].WriteString(tc.Get("function.arguments").String())
				return true
			})
		case Gemini:
			d.Get("candidates.0.content.parts").ForEach(func(_, part gjson.Result) bool {
				switch {
				case part.Get("thought").Bool():
					th.WriteString(part.Get("text").String())
				case part.Get("functionCall").Exists():
					i := len(order)
					addCall(i, part.Get("functionCall.name").String())
					args[i].WriteString(part.Get("functionCall.args").Raw)
				default:
					tx.WriteString(part.Get("text").String())
				}
				return true
			})
		}
	}
	for _, i := range order {
		calls = append(calls, names[i]+" "+args[i].String())
	}
	return th.String(), tx.String(), calls
}

// TestTurnSelection checks that retries and side requests in between do not
// shift the script: the turn follows the tool results in the request.
func TestTurnSelection(t *testing.T) {
	sc := loadTestScenario(t, "tools")
	sc.Errors = []HTTPError{{Status: 500}}
	srv := New(sc, Options{})
	steps := []struct {
		body   []byte
		status int
		reason string
	}{
		{syntheticChatRequest(0, false), 200, "a title request before the first step is a side request"},
		{syntheticChatRequest(0, true), 500, "the first main request gets the scripted error"},
		{syntheticChatRequest(0, true), 200, "its retry gets turn 0"},
		{syntheticChatRequest(0, true), 200, "a repeated request without new results gets turn 0 again"},
		{syntheticChatRequest(1, false), 200, "a side request in the middle"},
		{syntheticChatRequest(1, true), 200, "one tool result: turn 1"},
		{syntheticChatRequest(2, true), 200, "two tool results: turn 2"},
		{syntheticChatRequest(5, true), 200, "more results than the script has calls: the last turn"},
	}
	for i, s := range steps {
		if code, out := do(t, srv, "/v1/chat/completions", s.body); code != s.status {
			t.Errorf("step %d (%s): status %d, want %d\n%s", i, s.reason, code, s.status, out)
		}
	}
	st := srv.Stats()
	if got, want := fmt.Sprint(st.Turns), "[0 0 1 2 2]"; got != want {
		t.Errorf("turns %s, want %s", got, want)
	}
	if st.Side != 2 || st.Main != 6 || st.Errors != 1 || st.Requests != 8 {
		t.Errorf("stats %+v", st)
	}
}

// TestSideRequestTitle checks a side request is answered with the title and
// that the request log records it (golden).
func TestSideRequestAndLog(t *testing.T) {
	sc := loadTestScenario(t, "tools")
	var log bytes.Buffer
	srv := New(sc, Options{Log: &log, LogStringLimit: 40})
	_, out := do(t, srv, "/v1/chat/completions", syntheticChatRequest(0, false))
	if _, text, _ := reassemble(t, OpenAIChat, out); text != "Project overview" {
		t.Errorf("side answer %q, want the title", text)
	}
	do(t, srv, "/v1/chat/completions", syntheticChatRequest(0, true))
	do(t, srv, "/v1/chat/completions", []byte("{not json"))
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("HEAD / answered %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/models", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown route answered %d", rec.Code)
	}
	newGoldie(t).Assert(t, "request-log", log.Bytes())
}

func TestNonStreaming(t *testing.T) {
	sc := loadTestScenario(t, "tools")
	body := bytes.Replace(syntheticAnthropicRequest(0, true), []byte(`"stream":true`), []byte(`"stream":false`), 1)
	_, anth := do(t, New(sc, Options{}), "/v1/messages", body)
	_, gem := do(t, New(sc, Options{}), "/v1beta/models/gemini-2.5-pro:generateContent", syntheticGeminiRequest(0))
	newGoldie(t).Assert(t, "non-streaming", []byte("### anthropic\n"+anth+"\n### gemini\n"+gem))
}

func TestScenarioFilesHoldNoSecrets(t *testing.T) {
	// The fake credentials exist only once a scenario is loaded; the files
	// hold placeholders, so no secret scanner flags the repository.
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, f := range files {
		if _, err := LoadScenarioFile(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	goldens, err := filepath.Glob("testdata/golden/*")
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range append(files, goldens...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"sk-ant-", "AKIA", "ghp_", FakeAnthropicKey()[:20]} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s contains %q literally", f, s)
			}
		}
	}
	sc := loadTestScenario(t, "long-text")
	for _, s := range []string{FakeAnthropicKey(), FakeAWSKeyID(), FakeGitHubToken()} {
		if !strings.Contains(sc.Turns[0].Text, s) {
			t.Errorf("long-text does not contain the expanded %q", s)
		}
	}
	if k := FakeAnthropicKey(); len(k) != len("sk-ant-api03-")+95 || !strings.HasPrefix(k, "sk-ant-api03-") {
		t.Errorf("fake Anthropic key %q has the wrong shape", k)
	}
	if k := FakeAWSKeyID(); len(k) != 20 || !strings.HasPrefix(k, "AKIA") || strings.ToUpper(k) != k {
		t.Errorf("fake AWS key id %q has the wrong shape", k)
	}
	if k := FakeGitHubToken(); len(k) != 40 || !strings.HasPrefix(k, "ghp_") {
		t.Errorf("fake GitHub token %q has the wrong shape", k)
	}
}
