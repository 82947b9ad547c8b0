package view_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/evcap/evcap/view"
)

// The browser tests drive Debian's Chromium through the DevTools protocol
// with chromedp: a real browser is the only way to know that the page's
// script runs, draws the lanes and answers clicks and keys. They skip when
// no Chromium is installed (EVCAP_CHROMIUM, else /usr/bin/chromium; .ci
// installs it).

func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EVCAP_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Skip("no Chromium: set EVCAP_CHROMIUM or install Debian's chromium package (apt-get install -y chromium)")
	return ""
}

// page is one browser tab on one report, with the URLs of every request
// the tab made.
type page struct {
	t    *testing.T
	ctx  context.Context
	url  string
	mu   sync.Mutex
	reqs []string
}

// open writes the report of capture to a file and loads it in a fresh
// headless Chromium (its own empty profile, background networking off).
func open(t *testing.T, capture []byte, title string) *page {
	t.Helper()
	exe := chromium(t)
	path := filepath.Join(t.TempDir(), "report.html")
	var html bytes.Buffer
	if _, err := view.Write(&html, bytes.NewReader(capture), title, view.Options{Title: title}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, html.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 820),
	}
	// The allocator's context is not given a timeout: it would stop the
	// browser (see chromedp.Run); the test's own deadline bounds the run.
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	p := &page{t: t, url: "file://" + path}
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		// Every request of the tab, registered before the first command.
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			p.mu.Lock()
			p.reqs = append(p.reqs, e.Request.URL)
			p.mu.Unlock()
		}
	}))
	p.ctx = ctx
	t.Cleanup(func() { cancelC(); cancelA() })
	p.run(chromedp.EmulateViewport(1400, 820), chromedp.Navigate(p.url),
		chromedp.WaitReady(chromedp.CSS(`body[data-ready="true"]`)))
	return p
}

func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// evalAs runs a JavaScript expression in the page and decodes its value.
func evalAs[T any](p *page, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("browser: evaluate %s: %v", js, err)
	}
	return v
}

// eval runs an expression whose value is decoded into out (nil to ignore).
func (p *page) eval(js string, out any) {
	p.t.Helper()
	raw := evalAs[json.RawMessage](p, js)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			p.t.Fatalf("decode %s: %v", raw, err)
		}
	}
}

func (p *page) evalInt(js string) int       { p.t.Helper(); return evalAs[int](p, js) }
func (p *page) evalString(js string) string { p.t.Helper(); return evalAs[string](p, js) }

// settle waits for the page's animation frame and debounce timers.
func (p *page) settle() { p.run(chromedp.Sleep(250 * time.Millisecond)) }

// noNetwork checks that the only request the tab made is the load of the
// report file itself, and that the page loaded no resource.
func (p *page) noNetwork() {
	p.t.Helper()
	p.mu.Lock()
	reqs := append([]string(nil), p.reqs...)
	p.mu.Unlock()
	if len(reqs) == 0 {
		p.t.Fatal("no request seen at all: the network listener is not working")
	}
	for _, u := range reqs {
		if u != p.url && !strings.HasPrefix(u, "data:") {
			p.t.Errorf("the page made a network request: %s", u)
		}
	}
	if n := p.evalInt(`performance.getEntriesByType('resource').length`); n != 0 {
		p.t.Errorf("the page loaded %d resources", n)
	}
	p.t.Logf("requests seen: %v", reqs)
}

// TestBrowserCorpusTimeline opens the report of a real Claude Code run
// with tools (corpus claude/tools-partial) and checks the lanes, a cause
// link, the filters, the search, the keyboard and the network.
func TestBrowserCorpusTimeline(t *testing.T) {
	p := open(t, corpusCapture(t, "claude", "tools-partial", 0), "claude/tools-partial")

	// Lanes: three stage columns, rows in each.
	if got := p.evalString(`[...document.querySelectorAll('.lane-name')].map(e => e.textContent).join(',')`); got != "native_in,normalized_out,legacy_out" {
		t.Errorf("lanes %q", got)
	}
	for _, st := range []string{"native_in", "normalized_out", "legacy_out", "meta"} {
		if n := p.evalInt(fmt.Sprintf(`document.querySelectorAll('.row[data-stage=%q]').length`, st)); n == 0 {
			t.Errorf("no %s row on screen", st)
		}
	}
	// Each stage's card sits in its own lane: native left of normalized left of legacy.
	var xs []float64
	p.eval(`['native_in','normalized_out','legacy_out'].map(s => document.querySelector('.row[data-stage="'+s+'"] .card').getBoundingClientRect().left)`, &xs)
	if len(xs) != 3 || !(xs[0] < xs[1] && xs[1] < xs[2]) {
		t.Errorf("card x positions by lane: %v", xs)
	}

	// Cause link: select the first normalized row that has a cause.
	var sel struct {
		Seq   string `json:"seq"`
		Cause string `json:"cause"`
	}
	p.eval(`(() => { const r = [...document.querySelectorAll('.row[data-stage="normalized_out"]')].find(r => r.querySelector('.chip'));
		r.click(); return {seq: r.dataset.seq, cause: r.querySelector('.chip').textContent.replace('←','').split('…')[0]}; })()`, &sel)
	p.settle()
	if sel.Seq == "" || sel.Cause == "" {
		t.Fatalf("no normalized row with a cause: %+v", sel)
	}
	if got := p.evalString(`[...document.querySelectorAll('.row.cause')].map(r => r.dataset.seq + ':' + r.dataset.stage).join(',')`); !strings.Contains(got, sel.Cause+":native_in") {
		t.Errorf("after selecting #%s, highlighted cause rows %q; want %s:native_in", sel.Seq, got, sel.Cause)
	}
	if got := p.evalString(`[...document.querySelectorAll('#links path')].map(p => p.dataset.from + '>' + p.dataset.to).join(',')`); !strings.Contains(got, sel.Seq+">"+sel.Cause) {
		t.Errorf("connectors %q; want %s>%s", got, sel.Seq, sel.Cause)
	}
	p.run(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#detail button[data-jump="%s"]`, sel.Cause))))
	p.settle()
	if got := p.evalString(`document.querySelector('.row.selected').dataset.seq + ':' + document.querySelector('.row.selected').dataset.stage`); got != sel.Cause+":native_in" {
		t.Errorf("after the jump the selection is %q; want %s:native_in", got, sel.Cause)
	}

	// Filter by stage: hide native_in.
	total := p.evalString(`document.getElementById('status').textContent`)
	p.run(chromedp.Click(chromedp.CSS(`#stage-native_in`)))
	p.settle()
	if n := p.evalInt(`document.querySelectorAll('.row[data-stage="native_in"]').length`); n != 0 {
		t.Errorf("%d native_in rows after hiding the stage", n)
	}
	if got := p.evalString(`document.getElementById('status').textContent`); got == total {
		t.Errorf("status unchanged by the stage filter: %q", got)
	}
	p.run(chromedp.Click(chromedp.CSS(`#stage-native_in`)))
	// Filter by kind: only normalized tool events.
	p.eval(`(() => { const s = document.getElementById('kind'); s.value = 'normalized_out\u0000tool'; s.dispatchEvent(new Event('change')); return 0 })()`, nil)
	p.settle()
	if got := p.evalString(`[...document.querySelectorAll('.row')].map(r => r.dataset.stage + '/' + r.dataset.kind).join(',')`); got == "" || strings.Trim(strings.ReplaceAll(got, "normalized_out/tool", ""), ",") != "" {
		t.Errorf("kind filter shows %q; want only normalized_out/tool rows", got)
	}
	// A tool call is a card with its status and duration.
	if got := p.evalString(`(() => { const c = document.querySelector('.card.tool'); return c ? c.textContent : '' })()`); !strings.Contains(got, "Bash") || !strings.Contains(got, "ok") || !strings.Contains(got, "ms") {
		t.Errorf("tool card %q: want name, status and duration", got)
	}

	p.eval(`(() => { const s = document.getElementById('kind'); s.value = ''; s.dispatchEvent(new Event('change')); return 0 })()`, nil)

	// Search, reached with the "/" key.
	p.run(chromedp.Click(chromedp.CSS(`#viewport`)), chromedp.KeyEvent("/"))
	if got := p.evalString(`document.activeElement.id`); got != "search" {
		t.Errorf("'/' focused %q, want the search box", got)
	}
	p.run(chromedp.SendKeys(chromedp.CSS(`#search`), "README"))
	p.settle()
	status := p.evalString(`document.getElementById('status').textContent`)
	rows := p.evalInt(`document.querySelectorAll('.row').length`)
	matches := p.evalInt(`document.querySelectorAll('.row.match').length`)
	if !strings.Contains(status, "match") || rows == 0 || rows != matches {
		t.Errorf("search README: status %q, %d rows, %d marked as matches", status, rows, matches)
	}
	p.run(chromedp.KeyEvent("\x1b")) // Escape leaves the search box
	p.eval(`(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); return 0 })()`, nil)
	p.settle()

	// Keyboard: Escape clears the selection, then j j j k selects the second row.
	p.run(chromedp.Click(chromedp.CSS(`#viewport`)), chromedp.KeyEvent("\x1b"))
	p.run(chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("k"))
	p.settle()
	var order []string
	p.eval(`[...document.querySelectorAll('.row')].sort((a,b) => parseFloat(a.style.top) - parseFloat(b.style.top)).map(r => r.dataset.seq)`, &order)
	if got := p.evalString(`document.querySelector('.row.selected') ? document.querySelector('.row.selected').dataset.seq : ''`); len(order) < 2 || got != order[1] {
		t.Errorf("after j j j k the selection is %q; rows start %v", got, order[:min(3, len(order))])
	}
	p.run(chromedp.KeyEvent("G"))
	p.settle()
	if got := p.evalString(`document.querySelector('.row.selected').dataset.stage`); got != "meta" {
		t.Errorf("G selected a %s row, want the last record (meta capture.end)", got)
	}

	// Text reassembly with chunk boundaries on demand.
	p.eval(`(() => { const r = [...document.querySelectorAll('.row')].find(r => r.dataset.kind === 'text'); return r ? (r.click(), 1) : 0 })()`, nil)
	p.run(chromedp.KeyEvent("g"))
	p.eval(`(() => { document.getElementById('search').value='text/completed'; document.getElementById('search').dispatchEvent(new Event('input')); return 0 })()`, nil)
	p.settle()
	p.eval(`(() => { const r = document.querySelector('.row[data-kind="text"]'); r.click(); return 0 })()`, nil)
	p.run(chromedp.Click(chromedp.CSS(`#chunks`)))
	p.settle()
	chunks := p.evalInt(`document.querySelectorAll('#block.show-chunks .chunk').length`)
	if chunks < 2 {
		t.Errorf("reassembled block shows %d chunks with boundaries on; want the deltas", chunks)
	}

	p.noNetwork()
}

// TestBrowserFatalErrorHighlight opens the report of a real Claude Code run
// that ended in a fatal error after retries (corpus claude/fatal-error):
// error and retry rows are highlighted, and the first-error button and n
// jump to them. It also takes the screenshot the README shows when
// EVCAP_VIEW_SCREENSHOT names a file.
func TestBrowserFatalErrorHighlight(t *testing.T) {
	p := open(t, corpusCapture(t, "claude", "fatal-error", 1), "claude/fatal-error")
	if n := p.evalInt(`document.querySelectorAll('.row.retry').length`); n == 0 {
		t.Error("no retry row highlighted")
	}
	p.run(chromedp.Click(chromedp.CSS(`#first-error`)))
	p.settle()
	var got struct {
		Seq, Stage, Kind, Bg string
		Err                  bool
	}
	p.eval(`(() => { const r = document.querySelector('.row.selected'); return {seq: r.dataset.seq, stage: r.dataset.stage, kind: r.dataset.kind,
		err: r.classList.contains('err'), bg: getComputedStyle(r.querySelector('.card')).backgroundColor} })()`, &got)
	if !got.Err || got.Bg != "rgb(255, 235, 233)" {
		t.Errorf("first error row %+v: want class err with the error background", got)
	}
	if n := p.evalInt(`document.querySelectorAll('.row.err').length`); n == 0 {
		t.Error("no error row highlighted")
	}
	// "n" goes to the next error or retry after the selection.
	before := got.Seq
	p.run(chromedp.Click(chromedp.CSS(`#viewport`)), chromedp.KeyEvent("n"))
	p.settle()
	var cls string
	p.eval(`document.querySelector('.row.selected').className + ' #' + document.querySelector('.row.selected').dataset.seq`, &cls)
	if strings.HasSuffix(cls, "#"+before) || !(strings.Contains(cls, " err") || strings.Contains(cls, " retry")) {
		t.Errorf("n moved to %q from #%s", cls, before)
	}
	if got := p.evalString(`document.getElementById('facts').textContent`); !strings.Contains(got, "exit 1") {
		t.Errorf("header facts %q lack the exit status", got)
	}
	// For the picture, select the normalized fatal error: its link to
	// the native line it came from is drawn.
	p.run(chromedp.Click(chromedp.CSS(`#first-error`)))
	p.settle()
	p.eval(`(() => { document.querySelector('.row.err[data-stage="normalized_out"][data-kind="error"]').click(); return 0 })()`, nil)
	p.settle()
	if n := p.evalInt(`document.querySelectorAll('#links path').length`); n != 1 {
		t.Errorf("%d connectors drawn for the fatal error, want 1 to its native line", n)
	}
	shot, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 600 {
		t.Errorf("screenshot is %v", b)
	}
	if out := os.Getenv("EVCAP_VIEW_SCREENSHOT"); out != "" {
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot written to %s (%d bytes)", out, len(shot))
	}
	p.noNetwork()
}
