package term

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
)

func TestBlockStateMachine(t *testing.T) {
	tests := []struct {
		name, reason string
		evs          []event.Event
		want         string
	}{
		{
			name:   "consecutive tools",
			reason: "each tool is its own line; no blank lines, no joined lines",
			evs: []event.Event{
				toolEv("a", "Bash", "ls -la"), toolEv("b", "Read", "main.go"), toolEv("c", "Grep", "TODO"),
			},
			want: "🔧 Bash: ls -la\n📖 Read: main.go\n🔍 Grep: TODO\n",
		},
		{
			name:   "empty deltas",
			reason: "an empty delta opens no block and writes nothing",
			evs: []event.Event{
				delta(event.KindText, "m", "0", ""), delta(event.KindThinking, "m", "1", ""),
				delta(event.KindText, "m", "0", "Hi"), delta(event.KindText, "m", "0", ""),
				delta(event.KindText, "m", "0", " there"),
			},
			want: "Hi there\n",
		},
		{
			name:   "tool in the middle of thinking",
			reason: "the thinking line is ended before the tool line and reopened with its header after it",
			evs: []event.Event{
				delta(event.KindThinking, "m", "0", "Let me "),
				toolEv("t1", "Bash", "ls"),
				delta(event.KindThinking, "m", "0", "look."),
				done(event.KindThinking, "m", "0", "Let me look."),
				done(event.KindText, "m", "1", "Done."),
			},
			want: "∴ Thinking\nLet me \n🔧 Bash: ls\n∴ Thinking\nlook.\nDone.\n",
		},
		{
			name:   "completed after deltas",
			reason: "text already streamed is not printed again",
			evs: []event.Event{
				delta(event.KindText, "m", "0", "Hello "), delta(event.KindText, "m", "0", "world"),
				done(event.KindText, "m", "0", "Hello world"),
			},
			want: "Hello world\n",
		},
		{
			name:   "completed without deltas",
			reason: "a provider that only sends whole blocks still shows all the text",
			evs: []event.Event{
				done(event.KindThinking, "m", "0", "Plan."), done(event.KindText, "m", "1", "Answer\non two lines"),
			},
			want: "∴ Thinking\nPlan.\nAnswer\non two lines\n",
		},
		{
			name:   "completed extends deltas",
			reason: "only the part the deltas missed is printed",
			evs: []event.Event{
				delta(event.KindText, "m", "0", "Hello "), done(event.KindText, "m", "0", "Hello world"),
			},
			want: "Hello world\n",
		},
		{
			name:   "completed with other ids than its deltas",
			reason: "the latest streamed block of the kind is matched by content",
			evs: []event.Event{
				delta(event.KindText, "stream", "0", "Hello"), done(event.KindText, "msg_1", "", "Hello"),
			},
			want: "Hello\n",
		},
		{
			name:   "completed differs from deltas",
			reason: "a mismatching completed text is not printed a second time",
			evs: []event.Event{
				delta(event.KindText, "m", "0", "Hello"), done(event.KindText, "m", "0", "Goodbye"),
			},
			want: "Hello\n",
		},
		{
			name:   "two text blocks",
			reason: "a new block (other part id) starts on its own line",
			evs: []event.Event{
				delta(event.KindText, "m", "0", "one"), delta(event.KindText, "m", "1", "two"),
			},
			want: "one\ntwo\n",
		},
		{
			name:   "text ending in newline",
			reason: "closing a block that already ended its line adds no blank line",
			evs: []event.Event{
				delta(event.KindText, "m", "0", "line\n"), toolEv("x", "Bash", "pwd"),
			},
			want: "line\n🔧 Bash: pwd\n",
		},
		{
			name:   "tool printed once",
			reason: "started without summary waits; completed prints; a repeat of the same id is dropped",
			evs: []event.Event{
				{Kind: event.KindTool, Phase: event.PhaseStarted, ToolCallID: "t", Tool: &event.Tool{Name: "Bash"}},
				toolEv("t", "Bash", "ls"), toolEv("t", "Bash", "ls"),
			},
			want: "🔧 Bash: ls\n",
		},
		{
			name:   "tool results",
			reason: "ok with size; error with its first line and how many lines were left out",
			evs: []event.Event{
				{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolResult: &event.ToolResult{Output: "a\nb", OutputBytes: 3}},
				{Kind: event.KindToolResult, Phase: event.PhaseFailed, ToolResult: &event.ToolResult{IsError: true, Output: "\nno such file\nstack\nmore"}},
			},
			want: "  ✓ ok · 3 B\n  ✗ error: no such file (+2 lines)\n",
		},
		{
			name: "header, retry, error and result",
			evs: []event.Event{
				{Kind: event.KindInit, Phase: event.PhaseCompleted, Model: "m1", Version: "2.1.0", SessionID: "s1"},
				{Kind: event.KindInit, Phase: event.PhaseCompleted, Model: "m1", Version: "2.1.0", SessionID: "s1"},
				{Kind: event.KindRetry, Phase: event.PhaseUpdated, Retry: &event.Retry{Attempt: 1, MaxRetries: 10, Status: 529, DelayMs: 594, Error: "overloaded"}},
				{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Message: "item failed", Fatal: false}},
				{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Type: "auth", Message: "401\ninvalid key", Fatal: true}},
				{Kind: event.KindResult, Phase: event.PhaseFailed, Result: &event.Result{Subtype: "success", IsError: true, NumTurns: 1, DurationMs: 1234, CostUSD: 0.5, Text: "API Error: 401\ndetails"}},
			},
			reason: "the repeated init is dropped; one-line items fold newlines",
			want: "● m1 · v2.1.0 · session s1\n⚠ retry 1/10 · status 529 · in 594ms: overloaded\n⚠ error: item failed\n" +
				"✖ error (auth): 401 invalid key\n✖ failed · 1 turn · 1.2s · $0.5000: API Error: 401\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, Options{}, tc.evs...)
			if got != tc.want {
				t.Errorf("%s\ngot:\n%s\nwant:\n%s", tc.reason, visible(got), visible(tc.want))
			}
		})
	}
}

func TestUsageLines(t *testing.T) {
	use := func(in, out int64, cum bool) event.Event {
		return event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated,
			Usage: &event.Usage{InputTokens: in, OutputTokens: out, Cumulative: cum}}
	}
	tests := []struct {
		name, reason string
		evs          []event.Event
		want         string
	}{
		{
			name:   "per-call usage adds up",
			reason: "3000+3000 crosses 5,000 once; 11,000 crosses 10,000",
			evs:    []event.Event{use(2900, 100, false), use(2900, 100, false), use(4900, 100, false)},
			want:   "· 6,000 tokens (in 5,800 · out 200)\n· 11,000 tokens (in 10,700 · out 300)\n",
		},
		{
			name:   "cumulative usage replaces",
			reason: "running totals 3,000 → 6,000 → 6,500 cross 5,000 once",
			evs:    []event.Event{use(2900, 100, true), use(5800, 200, true), use(6300, 200, true)},
			want:   "· 6,000 tokens (in 5,800 · out 200)\n",
		},
		{
			name:   "reports for one model call replace each other",
			reason: "message_start (4,000) then message_delta (4,900) of one message count once: 4,900 + 1,000",
			evs: []event.Event{
				func() event.Event { e := use(4000, 0, false); e.MessageID = "m1"; return e }(),
				func() event.Event { e := use(4000, 900, false); e.MessageID = "m1"; return e }(),
				func() event.Event { e := use(1000, 0, false); e.MessageID = "m2"; return e }(),
			},
			want: "· 5,900 tokens (in 5,000 · out 900)\n",
		},
		{
			name:   "a jump over several steps prints one line",
			evs:    []event.Event{use(16000, 0, false)},
			reason: "one line per crossing event, not per step",
			want:   "· 16,000 tokens (in 16,000 · out 0)\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, Options{}, tc.evs...); got != tc.want {
				t.Errorf("%s\ngot:\n%s\nwant:\n%s", tc.reason, got, tc.want)
			}
		})
	}
}

func TestResultTokensAndSuccess(t *testing.T) {
	got := render(t, Options{},
		event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, Usage: &event.Usage{InputTokens: 10, OutputTokens: 5}},
		event.Event{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{NumTurns: 3, DurationMs: 566, Text: "not shown again"}},
	)
	want := "✔ done · 3 turns · 566ms · 15 tokens\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestInjection(t *testing.T) {
	evil := "ok\n::error::pwned\x1b]52;c;ZXZpbA==\x07 done \x1b[31mred\x1b[0m\r\u009b2J  ::warning::x\xff"
	evs := []event.Event{
		delta(event.KindText, "m", "0", evil),
		toolEv("t", "Bash", "echo\n::error::pwned\x1b]52;c;ZXZpbA==\x07"),
		{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Message: "50% fail\n::error::pwned", Fatal: true}},
	}
	t.Run("plain", func(t *testing.T) {
		got := render(t, Options{}, evs...)
		want := "ok\n::error::pwned done red  ::warning::x\ufffd\n" +
			"🔧 Bash: echo ::error::pwned\n" +
			"✖ error: 50% fail ::error::pwned\n"
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", visible(got), visible(want))
		}
	})
	t.Run("github actions", func(t *testing.T) {
		got := render(t, Options{GitHubActions: true}, evs...)
		want := "ok\n:\u200b:error::pwned done red  ::warning::x\ufffd\n" +
			"🔧 Bash: echo ::error::pwned\n" +
			"::notice::Bash: echo ::error::pwned\n" +
			"✖ error: 50% fail ::error::pwned\n" +
			"::error::50%25 fail ::error::pwned\n"
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", visible(got), visible(want))
		}
		for i, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") &&
				!strings.HasPrefix(l, "::notice::Bash") && !strings.HasPrefix(l, "::error::50%25") {
				t.Errorf("line %d is a workflow command the renderer did not mean: %q", i+1, l)
			}
		}
	})
	t.Run("colour", func(t *testing.T) {
		got := render(t, Options{Color: true, GitHubActions: true}, evs...)
		if bad := nonSGRControl(got); bad != "" {
			t.Errorf("control sequence other than SGR in output: %s\nin:\n%s", bad, visible(got))
		}
	})
}

func TestGuardSplitAcrossDeltas(t *testing.T) {
	got := render(t, Options{GitHubActions: true},
		delta(event.KindText, "m", "0", "a\n"), delta(event.KindText, "m", "0", ":"),
		delta(event.KindText, "m", "0", ":set-output name=x::1\n  :"), delta(event.KindText, "m", "0", ":x"),
		delta(event.KindText, "m", "0", "\n:"),
	)
	want := "a\n:\u200b:set-output name=x::1\n  :\u200b:x\n:\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSequenceSplitAcrossDeltas(t *testing.T) {
	pieces := []string{"be", "fore\x1b", "]52;c;ZX", "Zp\x1b", "\\after \x1b[", "1;3", "1mred\x1b", "[0m."}
	var evs []event.Event
	for _, p := range pieces {
		evs = append(evs, delta(event.KindText, "m", "0", p))
	}
	got := render(t, Options{}, evs...)
	if want := "beforeafter red.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUnterminatedOSCEndsAtNewline(t *testing.T) {
	got := render(t, Options{}, delta(event.KindText, "m", "0", "a\x1b]0;title\nb"))
	if want := "a\nb\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name, text string
		width      int
		want       string
	}{
		{"no wrap at 0", "alpha beta gamma", 0, "alpha beta gamma\n"},
		{"words", "alpha beta gamma delta", 11, "alpha beta\ngamma delta\n"},
		{"space run at break goes", "alpha    beta", 8, "alpha\nbeta\n"},
		{"space run inside a line stays", "a    b", 8, "a    b\n"},
		{"long word keeps its own line", "see https://example.com/a/very/long/path ok", 10, "see\nhttps://example.com/a/very/long/path\nok\n"},
		{"newlines reset the column", "abc def\nghi jkl", 7, "abc def\nghi jkl\n"},
		{"wide runes count double", "日本語 日本語", 8, "日本語\n日本語\n"},
		{"indentation kept", "  code line", 20, "  code line\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, Options{Width: tc.width}, done(event.KindText, "m", "0", tc.text))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestChunking feeds the same text as one delta and one rune per delta; the
// output must be identical (the wrapper, the cleaner and the command guard
// keep state between pieces).
func TestChunking(t *testing.T) {
	text := "Hello, wörld! 日本語 text\n::error::x and \x1b[31mred\x1b[0m, \x1b]8;;http://x\x07link\x1b]8;;\x07 and a very-long-word-indeed.\n\tindented line that wraps"
	for _, opts := range []Options{{}, {Width: 12}, {Width: 12, Color: true, GitHubActions: true}} {
		whole := render(t, opts, delta(event.KindThinking, "m", "0", text), done(event.KindThinking, "m", "0", text))
		var evs []event.Event
		for _, r := range text {
			evs = append(evs, delta(event.KindThinking, "m", "0", string(r)))
		}
		evs = append(evs, done(event.KindThinking, "m", "0", text))
		byRune := render(t, opts, evs...)
		if whole != byRune {
			t.Errorf("opts %+v: whole and rune-by-rune differ\nwhole:\n%s\nby rune:\n%s", opts, visible(whole), visible(byRune))
		}
	}
}

func TestColourStylesEachLine(t *testing.T) {
	got := render(t, Options{Color: true}, delta(event.KindThinking, "m", "0", "a\nb"), toolEv("t", "Bash", "ls"))
	want := "\x1b[2;3m∴ Thinking\x1b[0m\n\x1b[2;3ma\x1b[0m\n\x1b[2;3mb\x1b[0m\n\x1b[36m🔧 Bash: ls\x1b[0m\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", visible(got), visible(want))
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errWrite
}

var errWrite = &writeErr{}

type writeErr struct{}

func (*writeErr) Error() string { return "disk full" }

func TestWriteErrorIsSticky(t *testing.T) {
	fw := &failWriter{}
	r := New(fw, Options{})
	if err := r.Render(done(event.KindText, "m", "0", "x")); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Render: got %v, want the write error", err)
	}
	if err := r.Close(); err == nil {
		t.Fatal("Close after a write error: got nil")
	}
	if fw.n != 1 {
		t.Errorf("writer called %d times after failing, want 1", fw.n)
	}
}

// nonSGRControl describes the first control in s that is neither newline,
// tab, nor part of an SGR sequence (ESC [ digits and ; then m); "" if none.
func nonSGRControl(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c == 0x1b:
			j := i + 1
			if j >= len(s) || s[j] != '[' {
				return fmt.Sprintf("ESC not followed by [ at byte %d", i)
			}
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return fmt.Sprintf("CSI that is not SGR at byte %d", i)
			}
			i = j
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("control byte %#x at byte %d", c, i)
		}
	}
	for i, r := range s {
		if r >= 0x80 && r <= 0x9f {
			return fmt.Sprintf("C1 control %U at byte %d", r, i)
		}
	}
	return ""
}
