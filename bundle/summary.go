package bundle

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
)

// Moment is one record as the summary shows it: where and when, and a
// short description.
type Moment struct {
	Sequence int64
	Offset   string
	Stage    string
	What     string
}

// tally counts what a run did, from its normalized events.
type tally struct {
	events      int
	turns       int
	results     int
	failedRes   int
	toolIDs     map[string]bool
	toolNames   map[string]int
	toolCalls   int
	toolErrors  int
	errors      int
	fatal       int
	retries     int
	maxAttempt  int
	firstError  *Moment
	finalResult *event.Result
	version     string
}

func newTally() tally {
	return tally{toolIDs: map[string]bool{}, toolNames: map[string]int{}}
}

func (t *tally) event(e event.Event, seq int64, off string) {
	t.events++
	switch e.Kind {
	case event.KindInit:
		if t.version == "" {
			t.version = e.Version
		}
	case event.KindTool:
		if e.ToolCallID != "" {
			if t.toolIDs[e.ToolCallID] {
				return
			}
			t.toolIDs[e.ToolCallID] = true
		} else if e.Phase != event.PhaseCompleted {
			return
		}
		t.toolCalls++
		if e.Tool != nil && e.Tool.Name != "" {
			t.toolNames[e.Tool.Name]++
		}
	case event.KindToolResult:
		if e.Phase == event.PhaseFailed || e.ToolResult != nil && e.ToolResult.IsError {
			t.toolErrors++
		}
	case event.KindError:
		t.errors++
		if e.Error != nil && e.Error.Fatal {
			t.fatal++
		}
		t.noteError(e, seq, off)
	case event.KindRetry:
		t.retries++
		if e.Retry != nil && e.Retry.Attempt > t.maxAttempt {
			t.maxAttempt = e.Retry.Attempt
		}
	case event.KindResult:
		t.results++
		if e.Result != nil {
			r := *e.Result
			t.finalResult = &r
			if r.NumTurns > t.turns {
				t.turns = r.NumTurns
			}
			if r.IsError || e.Phase == event.PhaseFailed {
				t.failedRes++
				t.noteError(e, seq, off)
			}
		}
	}
}

func (t *tally) noteError(e event.Event, seq int64, off string) {
	if t.firstError == nil {
		t.firstError = &Moment{Sequence: seq, Offset: off, Stage: "normalized_out", What: describe(e)}
	}
}

// describe says what an event is in one short line.
func describe(e event.Event) string {
	head := string(e.Kind) + "/" + string(e.Phase)
	var detail string
	switch {
	case e.Tool != nil:
		detail = e.Tool.Name + " " + e.Tool.Summary
	case e.ToolResult != nil:
		detail = fmt.Sprintf("error=%t %d bytes", e.ToolResult.IsError, e.ToolResult.OutputBytes)
	case e.Error != nil:
		detail = e.Error.Message
		if e.Error.Type != "" {
			detail = e.Error.Type + ": " + detail
		}
		if e.Error.Fatal {
			detail = "fatal " + detail
		}
	case e.Retry != nil:
		detail = fmt.Sprintf("attempt %d", e.Retry.Attempt)
		if e.Retry.Status != 0 {
			detail += fmt.Sprintf(" (status %d)", e.Retry.Status)
		}
		if e.Retry.Error != "" {
			detail += ": " + e.Retry.Error
		}
	case e.Result != nil:
		detail = e.Result.Subtype
		if e.Result.IsError {
			detail += " (error)"
		}
		if e.Result.Text != "" {
			detail += ": " + e.Result.Text
		}
	case e.Usage != nil:
		detail = fmt.Sprintf("%d in, %d out", e.Usage.InputTokens, e.Usage.OutputTokens)
	case e.Text != "":
		detail = fmt.Sprintf("%q", e.Text)
	case e.Kind == event.KindInit:
		detail = strings.TrimSpace(e.Model + " " + e.Version)
	case e.Status != "" || e.NativeType != "":
		detail = strings.TrimSpace(e.Status + " " + e.NativeType)
	}
	if detail = strings.TrimSpace(detail); detail != "" {
		head += " " + detail
	}
	return head
}

// summaryFigures is what summary.md is written from.
type summaryFigures struct {
	m       *Manifest
	t       tally
	derived bool
	stderr  int64
	last    []Moment
}

// markdown writes summary.md: a heading, a table of figures, the first
// error, the last records before the end and the command line. Text from
// the capture is cut, flattened to one line and escaped, so it cannot
// break the table or inject markup into the issue.
func (f summaryFigures) markdown() []byte {
	var b strings.Builder
	m := f.m
	agent := strings.TrimSpace(m.Agent.Name + " " + m.Agent.Version)
	fmt.Fprintf(&b, "## evcap bundle: %s, %s\n\n", cell(agent), cell(exitWords(m.Exit)))
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	b.WriteString("| | |\n|---|---|\n")
	row("provider", cell(m.Provider))
	row("agent CLI", cell(agent))
	row("OS", cell(strings.Trim(m.OS+"/"+m.Arch, "/")))
	row("evcap", cell(m.EvcapVersion)+" (recorded with "+cell(orNone(m.RecordedWith))+")")
	exit := exitWords(m.Exit)
	if m.Exit.Ended {
		exit += fmt.Sprintf(", clean end: %s, %.1f s", yesNo(m.Exit.CleanEnd), float64(m.Exit.DurationMs)/1000)
	}
	row("exit", cell(exit))
	row("records", cell(stageCounts(m.Records)))
	t := f.t
	turns := "none reported"
	if t.turns > 0 {
		turns = fmt.Sprintf("%d", t.turns)
	}
	row("turns", fmt.Sprintf("%s (%d result event(s), %d failed)", turns, t.results, t.failedRes))
	row("tools", cell(toolWords(t)))
	row("errors", fmt.Sprintf("%d (%d fatal)", t.errors, t.fatal))
	retries := fmt.Sprintf("%d", t.retries)
	if t.maxAttempt > 0 {
		retries += fmt.Sprintf(" (up to attempt %d)", t.maxAttempt)
	}
	row("retries", retries)
	row("stderr lines", fmt.Sprintf("%d", f.stderr))
	row("unknown native types", cell(censusWords(m.Census)))
	if f.derived {
		b.WriteString("\nThe capture has no normalized_out records; the figures come from this evcap's normalizer.\n")
	}

	b.WriteString("\n**First error:** ")
	if t.firstError == nil {
		b.WriteString("none\n")
	} else {
		fmt.Fprintf(&b, "sequence %d at %s: %s\n", t.firstError.Sequence, cell(orNone(t.firstError.Offset)), cell(t.firstError.What))
	}
	if t.finalResult != nil && t.finalResult.Text != "" {
		fmt.Fprintf(&b, "\n**Result:** %s\n", cell(t.finalResult.Text))
	}

	b.WriteString("\n**Last events before the end**\n\n| seq | time | stage | event |\n|---:|---|---|---|\n")
	for _, mo := range f.last {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", mo.Sequence, cell(mo.Offset), mo.Stage, cell(mo.What))
	}
	if len(m.Argv) > 0 {
		b.WriteString("\n<details><summary>Command line</summary>\n\n")
		for _, a := range m.Argv {
			b.WriteString("    " + flatten(a, 300) + "\n")
		}
		b.WriteString("\n</details>\n")
	}
	sanitized := fmt.Sprintf("%d redaction(s), %d pseudonym(s)", m.Sanitize.Redactions, m.Sanitize.Pseudonyms)
	if m.Sanitize.PrivateText {
		sanitized += ", free text replaced"
	}
	fmt.Fprintf(&b, "\nSanitized by evcap (%s) and scanned before bundling; the archive holds %s.\n",
		sanitized, strings.Join(m.Files, ", "))
	return []byte(b.String())
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func stageCounts(m map[string]int64) string {
	var parts []string
	for _, st := range envelope.Stages() {
		if n := m[string(st)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	return strings.Join(parts, ", ")
}

func toolWords(t tally) string {
	if t.toolCalls == 0 {
		return "none"
	}
	names := make([]string, 0, len(t.toolNames))
	for n := range t.toolNames {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if t.toolNames[names[i]] != t.toolNames[names[j]] {
			return t.toolNames[names[i]] > t.toolNames[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s ×%d", n, t.toolNames[n]))
	}
	s := fmt.Sprintf("%d call(s)", t.toolCalls)
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s + fmt.Sprintf("; %d failed", t.toolErrors)
}

func censusWords(c Census) string {
	if !c.Checked {
		return "not checked (no normalizer for this provider)"
	}
	if len(c.UnknownTypes) == 0 && len(c.UnknownFields) == 0 {
		return "none"
	}
	var parts []string
	for _, u := range c.UnknownTypes {
		parts = append(parts, fmt.Sprintf("%s ×%d (first at sequence %d)", u.NativeType, u.Count, u.FirstSequence))
	}
	if n := len(c.UnknownFields); n > 0 {
		parts = append(parts, fmt.Sprintf("%d unknown field(s), see manifest.json", n))
	}
	return strings.Join(parts, "; ")
}

// flatten makes s one line of at most max runes, control characters
// shown as spaces.
func flatten(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// cell flattens and escapes text for a markdown table cell or inline text:
// characters markdown or HTML would act on are escaped.
func cell(s string) string {
	s = flatten(s, 160)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '|', '\\', '`', '*', '_', '[', ']', '#', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
