package matrix_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/render/chat"
	"github.com/evcap/evcap/render/matrix"
	"github.com/evcap/evcap/render/matrix/matrixtest"
)

var _ chat.Sink = (*matrix.Sink)(nil)

// corpusRun normalizes the real Claude Code run of the corpus's tools
// scenario and folds it into chat operations. Each native line is taken to
// arrive 1.5 s after the previous one, so the one-edit-per-second limit
// lets every tool state through and the edits are many. It also returns
// the run's last completed assistant text, the answer the final op must
// carry.
func corpusRun(t *testing.T) (ops []chat.Op, answer string) {
	t.Helper()
	f, err := os.Open("../../testdata/corpus/claude/tools.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := claude.New()
	m := chat.New(chat.Options{})
	at := time.Date(2026, 11, 29, 19, 32, 5, 0, time.UTC)
	handle := func(evs []event.Event) {
		for _, e := range evs {
			if e.Kind == event.KindText && e.Phase == event.PhaseCompleted {
				answer = e.Text
			}
			ops = append(ops, m.Handle(at, e)...)
		}
	}
	lr := lines.NewReader(f)
	for {
		line, err := lr.Next()
		if err != nil {
			break
		}
		at = at.Add(1500 * time.Millisecond)
		handle(n.Line(lr.Line(), line))
	}
	handle(n.End())
	ops = append(ops, m.Close(at.Add(1500*time.Millisecond))...)
	if len(ops) < 3 || answer == "" {
		t.Fatalf("corpus run gave %d ops and answer %q; want a send, edits and a final answer", len(ops), answer)
	}
	return ops, answer
}

// recorder remembers what a Delivery asked of the sink.
type recorder struct {
	chat.Sink
	sent  []string // event ids returned by Send
	edits []string // the ids Edit was asked to replace
}

func (r *recorder) Send(ctx context.Context, text string) (string, error) {
	id, err := r.Sink.Send(ctx, text)
	if err == nil {
		r.sent = append(r.sent, id)
	}
	return id, err
}

func (r *recorder) Edit(ctx context.Context, id, text string) error {
	r.edits = append(r.edits, id)
	return r.Sink.Edit(ctx, id, text)
}

func deliver(t *testing.T, sink chat.Sink, ops []chat.Op) *chat.Delivery {
	t.Helper()
	d := &chat.Delivery{Sink: sink}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i, op := range ops {
		if err := d.Apply(ctx, op); err != nil {
			t.Fatalf("op %d (%s at %dms): %v", i, op.Kind, op.At.Milliseconds(), err)
		}
	}
	return d
}

func TestSinkEditsOneMessageOnDendrite(t *testing.T) {
	hs := matrixtest.Start(t)
	room := hs.NewRoom(t, "evcap sink test")
	ops, answer := corpusRun(t)
	final := ops[len(ops)-1]
	if !final.Final || final.Text != answer {
		t.Fatalf("last op = %+v; want the final answer %q", final, answer)
	}

	sink, err := matrix.New(matrix.Config{Homeserver: hs.URL, Room: room, Token: hs.Token})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Sink: sink}
	d := deliver(t, rec, ops)
	if d.Broken() != nil {
		t.Fatalf("the homeserver rejected an edit: %v", d.Broken())
	}
	if len(rec.sent) != 1 {
		t.Fatalf("sent %d messages (%v); want 1, the rest as edits", len(rec.sent), rec.sent)
	}
	original := rec.sent[0]

	got := hs.MessagesWhenSent(t, room, len(ops))
	if len(got) != len(ops) {
		t.Fatalf("room has %d m.room.message events; want %d (one per op)", len(got), len(ops))
	}
	first := got[0]
	if id := first.Get("event_id").String(); id != original {
		t.Errorf("first event id = %s; Send returned %s", id, original)
	}
	if body := first.Get("content.body").String(); body != ops[0].Text {
		t.Errorf("first message body = %q; want %q", body, ops[0].Text)
	}
	if first.Get("content.m\\.relates_to").Exists() {
		t.Errorf("first message has a relation: %s", first.Get("content"))
	}
	for i, ev := range got[1:] {
		op := ops[i+1]
		c := ev.Get("content")
		if rt := c.Get("m\\.relates_to.rel_type").String(); rt != "m.replace" {
			t.Errorf("event %d: rel_type = %q; want m.replace (content %s)", i+1, rt, c)
		}
		if to := c.Get("m\\.relates_to.event_id").String(); to != original {
			t.Errorf("event %d replaces %q; want the original %s", i+1, to, original)
		}
		if body := c.Get("m\\.new_content.body").String(); body != op.Text {
			t.Errorf("event %d: m.new_content.body = %q; want %q", i+1, body, op.Text)
		}
		if body := c.Get("body").String(); body != "* "+op.Text {
			t.Errorf("event %d: fallback body = %q; want %q", i+1, body, "* "+op.Text)
		}
	}
	last := got[len(got)-1].Get("content")
	if body := last.Get("m\\.new_content.body").String(); body != answer {
		t.Errorf("final m.new_content.body = %q; want the answer %q", body, answer)
	}
	t.Logf("%d events read back for %d ops; original %s: %s", len(got), len(ops), original, first.Get("content").Raw)
	for _, ev := range got[1 : len(got)-1] {
		t.Logf("edit %s: m.new_content.body %q", ev.Get("event_id"), ev.Get("content.m\\.new_content.body"))
	}
	t.Logf("final edit %s: %s", got[len(got)-1].Get("event_id"), last.Raw)
}

// rejectEdits is a sink whose backend refuses every edit, as a room whose
// server or bridge does not allow them would.
type rejectEdits struct{ *matrix.Sink }

var errEditRefused = errors.New("M_FORBIDDEN: edits are not allowed here")

func (rejectEdits) Edit(context.Context, string, string) error { return errEditRefused }

func TestFallbackSendsOnlyTheAnswerOnDendrite(t *testing.T) {
	hs := matrixtest.Start(t)
	room := hs.NewRoom(t, "evcap fallback test")
	ops, answer := corpusRun(t)
	sink, err := matrix.New(matrix.Config{Homeserver: hs.URL, Room: room, Token: hs.Token})
	if err != nil {
		t.Fatal(err)
	}
	d := deliver(t, rejectEdits{sink}, ops)
	if !errors.Is(d.Broken(), errEditRefused) {
		t.Fatalf("Broken() = %v; want the refused edit", d.Broken())
	}

	got := hs.MessagesWhenSent(t, room, 2)
	var bodies []string
	for _, ev := range got {
		if ev.Get("content.m\\.relates_to").Exists() {
			t.Errorf("event %s is an edit although edits fail: %s", ev.Get("event_id"), ev.Get("content"))
		}
		bodies = append(bodies, ev.Get("content.body").String())
	}
	want := []string{chat.WorkingText, answer}
	if strings.Join(bodies, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("room messages = %q; want only %q", bodies, want)
	}
	t.Logf("fallback messages: %s %q, %s %q", got[0].Get("event_id"), bodies[0], got[1].Get("event_id"), bodies[1])
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, c := range []struct {
		reason string
		cfg    matrix.Config
	}{
		{"no homeserver", matrix.Config{Room: "!r:x", Token: "t"}},
		{"an alias, not a room id", matrix.Config{Homeserver: "http://127.0.0.1:1", Room: "#room:x", Token: "t"}},
		{"no token", matrix.Config{Homeserver: "http://127.0.0.1:1", Room: "!r:x"}},
	} {
		if _, err := matrix.New(c.cfg); !errors.Is(err, matrix.ErrConfig) {
			t.Errorf("%s: New = %v; want ErrConfig", c.reason, err)
		}
	}
	if _, err := matrix.New(matrix.Config{Homeserver: "http://127.0.0.1:1", Room: "!r:x", Token: "t"}); err != nil {
		t.Errorf("a complete config: %v", err)
	}
}

// A send to a homeserver that is not there fails with an error naming
// the room, and Delivery reports it.
func TestSendErrorIsReported(t *testing.T) {
	sink, err := matrix.New(matrix.Config{Homeserver: "http://" + matrixtest.FreeAddr(t), Room: "!r:x", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	d := &chat.Delivery{Sink: sink}
	err = d.Apply(context.Background(), chat.Op{Kind: chat.OpSend, Text: chat.WorkingText})
	if err == nil || !strings.Contains(err.Error(), "matrix: send to !r:x") {
		t.Fatalf("Apply = %v; want a send error naming the room", err)
	}
}
