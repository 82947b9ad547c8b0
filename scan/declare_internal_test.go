package scan

import (
	"bytes"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/providers"
	"github.com/tidwall/gjson"
)

// TestMayDeclareKeepsEveryDeclaringRecord: the stage test that lets the
// reader skip a record's search for project keys never skips a record
// that declares a project, and mayHoldProject, which orders the two tests
// by a record's length, gives what both give. Every record of every corpus run as a capture
// is read as declare reads it; those that declare one must pass
// mayDeclare, and the normalized and legacy records, which cannot, must
// not (else the test would hold for a mayDeclare that passes everything).
func TestMayDeclareKeepsEveryDeclaringRecord(t *testing.T) {
	declaring, skipped, long := 0, 0, 0
	keys := providers.ProjectKeys()
	for _, e := range corpustest.Manifest(t) {
		c := corpustest.Capture(t, corpustest.Recording{
			Native: e.Stdout(t), Stderr: e.Stderr(t),
			Begin:     capture.Start{EvcapVersion: "test", Provider: e.CLI, CLIName: e.CLI, OS: "linux", Arch: "amd64"},
			CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: corpustest.Clock(time.Date(2026, 11, 29, 19, 21, 46, 0, time.UTC), time.Millisecond),
		})
		for i, line := range bytes.Split(bytes.TrimSpace(c), []byte("\n")) {
			v := gjson.ParseBytes(line)
			stage := envelope.Stage(v.Get("stage").String())
			dir := providers.DeclaredProject(stage, v.Get("provider").String(), []byte(v.Get("payload").Raw))
			if dir != "" {
				declaring++
				if !mayDeclare(line) || !mayHoldProject(line, keys) {
					t.Errorf("%s: record %d (stage %s) declares %s but the reader's tests skip it", e.Name(), i+1, stage, dir)
				}
			}
			if len(line) >= stageFirst {
				long++
			}
			if got, want := mayHoldProject(line, keys), mayDeclare(line) && jsonpick.MayHoldKey(line, keys); got != want {
				t.Errorf("%s: record %d (%d bytes): mayHoldProject %v, want %v", e.Name(), i+1, len(line), got, want)
			}
			if (stage == envelope.StageNormalizedOut || stage == envelope.StageLegacyOut) && mayDeclare(line) {
				t.Errorf("%s: record %d: mayDeclare lets a %s record through", e.Name(), i+1, stage)
			} else if !mayDeclare(line) {
				skipped++
			}
		}
	}
	t.Logf("%d declaring records, %d skipped", declaring, skipped)
	if long == 0 {
		t.Fatalf("no record of %d bytes or more: mayHoldProject's stage-first order is not exercised", stageFirst)
	}
	if declaring < 20 || skipped == 0 {
		t.Fatalf("%d declaring records, %d skipped: expected a declaration in every run and skips", declaring, skipped)
	}
	// The stage is read as gjson reads it, escapes and all.
	if !mayDeclare([]byte(`{"st\u0061ge":"n\u0061tive_in","payload":{"cwd":"/p"}}`)) {
		t.Error("an escaped native_in stage is skipped")
	}
}
