package replaytest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replay/replaytest"
)

// claudeLine is the part of a Claude stream-json line the example
// pipelines read: their own type, not evcap's events.
type claudeLine struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Message struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			Name string `json:"name"`
		} `json:"content"`
	} `json:"message"`
}

// render writes one line per thing a user would see in a chat client.
func render(w io.Writer, line []byte) error {
	var l claudeLine
	if err := json.Unmarshal(line, &l); err != nil {
		return fmt.Errorf("parse %q: %w", line, err)
	}
	switch l.Type {
	case "assistant":
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				fmt.Fprintf(w, "assistant: %s\n", c.Text)
			case "tool_use":
				fmt.Fprintf(w, "tool: %s\n", c.Name)
			}
		}
	case "result":
		fmt.Fprintf(w, "done: %s\n", l.Subtype)
	}
	return nil
}

// chatPipeline is a correct stream pipeline: it reads whole lines however
// the reads are split.
func chatPipeline(r io.Reader, w io.Writer) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := render(w, bytes.TrimSuffix(line, []byte("\n"))); perr != nil {
				return perr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// wholeLinesPipeline has the classic chunking bug: it takes every Read to
// end at a line end.
func wholeLinesPipeline(r io.Reader, w io.Writer) error {
	buf := make([]byte, 1<<20)
	for {
		n, err := r.Read(buf)
		for _, line := range bytes.Split(buf[:n], []byte("\n")) {
			if len(line) > 0 {
				if perr := render(w, line); perr != nil {
					return perr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var fixture = filepath.Join("testdata", "claude-tools")

// CheckStream re-drives a pipeline from a fixture under every default
// chunking; a correct pipeline matches its golden under all of them. In a
// test, call replaytest.Stream(t, dir, pipeline, opts) instead: it does
// the same, reports with t.Error and rewrites the golden under
// EVCAP_UPDATE=1.
func ExampleCheckStream() {
	rep, err := replaytest.CheckStream(context.Background(), fixture, chatPipeline,
		replaytest.StreamOptions{Golden: filepath.Join(fixture, "golden", "go-chat.golden")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mismatches:", len(rep.Mismatches))
	// Output: mismatches: 0
}

// A pipeline that assumes each Read returns whole lines passes when fed
// whole or line by line, and fails a byte at a time; the report names the
// chunking and the native line being fed.
func ExampleCheckStream_chunkingBug() {
	rep, err := replaytest.CheckStream(context.Background(), fixture, wholeLinesPipeline,
		replaytest.StreamOptions{
			Golden:    filepath.Join(fixture, "golden", "go-chat.golden"),
			Chunkings: []replay.Chunking{{Kind: replay.ChunkWhole}, {Kind: replay.ChunkLine}, {Kind: replay.ChunkByte}},
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range rep.Mismatches {
		fmt.Printf("chunking %s: output line %d, native line %d (sequence %d) being fed\n",
			m.Chunking, m.Line, m.Fed[len(m.Fed)-1].Index+1, m.Fed[len(m.Fed)-1].Sequence)
	}
	// Output: chunking byte: output line 1, native line 1 (sequence 2) being fed
}

// chatEvent is a normalizer's own event type.
type chatEvent struct {
	Role string `json:"role"`
	Text string `json:"text,omitempty"`
	Tool string `json:"tool,omitempty"`
}

type chatNormalizer struct{}

func (chatNormalizer) Line(line []byte) ([]chatEvent, error) {
	var l claudeLine
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, err
	}
	var out []chatEvent
	if l.Type == "assistant" {
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				out = append(out, chatEvent{Role: "assistant", Text: c.Text})
			case "tool_use":
				out = append(out, chatEvent{Role: "assistant", Tool: c.Name})
			}
		}
	}
	return out, nil
}

// CheckEvents feeds a normalizer of your own, line by line, and compares
// its events (JSON, one per line) with a golden. In a test, call
// replaytest.Events(t, dir, mk, opts).
func ExampleCheckEvents() {
	rep, err := replaytest.CheckEvents(context.Background(), fixture,
		func() replaytest.LineNormalizer[chatEvent] { return chatNormalizer{} },
		replaytest.StreamOptions{Golden: filepath.Join(fixture, "golden", "go-events.golden")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mismatches:", len(rep.Mismatches))
	// Output: mismatches: 0
}
