package replaytest_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replay/replaytest"
)

// bridge is an integration written the way a user would: it reads Claude
// stream-json, hands each assistant text and tool call to its own handler
// (tapped as handler_in) and its UI gets a running transcript (tapped as
// render_in). dropSecond plants a bug: the second assistant text is lost.
func bridge(dropSecond bool) replaytest.TapsFunc {
	return func(native io.Reader, c *capture.Capturer) error {
		sc := bufio.NewScanner(native)
		sc.Buffer(nil, 1<<24)
		texts := 0
		var transcript []string
		for sc.Scan() {
			line := sc.Bytes()
			if !gjson.ValidBytes(line) || gjson.GetBytes(line, "type").String() != "assistant" {
				continue
			}
			for _, b := range gjson.GetBytes(line, "message.content").Array() {
				switch b.Get("type").String() {
				case "text":
					texts++
					if dropSecond && texts == 2 {
						continue
					}
					c.Handler("text", map[string]string{"text": b.Get("text").String()})
					transcript = append(transcript, b.Get("text").String())
					c.Render("transcript", transcript)
				case "tool_use":
					c.Handler("tool", map[string]string{"name": b.Get("name").String(), "id": b.Get("id").String()})
				}
			}
		}
		return sc.Err()
	}
}

// recordFixture records the bridge on a real corpus stream, the way the
// capture taps do in production (native lines and the bridge's taps in one
// capture), and writes it as a fixture.
func recordFixture(t *testing.T, corpusFile string) string {
	t.Helper()
	raw, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	c := capture.New(envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "taps", FlushInterval: -1}), capture.Options{Provider: "claude"})
	if err := bridge(false)(c.WrapReader(bytes.NewReader(raw)), c); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(capture.End{}); err != nil {
		t.Fatal(err)
	}
	fx, err := replay.LoadCapture(&buf, "taps")
	if err != nil {
		t.Fatal(err)
	}
	fx.Name = "taps"
	doc, err := fixtures.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, fixtures.FileName), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTaps: the user's handler and UI layers, re-driven from a fixture,
// tap the same handler_in and render_in records as when it was recorded;
// a bridge that loses a text is caught at the record it lost.
func TestTaps(t *testing.T) {
	dir := recordFixture(t, "../../testdata/corpus/claude/tools.stdout.jsonl")
	doc, _ := os.ReadFile(filepath.Join(dir, fixtures.FileName))
	if n := strings.Count(string(doc), `"stage":"handler_in"`); n < 4 {
		t.Fatalf("the recorded fixture holds %d handler_in records, want the corpus run's texts and tools", n)
	}
	replaytest.Taps(t, dir, bridge(false))

	err := replaytest.CheckTaps(context.Background(), dir, bridge(true))
	if err == nil {
		t.Fatal("a bridge that drops the second text passed")
	}
	if !strings.Contains(err.Error(), "handler_in record") || !strings.Contains(err.Error(), "differs") {
		t.Errorf("the report does not name the differing handler_in record: %v", err)
	}
	t.Logf("planted bug reported as: %v", err)
}
