package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/internal/lines"
)

// Stream records a stream that another program pipes in (evcap record
// --stdin): r is read until EOF, a signal on opts.Signals, or (with
// UntilIdle) the session going idle. Nothing is run, so the exit code is 0.
func Stream(r io.Reader, opts Options) (Result, error) {
	opts.defaults()
	p := newPipeline(&opts, nil, "")
	if err := p.prepare(); err != nil {
		return Result{ExitCode: 1}, err
	}
	stop := make(chan struct{})
	p.onIdle = func() { closeOnce(stop) }
	done := make(chan error, 1)
	go func() { done <- p.run() }()

	eof := make(chan error, 1)
	passthrough := &stickyWriter{w: newPipeWriter(opts.Passthrough)}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				passthrough.Write(buf[:n])
				p.q.push(streamStdout, buf[:n])
			}
			if err != nil {
				eof <- err
				return
			}
		}
	}()
	ex := exitInfo{noChild: true}
	select {
	case err := <-eof:
		ex.ownEnd = true
		if !errors.Is(err, io.EOF) {
			ex.ownEnd = false
			ex.notes = append(ex.notes, fmt.Sprintf("reading standard input: %v", err))
		}
	case sig := <-opts.Signals:
		// A blocked read of a terminal or pipe cannot be interrupted; the
		// reader is left behind and its later output is not recorded.
		ex.notes = append(ex.notes, fmt.Sprintf("stopped by %v before the input ended", sig))
	case <-stop:
		ex.notes = append(ex.notes, "stopped: the session went idle")
	}
	if passthrough.err != nil {
		ex.notes = append(ex.notes, fmt.Sprintf("--passthrough stopped: %v", passthrough.err))
	}
	p.exit = ex
	p.q.close()
	err := <-done
	return p.result(), err
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// SSE attaches to a server-sent-events stream (opencode's GET /event) and
// records the data of each event as one native line, until the server
// ends the stream, a signal arrives on opts.Signals, or (with UntilIdle)
// the session goes idle. Events whose data spans several lines are joined
// with spaces, which JSON does not mind.
func SSE(ctx context.Context, url string, opts Options) (Result, error) {
	opts.defaults()
	p := newPipeline(&opts, []string{"GET", url}, "sse")
	if err := p.prepare(); err != nil {
		return Result{ExitCode: 1}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Result{ExitCode: 2}, fmt.Errorf("record: --sse %s: %w", url, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	pushRequest(p.q, http.MethodGet, req.URL.RequestURI(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Result{ExitCode: 1}, fmt.Errorf("record: --sse %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Result{ExitCode: 1}, fmt.Errorf("record: --sse %s: %s", url, resp.Status)
	}

	var mu sync.Mutex
	var notes []string
	addNote := func(n string) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}
	idle := false
	p.onIdle = func() {
		mu.Lock()
		idle = true
		mu.Unlock()
		addNote("stopped: the session went idle")
		cancel()
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

	readErr := readSSE(resp.Body, func(data []byte) { p.q.push(streamStdout, data) })
	interrupted := ctx.Err() != nil
	cancel()
	mu.Lock()
	ex := exitInfo{noChild: true, ownEnd: readErr == nil || idle}
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

// readSSE calls emit with the data of each event followed by a newline.
func readSSE(r io.Reader, emit func([]byte)) error {
	lr := lines.NewReader(r)
	var data []byte
	has := false
	for {
		line, err := lr.Next()
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case len(line) == 0:
			if has {
				emit(append(data, '\n'))
			}
			data, has = data[:0], false
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[5:], []byte{' '})
			if has {
				data = append(data, ' ')
			}
			data = append(data, v...)
			has = true
		}
		if err != nil {
			return nil
		}
	}
}

// pushRequest queues an HTTP request evcap makes, as a native_out record.
func pushRequest(q *queue, method, path string, body []byte) {
	r := capture.Request{Method: method, Path: path, Body: json.RawMessage("null")}
	if len(body) > 0 && json.Valid(body) {
		r.Body = body
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	q.push(streamRequest, b)
}
