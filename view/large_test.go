package view_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/view"
)

// hostile is text a capture may hold that must stay text on the page.
const hostile = `</script><img src=x onerror="document.title='pwned'"><!-- <b>bold</b>`

// syntheticCapture makes a capture of n records (synthetic, not from a
// real CLI): native delta lines, each with its normalized text delta and
// legacy marker, with a hostile string in one of them.
func syntheticCapture(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { now = now.Add(3 * time.Millisecond); return now }
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: clock, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: "synthetic", Now: clock})
	c.Begin(capture.Start{EvcapVersion: "test", Provider: "synthetic"})
	for i := 0; c != nil && int(w.Sequence()) < n-1; i++ {
		piece := fmt.Sprintf("word%d ", i)
		if i == 7 {
			piece = hostile
		}
		seq := c.Native([]byte(fmt.Sprintf(`{"type":"delta","text":%q}`, piece)))
		c.Normalized(event.Event{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: piece, Cause: []int64{seq}})
		c.Legacy([]byte(fmt.Sprintf("[CONTENT_DELTA] %q", piece)), []int64{seq})
	}
	code := 0
	if err := c.Close(capture.End{ExitCode: &code}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEscaping: the hostile text is in the page only escaped, and no
// capture text can end the data element.
func TestEscaping(t *testing.T) {
	var page bytes.Buffer
	st, err := view.Write(&page, bytes.NewReader(syntheticCapture(t, 100)), "synthetic", view.Options{Title: `<b>t</b>`})
	if err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if st.Records < 100 {
		t.Errorf("%d records written", st.Records)
	}
	if strings.Contains(html, "<img") || strings.Contains(html, "<b>") {
		t.Error("capture or title text appears unescaped in the page")
	}
	if n := strings.Count(html, "</script>"); n != 2 {
		t.Errorf("%d </script> in the page, want the 2 of the template", n)
	}
	// Outside the data element, nothing may point outside the page.
	before, rest, _ := strings.Cut(html, `<script type="application/json" id="evcap-data">`)
	_, after, _ := strings.Cut(rest, "</script>")
	for _, ref := range []string{" src=", " href=", "@import", "url(", "fetch(", "xmlhttprequest", "websocket"} {
		if strings.Contains(strings.ToLower(before+after), ref) {
			t.Errorf("the page refers to something outside itself: %q", ref)
		}
	}
}

// TestBrowserLargeCapture loads a synthetic 50,000-record capture, scrolls
// to its end with the keyboard and checks that the DOM holds only the rows
// near the viewport (the list is virtualized) and that the hostile text is
// shown as text.
func TestBrowserLargeCapture(t *testing.T) {
	const n = 50000
	p := open(t, syntheticCapture(t, n), "synthetic 50k")
	if got := p.evalString(`document.getElementById('status').textContent`); got != fmt.Sprintf("%d of %d records", n, n) {
		t.Errorf("status %q", got)
	}
	rowsAtStart := p.evalInt(`document.querySelectorAll('.row').length`)
	p.run(chromedp.Click(chromedp.CSS(`#viewport`)), chromedp.KeyEvent("G"))
	p.settle()
	last := p.evalString(`document.querySelector('.row.selected') ? document.querySelector('.row.selected').dataset.seq : ''`)
	if last != fmt.Sprint(n) {
		t.Errorf("after G the selected row is %q, want the last record %d", last, n)
	}
	visible := p.evalInt(`(() => { const vp = document.getElementById('viewport'), b = vp.getBoundingClientRect();
		return [...document.querySelectorAll('.row')].filter(r => { const rb = r.getBoundingClientRect(); return rb.bottom > b.top && rb.top < b.bottom }).length })()`)
	rowsAtEnd := p.evalInt(`document.querySelectorAll('.row').length`)
	if rowsAtStart > 200 || rowsAtEnd > 200 || visible == 0 {
		t.Errorf("DOM rows: %d at the start, %d at the end (%d visible); want a few dozen for %d records", rowsAtStart, rowsAtEnd, visible, n)
	}
	// Scroll back through the middle with the mouse wheel's equivalent.
	p.eval(`(() => { const vp = document.getElementById('viewport'); vp.scrollTop = vp.scrollHeight / 2; return 0 })()`, nil)
	p.settle()
	if mid := p.evalInt(`Math.min(...[...document.querySelectorAll('.row')].map(r => +r.dataset.seq))`); mid < n/3 {
		t.Errorf("after scrolling to the middle the first row is #%d", mid)
	}
	// The hostile text: searched for, shown as text, no element made of it.
	p.run(chromedp.SendKeys(chromedp.CSS(`#search`), "onerror"))
	p.settle()
	if got := p.evalString(`document.getElementById('status').textContent`); !strings.HasPrefix(got, "3 of ") {
		t.Errorf("search for the hostile text: %q, want its 3 records", got)
	}
	if n := p.evalInt(`document.querySelectorAll('img, .rows b, .detail b, .rows script').length`); n != 0 {
		t.Errorf("%d elements made from capture text", n)
	}
	if got := p.evalString(`document.title`); got == "pwned" {
		t.Error("capture text ran as script")
	}
	if got := p.evalString(`document.querySelector('.row .txt').textContent`); !strings.Contains(got, "<img src=x") {
		t.Errorf("hostile text not shown as text: %q", got)
	}
	p.noNetwork()
}
