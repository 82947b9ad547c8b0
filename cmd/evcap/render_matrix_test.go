package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/evcap/evcap/render/matrix/matrixtest"
)

// TestRenderToMatrix runs `evcap render --format chat --matrix-…` on the
// embedded real Claude Code capture against a real dendrite, with the token
// in EVCAP_MATRIX_TOKEN, and reads the room back: the chat ops of the same
// command without Matrix, applied as one message and its m.replace edits.
func TestRenderToMatrix(t *testing.T) {
	hs := matrixtest.Start(t)
	room := hs.NewRoom(t, "evcap render test")
	path := t.TempDir() + "/" + sampleName
	if err := os.WriteFile(path, sampleCapture, 0o644); err != nil {
		t.Fatal(err)
	}

	var ops, stderr bytes.Buffer
	if code := run(context.Background(), []string{"render", "--format", "chat", path}, nil, &ops, &stderr); code != 0 {
		t.Fatalf("render --format chat: exit %d: %s", code, stderr.String())
	}
	want := strings.Split(strings.TrimSpace(ops.String()), "\n")

	t.Setenv(matrixTokenEnv, hs.Token)
	var out bytes.Buffer
	stderr.Reset()
	args := []string{"render", "--format", "chat", "--matrix-room", room, "--matrix-homeserver", hs.URL, path}
	if code := run(context.Background(), args, nil, &out, &stderr); code != 0 {
		t.Fatalf("render to Matrix: exit %d: %s", code, stderr.String())
	}
	if out.Len() != 0 {
		t.Errorf("render to Matrix wrote to stdout: %q", out.String())
	}
	if !strings.Contains(stderr.String(), "3 operation(s) delivered to "+room) {
		t.Errorf("stderr = %q; want the delivery count", stderr.String())
	}

	got := hs.Messages(t, room)
	if len(got) != len(want) || len(got) != 3 {
		t.Fatalf("room has %d messages; want %d (ops %q)", len(got), len(want), want)
	}
	original := got[0].Get("event_id").String()
	if b := got[0].Get("content.body").String(); b != "⏳ Working…" {
		t.Errorf("first message = %q", b)
	}
	for i, ev := range got[1:] {
		c := ev.Get("content")
		if c.Get(`m\.relates_to.rel_type`).String() != "m.replace" || c.Get(`m\.relates_to.event_id`).String() != original {
			t.Errorf("message %d is not an edit of %s: %s", i+1, original, c.Raw)
		}
	}
	final := got[2].Get(`content.m\.new_content.body`).String()
	if final != "The project contains a single README.md describing **demo-project**, a tiny sample used for capture tests. Done." {
		t.Errorf("final answer in the room = %q", final)
	}
	if !strings.Contains(want[2], `"final":true`) || !strings.Contains(want[2], final) {
		t.Errorf("the room's final answer %q is not the final op %s", final, want[2])
	}
}
