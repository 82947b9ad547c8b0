package export

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// SenderOptions configure where and how spans go.
type SenderOptions struct {
	// Endpoint is the OTLP/HTTP base URL ("http://127.0.0.1:4318"); traces
	// are posted to its /v1/traces (a URL with a path is used as it is). Empty: the standard environment
	// variables decide (OTEL_EXPORTER_OTLP_ENDPOINT,
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, …),
	// as in every OpenTelemetry tool.
	Endpoint string
	// Headers are sent with every request (added to those from the
	// environment).
	Headers map[string]string
	// ServiceName is the resource's service.name (DefaultServiceName when
	// empty); Version is evcap's version, as service.version.
	ServiceName string
	Version     string
	// Live makes Send never block: spans go through a bounded queue of
	// QueueSize (default 4096) and are dropped, and counted, when it is
	// full; exports are not retried. For a recording in progress, where
	// the agent must never wait for the collector.
	Live      bool
	QueueSize int
	// Timeout bounds each export request (default 10 s; 3 s when Live).
	Timeout time.Duration
}

// Sender sends finished spans to an OTLP endpoint through the SDK's
// exporter. Export failures are counted and kept, never printed: the
// caller decides how to warn.
type Sender struct {
	emitter *Emitter
	exp     *errorKeeper
	live    bool
	queue   chan *Span
	done    chan struct{}
	dropped atomic.Int64
	closed  sync.Once
}

// NewSender connects nothing yet (OTLP/HTTP opens connections per
// export), so a collector that is down is noticed at the first export,
// not here.
func NewSender(ctx context.Context, opts SenderOptions) (*Sender, error) {
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
		if opts.Live {
			timeout = 3 * time.Second
		}
	}
	httpOpts := []otlptracehttp.Option{otlptracehttp.WithTimeout(timeout)}
	if opts.Endpoint != "" {
		u, err := url.Parse(opts.Endpoint)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("otlp endpoint %q: want a URL such as http://127.0.0.1:4318", opts.Endpoint)
		}
		// A base URL gets the traces path, as OTEL_EXPORTER_OTLP_ENDPOINT
		// does; a URL with a path is taken as the full traces URL.
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		httpOpts = append(httpOpts, otlptracehttp.WithEndpointURL(u.String()))
	}
	if len(opts.Headers) > 0 {
		httpOpts = append(httpOpts, otlptracehttp.WithHeaders(opts.Headers))
	}
	if opts.Live {
		httpOpts = append(httpOpts, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	} else {
		httpOpts = append(httpOpts, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 5 * time.Second, MaxElapsedTime: 30 * time.Second,
		}))
	}
	raw, err := otlptracehttp.New(ctx, httpOpts...)
	if err != nil {
		return nil, fmt.Errorf("otlp exporter: %w", err)
	}
	keeper := &errorKeeper{next: raw}
	// Blocking: the batch processor waits for room instead of dropping, so
	// a file export loses nothing; the live path bounds waiting with its
	// own queue in front.
	proc := sdktrace.NewBatchSpanProcessor(keeper, sdktrace.WithBlocking(),
		sdktrace.WithMaxQueueSize(2048), sdktrace.WithMaxExportBatchSize(512),
		sdktrace.WithBatchTimeout(200*time.Millisecond))
	s := &Sender{emitter: NewEmitter(proc, opts.ServiceName, opts.Version), exp: keeper, live: opts.Live}
	if opts.Live {
		n := opts.QueueSize
		if n <= 0 {
			n = 4096
		}
		s.queue = make(chan *Span, n)
		s.done = make(chan struct{})
		go s.drain()
	}
	return s, nil
}

func (s *Sender) drain() {
	defer close(s.done)
	for sp := range s.queue {
		s.emitter.Emit(context.Background(), sp)
	}
}

// Send hands one finished span on. When Live, it never blocks.
func (s *Sender) Send(ctx context.Context, sp *Span) {
	if !s.live {
		s.emitter.Emit(ctx, sp)
		return
	}
	select {
	case s.queue <- sp:
	default:
		s.dropped.Add(1)
	}
}

// Dropped is the number of spans the live queue had no room for.
func (s *Sender) Dropped() int64 { return s.dropped.Load() }

// Failures returns how many export requests failed and the first error.
func (s *Sender) Failures() (int64, error) { return s.exp.failures() }

// Flush sends what is queued, waiting at most until ctx is done.
func (s *Sender) Flush(ctx context.Context) error { return s.emitter.ForceFlush(ctx) }

// Close sends what is queued and stops, waiting at most until ctx is
// done. It returns the first export failure, if any.
func (s *Sender) Close(ctx context.Context) error {
	var err error
	s.closed.Do(func() {
		if s.live {
			close(s.queue)
			select {
			case <-s.done:
			case <-ctx.Done():
			}
		}
		err = s.emitter.Shutdown(ctx)
	})
	if n, first := s.exp.failures(); n > 0 {
		return fmt.Errorf("%d export request(s) failed, first: %w", n, first)
	}
	return err
}

// errorKeeper wraps the OTLP exporter so that failures are kept for the
// caller instead of going to OpenTelemetry's global error handler (which
// would print to the importing program's log).
type errorKeeper struct {
	next  sdktrace.SpanExporter
	mu    sync.Mutex
	count int64
	first error
}

func (e *errorKeeper) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.next.ExportSpans(ctx, spans); err != nil {
		e.mu.Lock()
		e.count++
		if e.first == nil {
			e.first = err
		}
		e.mu.Unlock()
	}
	return nil
}

func (e *errorKeeper) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

func (e *errorKeeper) failures() (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.count, e.first
}
