package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// OpencodeSession says what evcap record --opencode does on an opencode
// server.
type OpencodeSession struct {
	// BaseURL is the server (http://127.0.0.1:4096).
	BaseURL string
	// Prompt is the text of the one message sent to the new session.
	Prompt string
	// Model is "providerID/modelID"; empty leaves it to the server.
	Model string
	// Title names the session; empty lets the server name it.
	Title string
	// Permission answers the session's permission requests (once, always
	// or reject); empty leaves them to another client (the TUI).
	Permission string
}

// maxEarly bounds the events held while the session's id is not known
// yet (its session.created can arrive before POST /session returns).
const maxEarly = 1000

// Opencode records one session of an opencode server from its very first
// event: it subscribes to GET /event first (the bus is shared by every
// session, so capture has to start before the session exists), then
// creates the session and sends the prompt. Only events of that session
// and its child (subagent) sessions are recorded, as native_in lines;
// evcap's own requests (the subscription, POST /session, the prompt and
// any permission replies) are native_out http.request records. It ends
// when the session goes idle after being busy, a signal arrives on
// opts.Signals, or the server ends the stream.
func Opencode(ctx context.Context, s OpencodeSession, opts Options) (Result, error) {
	opts.defaults()
	opts.Provider = "opencode"
	base := strings.TrimRight(s.BaseURL, "/")
	d, ok := providers.Lookup("opencode")
	if !ok || d.Server == nil {
		return Result{ExitCode: 2}, errors.New("record: --opencode: no provider describes the opencode server")
	}
	api := d.Server
	p := newPipeline(&opts, []string{"opencode-server", base}, "opencode")
	if err := p.prepare(); err != nil {
		return Result{ExitCode: 1}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+api.EventPath, nil)
	if err != nil {
		return Result{ExitCode: 2}, fmt.Errorf("record: --opencode %s: %w", base, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	pushRequest(p.q, http.MethodGet, api.EventPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Result{ExitCode: 1}, fmt.Errorf("record: --opencode %s: %w", base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Result{ExitCode: 1}, fmt.Errorf("record: --opencode %s%s: %s", base, api.EventPath, resp.Status)
	}

	var mu sync.Mutex
	var notes []string
	addNote := func(n string) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}
	done := make(chan error, 1)
	go func() { done <- p.run() }()
	go func() {
		select {
		case sig := <-opts.Signals:
			addNote(fmt.Sprintf("stopped by %v", sig))
			cancel()
		case <-ctx.Done():
		}
	}()

	f := &sessionFilter{read: api.ReadEvent, ids: map[string]bool{}, answered: map[string]bool{},
		push: func(b []byte) { p.q.push(streamStdout, b) }}
	client := &http.Client{}
	post := func(path string, body []byte) ([]byte, error) {
		pushRequest(p.q, http.MethodPost, path, body)
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		res, err := client.Do(r)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
		if err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusOK {
			return b, fmt.Errorf("POST %s: %s: %s", path, res.Status, clip(b))
		}
		return b, nil
	}

	// The subscription is open: only now is the session made.
	connected := make(chan struct{})
	go func() {
		select {
		case <-connected:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
			return
		}
		b, err := post(api.SessionPath, api.SessionBody(s.Title))
		id := api.CreatedSession(b)
		if err == nil && id == "" {
			err = fmt.Errorf("POST %s: no id in %s", api.SessionPath, clip(b))
		}
		if err != nil {
			addNote(fmt.Sprintf("could not create the session: %v", err))
			cancel()
			return
		}
		f.start(id)
		if _, err := post(api.PromptPath(id), api.PromptBody(s.Prompt, s.Model)); err != nil && ctx.Err() == nil {
			addNote(fmt.Sprintf("sending the prompt: %v", err))
			cancel()
		}
	}()

	first := true
	idle := false
	readErr := readSSE(resp.Body, func(data []byte) {
		if first {
			first = false
			close(connected)
		}
		ev := f.event(data)
		switch {
		case ev.permission != nil && s.Permission != "":
			path, body := ev.permission.ReplyPath, api.ReplyBody(s.Permission)
			go func(id string) {
				if _, err := post(path, body); err != nil && ctx.Err() == nil {
					addNote(fmt.Sprintf("answering permission %s: %v", id, err))
				}
			}(ev.permission.ID)
		case ev.rootIdle:
			idle = true
			addNote("stopped: the session went idle")
			cancel()
		}
	})
	if first {
		close(connected)
	}
	interrupted := ctx.Err() != nil
	cancel()
	mu.Lock()
	ex := exitInfo{noChild: true, ownEnd: (readErr == nil && !interrupted) || idle}
	if readErr != nil && !interrupted {
		notes = append(notes, fmt.Sprintf("reading the event stream: %v", readErr))
	}
	ex.notes = append(ex.notes, notes...)
	mu.Unlock()
	p.exit = ex
	p.q.close()
	err = <-done
	return p.result(), err
}

// sessionFilter keeps the events of one session and its descendants,
// passing them to push in stream order (under its lock, so the events
// held until the session's id was known go before later ones).
type sessionFilter struct {
	read  func(data []byte) (provider.BusEvent, bool)
	push  func([]byte)
	mu    sync.Mutex
	root  string
	ids   map[string]bool
	early [][]byte // session events seen before the root was known
	busy  bool
	// answered holds the permission requests already passed on to be
	// answered: a server that announces one request in both permission
	// protocols gets one answer.
	answered map[string]bool
}

// filtered is what one event means beyond being kept.
type filtered struct {
	permission *provider.PermissionRequest // a permission request of the session to answer
	rootIdle   bool                        // the root session went idle after being busy
}

// start sets the root session and passes on the held events that belong
// to it.
func (f *sessionFilter) start(root string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.root = root
	f.ids[root] = true
	for _, d := range f.early {
		if k, _ := f.keepLocked(d); k {
			f.push(d)
		}
	}
	f.early = nil
}

// event takes one event's data (with its trailing newline), passes it on
// when it belongs to the session, and says what it means.
func (f *sessionFilter) event(data []byte) filtered {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root == "" {
		if ev, ok := f.read(data); ok && ev.Session != "" && len(f.early) < maxEarly {
			f.early = append(f.early, append([]byte(nil), data...))
		}
		return filtered{}
	}
	keep, ev := f.keepLocked(data)
	if keep {
		f.push(data)
	}
	return ev
}

func (f *sessionFilter) keepLocked(data []byte) (bool, filtered) {
	var out filtered
	ev, ok := f.read(data)
	if !ok || ev.Session == "" {
		return false, out
	}
	if !f.ids[ev.Session] {
		if ev.Parent == "" || !f.ids[ev.Parent] {
			return false, out
		}
		f.ids[ev.Session] = true // a subagent's session
	}
	if ev.Session == f.root {
		if ev.Busy {
			f.busy = true
		}
		if ev.Idle {
			out.rootIdle = f.busy
		}
	}
	if p := ev.Permission; p != nil && !f.answered[p.ID] {
		f.answered[p.ID] = true
		out.permission = p
	}
	return true, out
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
