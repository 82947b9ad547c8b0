package fakemodel

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxBody bounds a request body; agent CLIs send a few hundred KiB at most.
const maxBody = 64 << 20

// Options tune a Server. The zero value is usable.
type Options struct {
	// Log, when set, receives one JSON line per request (see logEntry).
	Log io.Writer
	// Workdir makes relative read/write paths absolute when the request does
	// not announce the CLI's working directory.
	Workdir string
	// ChunkDelay is slept after each streamed delta, so that a live renderer
	// has something to show; zero streams at full speed.
	ChunkDelay time.Duration
	// LogStringLimit cuts strings in logged bodies to this many characters
	// (default 300); tool declarations are logged by name only.
	LogStringLimit int
}

// Stats counts what the server answered so far.
type Stats struct {
	Requests int // every request, including unknown routes
	Main     int // model requests that declared tools
	Side     int // model requests without tools (title generation and the like)
	Errors   int // model requests answered with an HTTP error
	// Turns lists, in order, the turn index served to each successful main
	// request.
	Turns []int
}

// Server serves one scenario over the four protocols. It is an
// http.Handler; it is safe for concurrent use.
type Server struct {
	sc  *Scenario
	opt Options

	mu    sync.Mutex
	stats Stats
}

// New returns a server for sc.
func New(sc *Scenario, opt Options) *Server {
	if opt.LogStringLimit <= 0 {
		opt.LogStringLimit = 300
	}
	return &Server{sc: sc, opt: opt}
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Turns = append([]int(nil), s.stats.Turns...)
	return st
}

// Serve answers requests on ln until ctx is done, then shuts down (waiting
// briefly for streams in flight) and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("fake model server on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("fake model server on %s: %w", ln.Addr(), err)
	}
	return nil
}

// ServeHTTP routes a request to its protocol.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, model, stream, ok := route(r)
	if !ok {
		// Claude Code sends HEAD / as a connectivity check; anything else
		// unknown is logged so that a new CLI version's needs show up.
		status := http.StatusNotFound
		if r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet) {
			status = http.StatusOK
		}
		seq := s.count(func(st *Stats) {})
		s.log(logEntry{seq: seq, method: r.Method, path: r.URL.RequestURI(), kind: "unknown", status: status})
		w.WriteHeader(status)
		return
	}
	body, err := readBody(r)
	if err != nil {
		seq := s.count(func(st *Stats) { st.Errors++ })
		s.log(logEntry{seq: seq, method: r.Method, path: r.URL.RequestURI(), protocol: p, kind: "bad", status: 400, note: err.Error()})
		s.writeError(w, p, &HTTPError{Status: 400, Message: err.Error()}, seq)
		return
	}
	req, err := parseRequest(p, body, model)
	if err != nil {
		seq := s.count(func(st *Stats) { st.Errors++ })
		s.log(logEntry{seq: seq, method: r.Method, path: r.URL.RequestURI(), protocol: p, kind: "bad", status: 400, note: err.Error(), body: body})
		s.writeError(w, p, &HTTPError{Status: 400, Message: err.Error()}, seq)
		return
	}
	if p == OpenAIChat || p == Anthropic || p == OpenAIResponses {
		stream = req.stream
	}

	// Decide the answer under the lock, so that concurrent requests count
	// errors and turns consistently; write it outside.
	var (
		herr *HTTPError
		a    *answer
		turn = -1
		kind = "main"
	)
	if req.side() {
		kind = "side"
	}
	seq := s.count(func(st *Stats) {
		switch {
		case s.sc.Fatal != nil:
			herr = s.sc.Fatal
		case req.side():
			st.Side++
		default:
			st.Main++
			if st.Main <= len(s.sc.Errors) {
				herr = &s.sc.Errors[st.Main-1]
			}
		}
		if herr != nil {
			st.Errors++
			return
		}
		if !req.side() {
			turn, _ = pickTurn(s.sc.turnsFor(req), req.toolResults)
			st.Turns = append(st.Turns, turn)
		}
	})
	entry := logEntry{seq: seq, method: r.Method, path: r.URL.RequestURI(), protocol: p, kind: kind, toolResults: req.toolResults, turn: turn, workdir: req.workdir, body: body}
	if herr != nil {
		entry.status = herr.statusFor(p)
		s.log(entry)
		s.writeError(w, p, herr, seq)
		return
	}
	if req.side() {
		a = sideAnswer(req, s.sc.Title, seq)
	} else {
		_, t := pickTurn(s.sc.turnsFor(req), req.toolResults)
		a = buildAnswer(req, t, seq, s.opt.Workdir)
	}
	for _, c := range a.calls {
		entry.calls = append(entry.calls, c.name)
	}
	entry.status = http.StatusOK
	s.log(entry)
	for k, v := range s.sc.Headers {
		w.Header().Set(k, v)
	}
	s.writeAnswer(w, req, a, stream)
}

// route maps a request to its protocol. model is taken from a Gemini path;
// stream says whether a Gemini request streams (the others say so in the body).
func route(r *http.Request) (p Protocol, model string, stream, ok bool) {
	if r.Method != http.MethodPost {
		return "", "", false, false
	}
	switch path := r.URL.Path; {
	case path == "/v1/messages":
		return Anthropic, "", true, true
	case path == "/v1/responses":
		return OpenAIResponses, "", true, true
	case path == "/v1/chat/completions":
		return OpenAIChat, "", true, true
	case strings.HasPrefix(path, "/v1beta/models/"):
		rest := strings.TrimPrefix(path, "/v1beta/models/")
		m, method, found := strings.Cut(rest, ":")
		if !found {
			return "", "", false, false
		}
		switch method {
		case "streamGenerateContent":
			return Gemini, m, true, true
		case "generateContent":
			return Gemini, m, false, true
		}
	}
	return "", "", false, false
}

func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = http.MaxBytesReader(nil, r.Body, maxBody)
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, fmt.Errorf("gzip request body: %w", err)
		}
		defer zr.Close()
		rd = zr
	default:
		return nil, fmt.Errorf("request body has Content-Encoding %q, which the fake server does not decode", enc)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return b, nil
}

// count increments the request counter, runs f on the stats under the lock
// and returns the request's sequence number (from 1).
func (s *Server) count(f func(*Stats)) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Requests++
	f(&s.stats)
	return s.stats.Requests
}

func (s *Server) writeError(w http.ResponseWriter, p Protocol, e *HTTPError, seq int) {
	status := e.statusFor(p)
	var body obj
	switch p {
	case Anthropic:
		body = anthropicError(status, e.Message, fmt.Sprintf("%04d", seq))
	case Gemini:
		body = geminiError(status, e.Message, e.RetryAfterSeconds)
	default:
		body = openAIError(status, e.Message)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.RetryAfterSeconds != nil {
		h.Set("Retry-After", itoa(*e.RetryAfterSeconds))
	}
	b, _ := marshal(body)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) writeAnswer(w http.ResponseWriter, req *request, a *answer, stream bool) {
	if !stream {
		var body obj
		switch req.protocol {
		case Anthropic:
			body = anthropicMessage(a)
		case OpenAIChat:
			body = chatCompletion(a)
		case Gemini:
			body = geminiWhole(a)
		default:
			// Codex always streams; a whole Responses object is not needed.
			s.writeError(w, req.protocol, &HTTPError{Status: 400, Message: "the fake server only streams /v1/responses"}, 0)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := marshal(body)
		_, _ = w.Write(b)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	out := newSSE(w, s.opt.ChunkDelay)
	switch req.protocol {
	case Anthropic:
		writeAnthropic(out, a)
	case OpenAIResponses:
		writeResponses(out, a)
	case OpenAIChat:
		writeChat(out, a, req.includeUsage)
	case Gemini:
		writeGemini(out, a)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
