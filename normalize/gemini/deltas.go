package gemini

import (
	"strconv"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Deltas follows the runs of a Gemini CLI stream-json stream the way
// Normalizer reads them: a run is a sequence of assistant message lines
// with delta:true, whose content strings are its pieces. User messages do
// not end a run; any other JSON line does (a whole assistant message, a
// tool call, the result, …). Lines that are not JSON end nothing. Gemini
// streams only text this way.
type Deltas struct {
	runs  int
	open  string
	out   [1]provider.Delta
	ended [1]string
	n     int
}

// NewDeltas returns a tracker at the start of a stream.
func NewDeltas() *Deltas { return &Deltas{} }

var pathContent = []string{"content"}

// Line implements provider.Deltas.
func (d *Deltas) Line(line []byte) []provider.Delta { return d.line(line, false) }

// LineValid implements provider.ValidDeltas.
func (d *Deltas) LineValid(line []byte) []provider.Delta { return d.line(line, true) }

// line is Line; valid says the caller has validated the line.
func (d *Deltas) line(line []byte, valid bool) []provider.Delta {
	d.n = 0
	// With no run open only an assistant delta matters: the type is read
	// before the line is validated, so other long lines are not scanned twice.
	if d.open == "" && gjson.GetBytes(line, "type").String() != "message" {
		return nil
	}
	if !valid && !gjson.ValidBytes(line) {
		return nil
	}
	v := gjson.GetManyBytes(line, "type", "role", "delta", "content")
	if v[0].String() == "message" {
		switch v[1].String() {
		case "user":
			return nil
		case "assistant":
			if v[2].Bool() {
				if d.open == "" {
					d.runs++
					d.open = "gemini/text-" + strconv.Itoa(d.runs)
				}
				if v[3].Type != gjson.String {
					return nil // still in the run, but no piece to point at
				}
				d.out[0] = provider.Delta{Block: d.open, Path: pathContent, Kind: provider.DeltaText, Text: v[3].Str}
				return d.out[:]
			}
		}
	}
	if d.open != "" {
		d.ended[0], d.n, d.open = d.open, 1, ""
	}
	return nil
}

// Ended implements provider.Deltas.
func (d *Deltas) Ended() []string { return d.ended[:d.n] }
