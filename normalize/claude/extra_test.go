package claude

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestExtraSubagentEventsCarryTheirParent checks, on the real subagent
// recordings, that every event derived from a line with parent_tool_use_id
// names that parent and the subagent's type, and that no event of a main
// agent line does.
func TestExtraSubagentEventsCarryTheirParent(t *testing.T) {
	for _, name := range []string{"subagent", "subagent-partial", "subagent-permission"} {
		t.Run(name, func(t *testing.T) {
			data := read(t, filepath.Join(extraDir, name+".stdout.jsonl"))
			n := New()
			nested := 0
			taskTool := map[string]string{} // task_id → the tool call that started it
			for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				v := gjson.ParseBytes(l)
				parent := v.Get("parent_tool_use_id").String()
				if id := v.Get("task_id").String(); id != "" && v.Get("tool_use_id").String() != "" {
					taskTool[id] = v.Get("tool_use_id").String()
				}
				if a := v.Get("request.agent_id").String(); a != "" {
					// A permission request of the subagent's: the line names
					// the subagent by its task id.
					parent = taskTool[a]
				}
				for _, e := range n.Line(int64(i+1), l) {
					switch {
					case e.Kind == event.KindAgent:
						if e.ParentToolCallID == "" || e.Agent == nil || e.Agent.ID != v.Get("task_id").String() {
							t.Errorf("line %d: agent event %+v lacks its tool call or task id", i+1, e)
						}
					case parent != "":
						nested++
						if e.ParentToolCallID != parent || e.Agent == nil || e.Agent.Name != "general-purpose" {
							t.Errorf("line %d: %s event has parent %q agent %+v, want %q general-purpose", i+1, e.Kind, e.ParentToolCallID, e.Agent, parent)
						}
					case e.ParentToolCallID != "" || e.Agent != nil:
						t.Errorf("line %d: main-agent %s event marked as a subagent's: %q %+v", i+1, e.Kind, e.ParentToolCallID, e.Agent)
					}
				}
			}
			if nested < 2 {
				t.Errorf("only %d subagent events; the recording has the subagent's Bash call and its result", nested)
			}
		})
	}
}

// TestExtraPermissionRequestsAndReplies feeds the permission recording the
// way the SDK saw it: each control_response the driver wrote to claude's
// stdin right after the control_request it answers. Every request must
// give a permission started event and every reply a completed one with
// the behaviour the driver chose.
func TestExtraPermissionRequestsAndReplies(t *testing.T) {
	replies := map[string][]byte{}
	for _, l := range bytes.Split(read(t, filepath.Join(extraDir, "permission.stdin.jsonl")), []byte("\n")) {
		if id := gjson.GetBytes(l, "response.request_id").String(); id != "" {
			replies[id] = l
		}
	}
	n := New()
	var got []string
	ref := int64(0)
	feed := func(l []byte) {
		ref++
		for _, e := range n.Line(ref, l) {
			if e.Kind == event.KindPermission {
				got = append(got, string(e.Phase)+" "+e.ToolCallID+" "+e.Permission.Tool+" "+e.Permission.Summary+" "+e.Permission.Reply)
			}
		}
	}
	for _, l := range bytes.Split(read(t, filepath.Join(extraDir, "permission.stdout.jsonl")), []byte("\n")) {
		feed(l)
		if r, ok := replies[gjson.GetBytes(l, "request_id").String()]; ok && gjson.GetBytes(l, "type").String() == "control_request" {
			feed(r)
		}
	}
	want := []string{
		"started toolu_fake_0002_0 Bash touch notes.txt ",
		"completed toolu_fake_0002_0 Bash  allow",
		"started toolu_fake_0003_0 Bash rm -f notes.txt ",
		"completed toolu_fake_0003_0 Bash  deny",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("permission events (-want +got):\n%s", d)
	}
}

// TestExtraToolNamesAndFinalText checks every recording: each tool_use
// block gives a tool event with the same name, verbatim, and the result
// event carries the result line's text.
func TestExtraToolNamesAndFinalText(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(extraDir, "*.stdout.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no recordings")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			names := map[string]string{}
			var final string
			rawLines(t, path, func(v gjson.Result) {
				for _, c := range v.Get("message.content").Array() {
					if v.Get("type").String() == "assistant" && c.Get("type").String() == "tool_use" {
						names[c.Get("id").String()] = c.Get("name").String()
					}
				}
				if v.Get("type").String() == "result" {
					final = v.Get("result").String()
				}
			})
			got := map[string]string{}
			var text string
			for _, e := range convert(read(t, path), 0) {
				if e.Kind == event.KindTool && e.Phase == event.PhaseCompleted {
					got[e.ToolCallID] = e.Tool.Name
				}
				if e.Kind == event.KindResult && e.Result != nil {
					text = e.Result.Text
				}
			}
			if d := cmp.Diff(names, got); d != "" {
				t.Errorf("tool names (-raw +events):\n%s", d)
			}
			if final == "" || text != final {
				t.Errorf("result text %q, raw result %q", text, final)
			}
		})
	}
}

// TestExtraSubagentNamedByItsOwnLines: a subagent's lines name it
// (subagent_type, after parent_tool_use_id) even when nothing before them
// in the stream did (a capture cut in the middle of the subagent's work):
// fed only the real recording's subagent tool-result lines (user lines,
// whose walk may stop early), every event carries the name those lines
// give. The walk of a line must not stop at parent_tool_use_id when it
// names a parent.
func TestExtraSubagentNamedByItsOwnLines(t *testing.T) {
	for _, name := range []string{"subagent", "subagent-partial", "subagent-permission"} {
		t.Run(name, func(t *testing.T) {
			data := read(t, filepath.Join(extraDir, name+".stdout.jsonl"))
			n := New()
			checked := 0
			for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				v := gjson.ParseBytes(l)
				want := v.Get("subagent_type").String()
				if v.Get("parent_tool_use_id").String() == "" || want == "" || v.Get("type").String() != "user" {
					continue // the main agent's lines (its Task call among them), the subagent's own messages
				}
				for _, ev := range n.Line(int64(i+1), l) {
					if ev.Agent == nil || ev.Agent.Name != want {
						t.Fatalf("line %d: %s event's agent %+v, want the name %q the line gives", i+1, ev.Kind, ev.Agent, want)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("no subagent event checked")
			}
		})
	}
}
