package opencode_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// extraDir holds real opencode recordings beyond the shared corpus (a task
// subagent, in run and in serve mode); see its MANIFEST.md.
const extraDir = "../../testdata/corpus-extra/opencode"

// TestExtraChildSessionCarriesItsParent checks the serve-mode subagent
// recording: every event of the child session names the task tool call
// that made it and the child's identity; the main session's events do not;
// the child's idle ends the subagent, not the run, so there is exactly one
// result, with the main agent's last text.
func TestExtraChildSessionCarriesItsParent(t *testing.T) {
	file := extraDir + "/subagent-serve.stdout.jsonl"
	var parent, childID, taskCall, lastMainText string
	corpustest.EachLine(t, file, func(_ int64, line []byte) {
		v := gjson.ParseBytes(line)
		p := v.Get("properties")
		switch {
		case v.Get("type").String() == "session.created" && p.Get("info.parentID").String() != "":
			childID, parent = p.Get("info.id").String(), p.Get("info.parentID").String()
		case p.Get("part.tool").String() == "task":
			taskCall = p.Get("part.callID").String()
		case p.Get("part.type").String() == "text" && p.Get("part.time.end").Exists() && p.Get("sessionID").String() != childID:
			lastMainText = p.Get("part.text").String()
		}
	})
	if childID == "" || taskCall == "" {
		t.Fatal("the recording has no child session or task call")
	}
	var nested, agents, results int
	for _, e := range normalizeFile(t, file) {
		switch {
		case e.Kind == event.KindAgent:
			agents++
			if e.ParentToolCallID != taskCall || e.Agent == nil || e.Agent.ID != childID || e.Agent.Name != "general" {
				t.Errorf("agent event %+v, want parent %s child %s general", e, taskCall, childID)
			}
		case e.SessionID == childID:
			nested++
			if e.ParentToolCallID != taskCall || e.Agent == nil || e.Agent.ID != childID || e.Agent.Name != "general" {
				t.Errorf("child %s event: parent %q agent %+v", e.Kind, e.ParentToolCallID, e.Agent)
			}
		case e.ParentToolCallID != "" || e.Agent != nil:
			t.Errorf("event of session %s (parent %s) marked as a subagent's: %+v", e.SessionID, parent, e)
		}
		if e.Kind == event.KindResult {
			results++
			if e.Result.Text != lastMainText || e.SessionID == childID {
				t.Errorf("result %+v; want the main session's last text %q", e.Result, lastMainText)
			}
		}
	}
	if nested < 3 || agents != 2 || results != 1 {
		t.Errorf("%d child events, %d agent events, %d results; want the child's text, bash call and result, start and end, one result", nested, agents, results)
	}
}

// TestExtraToolNamesVerbatim checks that the task and bash calls of both
// recordings keep their names and that each completed call has its result.
func TestExtraToolNamesVerbatim(t *testing.T) {
	for _, file := range []string{extraDir + "/subagent-run.stdout.jsonl", extraDir + "/subagent-serve.stdout.jsonl"} {
		raw := map[string]string{}
		corpustest.EachLine(t, file, func(_ int64, line []byte) {
			v := gjson.ParseBytes(line)
			part := v.Get("part")
			if !part.Exists() {
				part = v.Get("properties.part")
			}
			if part.Get("type").String() == "tool" {
				raw[part.Get("callID").String()] = part.Get("tool").String()
			}
		})
		got := map[string]string{}
		results := map[string]bool{}
		for _, e := range normalizeFile(t, file) {
			if e.Kind == event.KindTool {
				got[e.ToolCallID] = e.Tool.Name
			}
			if e.Kind == event.KindToolResult {
				results[e.ToolCallID] = true
			}
		}
		if len(raw) == 0 {
			t.Fatalf("%s: no tool parts", file)
		}
		for id, name := range raw {
			if got[id] != name || !results[id] {
				t.Errorf("%s: call %s: name %q (raw %q), result %v", file, id, got[id], name, results[id])
			}
		}
	}
}

// TestExtraPermissionAskedAndReplied checks the serve-mode permission
// recording (bash set to ask, answered through POST /permission/{id}/reply):
// each permission.asked gives a permission started event naming the tool
// call and the command pattern, each permission.replied a completed event
// with the reply, and the rejected call ends failed.
func TestExtraPermissionAskedAndReplied(t *testing.T) {
	var got []string
	var rejected bool
	for _, e := range normalizeFile(t, extraDir+"/permission-serve.stdout.jsonl") {
		switch {
		case e.Kind == event.KindPermission && e.Phase == event.PhaseStarted:
			got = append(got, "asked "+e.Permission.Tool+" "+strings.Join(e.Permission.Patterns, " ")+" call:"+fmt.Sprint(e.ToolCallID != ""))
		case e.Kind == event.KindPermission:
			got = append(got, "replied "+e.Permission.Reply+" "+e.Permission.Tool+" call:"+fmt.Sprint(e.ToolCallID != ""))
		case e.Kind == event.KindToolResult && e.Phase == event.PhaseFailed:
			rejected = strings.Contains(e.ToolResult.Output, "rejected permission")
		}
	}
	want := []string{"asked bash touch notes.txt call:true", "replied once bash call:true", "asked bash rm -f notes.txt call:true", "replied reject bash call:true"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("permission events (-want +got):\n%s", d)
	}
	if !rejected {
		t.Error("the rejected bash call did not end as a failed tool result")
	}
}
