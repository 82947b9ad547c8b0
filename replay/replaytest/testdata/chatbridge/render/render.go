// Package render writes chatbridge's chat transcript: one line per message
// part, with streamed text deltas joined into their block's line.
package render

import (
	"fmt"
	"io"
	"strings"

	"example.com/chatbridge/parse"
)

// Pipeline reads a Claude stream-json stream from r and writes the chat
// transcript to w.
func Pipeline(r io.Reader, w io.Writer) error {
	var block strings.Builder
	return parse.Stream(r, func(e parse.Event) error {
		var err error
		switch e.Kind {
		case "session":
			_, err = fmt.Fprintf(w, "── session %s\n", e.Text)
		case "delta":
			block.WriteString(e.Text)
		case "block_end":
			if block.Len() > 0 {
				_, err = fmt.Fprintf(w, "assistant (streamed): %s\n", oneLine(block.String()))
				block.Reset()
			}
		case "text":
			// With partial messages the whole text follows its deltas,
			// before the block ends: the deltas already hold it.
			if block.Len() == 0 {
				_, err = fmt.Fprintf(w, "assistant: %s\n", oneLine(e.Text))
			}
		case "tool":
			_, err = fmt.Fprintf(w, "  ⚙ %s\n", e.Tool)
		case "result":
			_, err = fmt.Fprintf(w, "── %s\n", e.Text)
		case "note":
			_, err = fmt.Fprintf(w, "(cli: %s)\n", e.Text)
		}
		return err
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
