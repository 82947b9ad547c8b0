package export

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// Emitter turns finished Spans into OpenTelemetry SDK spans with the ids,
// parents and times the Builder chose, and hands them to a span processor
// (and so to an exporter). It owns a private TracerProvider: nothing in
// the importing program's global OpenTelemetry state is touched.
type Emitter struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// DefaultServiceName is the service.name of the resource evcap's spans
// belong to unless the caller names another.
const DefaultServiceName = "evcap"

// NewEmitter returns an Emitter that sends spans through proc, under a
// resource with the given service name (DefaultServiceName when empty)
// and the evcap version.
func NewEmitter(proc sdktrace.SpanProcessor, serviceName, evcapVersion string) *Emitter {
	if serviceName == "" {
		serviceName = DefaultServiceName
	}
	res := sdkresource.NewSchemaless(
		semconv.ServiceNameKey.String(serviceName),
		semconv.ServiceVersionKey.String(evcapVersion),
		attribute.String("telemetry.sdk.name", "opentelemetry"),
	)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(proc),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(chosenIDs{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit:   -1,
			AttributeCountLimit:         256,
			EventCountLimit:             1024,
			LinkCountLimit:              16,
			AttributePerEventCountLimit: 64,
			AttributePerLinkCountLimit:  16,
		}),
	)
	return &Emitter{tp: tp, tracer: tp.Tracer("github.com/evcap/evcap/export")}
}

// Emit starts and ends one SDK span for s. Spans may be emitted in any
// order: a child's parent is named by id, so it need not exist yet.
func (e *Emitter) Emit(ctx context.Context, s *Span) {
	// The SDK takes a valid span context in ctx as the parent (and then
	// asks the generator for a span id only); an empty one makes a root.
	parent := trace.SpanContext{}
	if s.Parent.IsValid() {
		parent = trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: s.Trace, SpanID: s.Parent, TraceFlags: trace.FlagsSampled,
		})
	}
	ctx = trace.ContextWithSpanContext(ctx, parent)
	ctx = context.WithValue(ctx, idsKey{}, ids{trace: s.Trace, span: s.ID})
	kind := trace.SpanKindInternal
	if s.Op == OpChat {
		kind = trace.SpanKindClient
	}
	_, span := e.tracer.Start(ctx, s.Name,
		trace.WithTimestamp(s.Start), trace.WithSpanKind(kind), trace.WithAttributes(s.Attrs...))
	for _, ev := range s.Events {
		span.AddEvent(ev.Name, trace.WithTimestamp(ev.Time), trace.WithAttributes(ev.Attrs...))
	}
	if s.Failed {
		span.SetStatus(codes.Error, s.StatusMessage)
	}
	span.End(trace.WithTimestamp(s.End))
}

// Shutdown flushes and stops the span processor.
func (e *Emitter) Shutdown(ctx context.Context) error { return e.tp.Shutdown(ctx) }

// ForceFlush sends what the span processor holds.
func (e *Emitter) ForceFlush(ctx context.Context) error { return e.tp.ForceFlush(ctx) }

type idsKey struct{}

type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

// chosenIDs is an IDGenerator that returns the ids the Builder derived,
// carried to it in the span's start context.
type chosenIDs struct{}

func (chosenIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	v, _ := ctx.Value(idsKey{}).(ids)
	return v.trace, v.span
}

func (chosenIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	v, _ := ctx.Value(idsKey{}).(ids)
	return v.span
}
