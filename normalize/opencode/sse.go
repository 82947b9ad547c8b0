package opencode

import "bytes"

type frameKind int

const (
	frameJSON  frameKind = iota // not SSE framing: the line is the payload
	frameData                   // "data:" line; payload is what follows
	frameBlank                  // empty line: ends an SSE event
	frameSkip                   // "event:", "id:", "retry:" or ":" comment
)

// sseFrame tells an SSE framing line from a plain JSON line. A JSON line
// starts with "{" (after spaces), which no SSE field line does.
func sseFrame(line []byte) ([]byte, frameKind) {
	t := bytes.TrimLeft(line, " \t")
	switch {
	case len(t) == 0:
		return nil, frameBlank
	case t[0] == '{' || t[0] == '[':
		return line, frameJSON
	case bytes.HasPrefix(line, []byte("data:")):
		p := line[len("data:"):]
		// The SSE spec strips exactly one space after the colon.
		if len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		return p, frameData
	case line[0] == ':', bytes.HasPrefix(line, []byte("event:")), bytes.HasPrefix(line, []byte("id:")),
		bytes.HasPrefix(line, []byte("retry:")):
		return nil, frameSkip
	}
	return line, frameJSON
}
