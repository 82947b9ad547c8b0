package fakemodel

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLoadScenarioRejects(t *testing.T) {
	cases := []struct {
		json   string
		reason string
	}{
		{`{"turns":[]}`, "nothing to answer"},
		{`{"turns":[{"text":"a"},{"text":"b"}]}`, "a turn before the last one without tool calls would end the run early"},
		{`{"turns":[{}]}`, "empty turn"},
		{`{"turns":[{"text":"a","chunks":[0]}]}`, "zero chunk size"},
		{`{"turns":[{"text":"a","tool_calls":[{}]}]}`, "tool call without intent"},
		{`{"turns":[{"text":"a","tool_calls":[{"shell":"ls","read":"x"}]}]}`, "tool call with two intents"},
		{`{"turns":[{"text":"a","tool_calls":[{"write":{"content":"x"}}]}]}`, "write without a path"},
		{`{"errors":[{"status":200}],"turns":[{"text":"a"}]}`, "an error status must be 4xx or 5xx"},
		{`{"errors":[{"status":500,"by_protocol":{"grpc":503}}],"turns":[{"text":"a"}]}`, "unknown protocol"},
		{`{"turns":[{"txt":"a"}]}`, "unknown field (a typo) is an error"},
		{`{"turns":[{"text":"a"}]} {}`, "data after the object"},
	}
	for _, c := range cases {
		_, err := LoadScenario(strings.NewReader(c.json))
		if !errors.Is(err, ErrInvalidScenario) {
			t.Errorf("%s: got %v, want ErrInvalidScenario", c.reason, err)
		}
	}
}

func TestLoadScenarioAccepts(t *testing.T) {
	sc, err := LoadScenario(strings.NewReader(`{"fatal":{"status":401},"turns":[]}` + "\n"))
	if err != nil || sc.Fatal == nil || sc.Fatal.statusFor(Gemini) != 401 {
		t.Errorf("a fatal-only scenario must load: %v %+v", err, sc)
	}
}

func TestChunk(t *testing.T) {
	s := "héllo 👨‍👩‍👧 wörld"
	for _, sizes := range [][]int{nil, {1}, {2, 5}, {100}} {
		parts := chunk(s, sizes)
		if strings.Join(parts, "") != s {
			t.Errorf("sizes %v: parts %q do not join back", sizes, parts)
		}
		for i, p := range parts {
			if !utf8.ValidString(p) {
				t.Errorf("sizes %v: part %d %q is not valid UTF-8", sizes, i, p)
			}
			if len(sizes) > 0 && i < len(parts)-1 && utf8.RuneCountInString(p) != sizes[i%len(sizes)] {
				t.Errorf("sizes %v: part %d %q has the wrong length", sizes, i, p)
			}
		}
	}
	if chunk("", []int{3}) != nil {
		t.Error("empty text must give no deltas")
	}
}

func TestResolveCall(t *testing.T) {
	fn := func(name string, props ...string) declaredTool {
		m := map[string]string{}
		for i := 0; i < len(props); i += 2 {
			m[props[i]] = props[i+1]
		}
		return declaredTool{name: name, props: m}
	}
	cases := []struct {
		tools  []declaredTool
		call   ToolCall
		want   string
		reason string
	}{
		{[]declaredTool{fn("shell", "command", "array", "workdir", "string")}, ToolCall{Shell: "ls -la"},
			`shell {"command":["bash","-lc","ls -la"]}`, "codex's older shell tool takes an argv array"},
		{[]declaredTool{fn("shell_command", "command", "string")}, ToolCall{Shell: "ls"},
			`shell_command {"command":"ls"}`, "a string command"},
		{[]declaredTool{fn("exec_command", "cmd", "string")}, ToolCall{Read: "my notes.md"},
			`exec_command {"cmd":"cat 'my notes.md'"}`, "no read tool: read with the shell, quoted"},
		{[]declaredTool{fn("exec_command", "cmd", "string"), {name: "apply_patch", custom: true}}, ToolCall{Write: &WriteIntent{Path: "n.md", Content: "a\nb\n"}},
			"apply_patch* *** Begin Patch\n*** Add File: n.md\n+a\n+b\n*** End Patch\n", "codex writes with a custom apply_patch call"},
		{[]declaredTool{fn("write_file", "file_path", "string", "content", "string")}, ToolCall{Write: &WriteIntent{Path: "/abs/n.md", Content: "x"}},
			`write_file {"content":"x","file_path":"/abs/n.md"}`, "an absolute path stays"},
		{[]declaredTool{fn("read_file", "absolute_path", "string")}, ToolCall{Read: "a.txt"},
			`read_file {"absolute_path":"/w/a.txt"}`, "the path property is taken from the schema"},
	}
	for _, c := range cases {
		got, err := resolveCall(&request{tools: c.tools}, c.call, "/w")
		if err != nil {
			t.Errorf("%s: %v", c.reason, err)
			continue
		}
		s := got.name + " " + got.args
		if got.custom {
			s = got.name + "* " + got.args
		}
		if s != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.reason, s, c.want)
		}
	}
	if _, err := resolveCall(&request{tools: []declaredTool{fn("web_search")}}, ToolCall{Shell: "ls"}, ""); err == nil {
		t.Error("a shell intent with no shell tool declared must fail")
	}
}

func TestFindWorkdir(t *testing.T) {
	cases := map[string]string{
		`{"x":"<cwd>/tmp/p q</cwd>"}`:                                     "/tmp/p q",
		`{"x":"- **Workspace Directories:**\n  - /tmp/g\n- **Directory"}`: "/tmp/g",
		`{"x":"Primary working directory: /tmp/c\n"}`:                     "/tmp/c",
		`{"x":"<env>\n  Working directory: /tmp/o/\n"}`:                   "/tmp/o",
		`{"x":"nothing here"}`:                                            "",
	}
	for body, want := range cases {
		if got := findWorkdir([]byte(body)); got != want {
			t.Errorf("findWorkdir(%s) = %q, want %q", body, got, want)
		}
	}
}

// TestAgentsAndNamedTools: a request whose first message holds an agent's
// match is answered from that agent's turns; a named tool call takes the
// first declared name and keeps its arguments; a bad named call is refused.
func TestAgentsAndNamedTools(t *testing.T) {
	sc, err := LoadScenario(strings.NewReader(`{"name":"s","turns":[
		{"tool_calls":[{"tool":{"names":["Task","Agent"],"args":{"prompt":"SUB-1 go"}}}]},
		{"text":"main done"}],
		"agents":[{"match":"SUB-1","turns":[{"text":"sub done"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	main := &request{first: `{"role":"user","content":"hello"}`, tools: []declaredTool{{name: "Agent"}}}
	sub := &request{first: `{"role":"user","content":"SUB-1 go"}`, tools: []declaredTool{{name: "Bash"}}}
	if _, tr := pickTurn(sc.turnsFor(sub), 0); tr.Text != "sub done" {
		t.Errorf("subagent request answered with %+v", tr)
	}
	_, tr := pickTurn(sc.turnsFor(main), 0)
	c, err := resolveCall(main, tr.ToolCalls[0], "")
	if err != nil || c.name != "Agent" || c.args != `{"prompt":"SUB-1 go"}` {
		t.Errorf("named call = %+v, %v; want Agent with the args as written", c, err)
	}
	if _, tr := pickTurn(sc.turnsFor(main), 1); tr.Text != "main done" {
		t.Errorf("main request after the tool result answered with %+v", tr)
	}
	_, err = LoadScenario(strings.NewReader(`{"name":"s","turns":[{"tool_calls":[{"tool":{"names":[],"args":{}}}]},{"text":"x"}]}`))
	if !errors.Is(err, ErrInvalidScenario) {
		t.Errorf("named call without names: err = %v", err)
	}
}
