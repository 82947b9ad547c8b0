package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/groups"
)

// CompareOptions change what Compare holds the two runs to.
type CompareOptions struct {
	// Thinking compares thinking blocks too. Off by default: several CLIs
	// store the model's reasoning but do not print it live (Gemini CLI
	// stream-json), or the other way round.
	Thinking bool
}

// Difference is the first place where a restored session differs from the
// live run: which block (counted over all messages, from 1), what it was
// about and the two values.
type Difference struct {
	// Block is the 1-based index of the compared block (0 for the final
	// answer and the outcome).
	Block int
	// What names the compared thing: "text", "tool Bash status",
	// "final answer", "block count", "outcome".
	What     string
	Live     string
	Restored string
	// Offset is the byte offset in Live and Restored where they first
	// differ, for texts and results (-1 when not compared as text).
	Offset int
}

func (d *Difference) Error() string {
	where := "run"
	if d.Block > 0 {
		where = fmt.Sprintf("block %d", d.Block)
	}
	if d.Offset > 0 {
		return fmt.Sprintf("live and restored differ at %s, %s, from byte %d: live …%s, restored …%s", where, d.What,
			d.Offset, quote(around(d.Live, d.Offset)), quote(around(d.Restored, d.Offset)))
	}
	return fmt.Sprintf("live and restored differ at %s, %s: live %s, restored %s", where, d.What, quote(d.Live), quote(d.Restored))
}

// around is s from a little before offset, starting on a rune boundary.
func around(s string, offset int) string {
	start := max(0, offset-24)
	for start > 0 && start < len(s) && !utf8.RuneStart(s[start]) {
		start--
	}
	if start >= len(s) {
		return ""
	}
	return s[start:]
}

// firstDiff is the byte offset where a and b first differ.
func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func textDiff(what, a, b string) *Difference {
	return &Difference{What: what, Live: a, Restored: b, Offset: firstDiff(a, b)}
}

func quote(s string) string {
	const max = 120
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// item is one compared block of a run.
type item struct {
	typ string
	b   *groups.Block
}

func flatten(r *groups.Run, o CompareOptions) []item {
	var out []item
	for _, m := range r.Messages {
		for _, b := range m.Blocks {
			switch b.Type {
			case groups.TypeThinking:
				if !o.Thinking || b.Text == "" {
					continue
				}
			case groups.TypeText:
				if strings.TrimSpace(b.Text) == "" {
					continue
				}
			}
			out = append(out, item{typ: b.Type, b: b})
		}
	}
	return out
}

// finalAnswer is the text of the last text block of a run.
func finalAnswer(items []item) string {
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].typ == groups.TypeText {
			return items[i].b.Text
		}
	}
	return ""
}

// Compare reports the first difference between the chat groups of a live
// run and of its restored session, or nil when a chat UI would show the
// same: the same text (and, with Thinking, thinking) blocks in the same
// order, the same tool calls with the same name, summary, status and
// result excerpt, the same final answer and, when both runs tell it
// (neither result is "incomplete"), the same outcome. Message boundaries
// and ids are not compared: the CLIs group a run differently live and in
// storage (Codex and Gemini CLI print no message ids live).
func Compare(live, restored *groups.Run, o CompareOptions) *Difference {
	a, b := flatten(live, o), flatten(restored, o)
	for i := 0; i < len(a) && i < len(b); i++ {
		if d := compareBlock(a[i], b[i]); d != nil {
			d.Block = i + 1
			return d
		}
	}
	if len(a) != len(b) {
		d := &Difference{What: "block count", Live: fmt.Sprint(len(a)), Restored: fmt.Sprint(len(b))}
		n := min(len(a), len(b))
		d.Block = n + 1
		if len(a) > n {
			d.What, d.Live, d.Restored = "missing "+describe(a[n]), summary(a[n]), "(none)"
		} else {
			d.What, d.Live, d.Restored = "extra "+describe(b[n]), "(none)", summary(b[n])
		}
		return d
	}
	if fa, fb := finalAnswer(a), finalAnswer(b); fa != fb {
		return textDiff("final answer", fa, fb)
	}
	if live.Result != nil && restored.Result != nil &&
		live.Result.Subtype != "incomplete" && restored.Result.Subtype != "incomplete" &&
		live.Result.IsError != restored.Result.IsError {
		return &Difference{What: "outcome (result isError)", Live: fmt.Sprint(live.Result.IsError),
			Restored: fmt.Sprint(restored.Result.IsError)}
	}
	return nil
}

func describe(it item) string {
	if it.typ == groups.TypeTool && it.b.Tool != nil {
		return "tool " + it.b.Tool.Name
	}
	return it.typ
}

func summary(it item) string {
	if it.typ == groups.TypeTool && it.b.Tool != nil {
		return it.b.Tool.Name + " " + it.b.Tool.Summary
	}
	return it.b.Text
}

func compareBlock(x, y item) *Difference {
	if x.typ != y.typ {
		return &Difference{What: "block type", Live: describe(x), Restored: describe(y)}
	}
	if x.typ != groups.TypeTool {
		if x.b.Text != y.b.Text {
			return textDiff(x.typ, x.b.Text, y.b.Text)
		}
		return nil
	}
	tx, ty := x.b.Tool, y.b.Tool
	if tx == nil || ty == nil {
		return nil
	}
	for _, f := range []struct{ what, a, b string }{
		{"name", tx.Name, ty.Name},
		{"summary", tx.Summary, ty.Summary},
		{"status", tx.Status, ty.Status},
		{"result", tx.Result, ty.Result},
	} {
		if f.a != f.b {
			return textDiff("tool "+tx.Name+" "+f.what, f.a, f.b)
		}
	}
	return nil
}

// Fold reads every normalized event of a capture into chat groups. It
// takes the capture's normalized_out records when it has any; otherwise
// its native_in records go through a fresh normalizer: the provider's
// history normalizer for records whose Source is "history", its stream
// normalizer for the others. name is used in errors.
func Fold(r io.Reader, name string) (*groups.Run, error) {
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	// Both folds run until the first normalized_out record shows which
	// one the capture needs; from then on only that one.
	fromNormalized, fromNative := groups.New(), groups.New()
	var norm event.Normalizer
	sawNormalized := false
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("fold %s: %w", name, err)
		}
		switch rec.Stage {
		case envelope.StageNormalizedOut:
			sawNormalized = true
			var ev event.Event
			if err := decodeEvent(rec.Payload, &ev); err != nil {
				return nil, fmt.Errorf("fold %s: sequence %d: %w", name, rec.Sequence, err)
			}
			fromNormalized.Add(ev)
		case envelope.StageNativeIn:
			if sawNormalized || rec.EventType == envelope.EventStderr || rec.EventType == envelope.EventGap {
				continue
			}
			if norm == nil {
				mk := newLiveNormalizer
				if rec.Source == Source {
					mk = NewNormalizer
				}
				if norm, err = mk(rec.Provider); err != nil {
					return nil, fmt.Errorf("fold %s: %w", name, err)
				}
			}
			for _, ev := range norm.Line(rec.Sequence, envelope.DecodeNativeLine(rec.EventType, rec.Payload)) {
				fromNative.Add(ev)
			}
		}
	}
	if sawNormalized {
		return fromNormalized.Run(), nil
	}
	if norm != nil {
		for _, ev := range norm.End() {
			fromNative.Add(ev)
		}
	}
	return fromNative.Run(), nil
}

func decodeEvent(payload []byte, ev *event.Event) error {
	if err := json.Unmarshal(payload, ev); err != nil {
		return fmt.Errorf("decode normalized event: %w", err)
	}
	return nil
}

// CompareCaptures folds a live capture and a capture of its restored
// session (see Fold) and compares them (see Compare).
func CompareCaptures(live io.Reader, liveName string, restored io.Reader, restoredName string, o CompareOptions) (*Difference, error) {
	a, err := Fold(live, liveName)
	if err != nil {
		return nil, err
	}
	b, err := Fold(restored, restoredName)
	if err != nil {
		return nil, err
	}
	return Compare(a, b, o), nil
}
