package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
)

// lastN is how many records "the last events before the end" shows.
const lastN = 12

// collector reads the sanitized capture once and fills the manifest and
// the summary's figures.
type collector struct {
	m        *Manifest
	newNorm  func(provider string) (event.Normalizer, error)
	norm     event.Normalizer
	normErr  error
	clock    offsets
	recorded tally // from normalized_out records
	derived  tally // from the normalizer run over native_in
	last     []Moment
	stderr   int64
	unknownT map[string]*UnknownType
	unknownF map[[2]string]*UnknownField
}

func newCollector(m *Manifest, newNorm func(string) (event.Normalizer, error)) *collector {
	m.Records = map[string]int64{}
	m.EventTypes = map[string]map[string]int64{}
	return &collector{m: m, newNorm: newNorm, recorded: newTally(), derived: newTally(),
		unknownT: map[string]*UnknownType{}, unknownF: map[[2]string]*UnknownField{}}
}

func (c *collector) run(ctx context.Context, r io.Reader, name string) error {
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, envelope.ErrTornLine) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read sanitized capture: %w", err)
		}
		if err := c.record(rec); err != nil {
			return fmt.Errorf("%s: sequence %d: %w", name, rec.Sequence, err)
		}
	}
	if c.norm != nil {
		for _, e := range c.norm.End() {
			c.derived.event(e, c.lastSeq(), c.lastOffset())
		}
	}
	c.finish()
	return nil
}

func (c *collector) lastSeq() int64 {
	if len(c.last) == 0 {
		return 0
	}
	return c.last[len(c.last)-1].Sequence
}

func (c *collector) lastOffset() string {
	if len(c.last) == 0 {
		return ""
	}
	return c.last[len(c.last)-1].Offset
}

func (c *collector) record(rec *envelope.Record) error {
	stage := string(rec.Stage)
	c.m.Records[stage]++
	types := c.m.EventTypes[stage]
	if types == nil {
		types = map[string]int64{}
		c.m.EventTypes[stage] = types
	}
	types[rec.EventType]++
	if c.m.Provider == "" {
		c.m.Provider = rec.Provider
	}
	off := c.clock.format(rec.Timestamp)
	mo := Moment{Sequence: rec.Sequence, Offset: off, Stage: stage, What: rec.EventType}

	switch rec.Stage {
	case envelope.StageMeta:
		switch rec.EventType {
		case envelope.EventCaptureStart:
			var s capture.Start
			if err := json.Unmarshal(rec.Payload, &s); err != nil {
				return fmt.Errorf("capture.start payload: %w", err)
			}
			c.m.RecordedWith = s.EvcapVersion
			if s.Provider != "" {
				c.m.Provider = s.Provider
			}
			c.m.Agent = Agent{Name: s.CLIName, Version: s.CLIVersion}
			c.m.OS, c.m.Arch = s.OS, s.Arch
			c.m.Argv = maskFlags(s.Argv)
		case envelope.EventCaptureEnd:
			var e capture.End
			if err := json.Unmarshal(rec.Payload, &e); err != nil {
				return fmt.Errorf("capture.end payload: %w", err)
			}
			c.m.Exit = Exit{Ended: true, Code: e.ExitCode, Signal: e.Signal, CleanEnd: e.CleanEnd,
				DurationMs: e.DurationMs, Notes: e.Notes}
			mo.What = "capture.end: " + exitWords(c.m.Exit)
		}
	case envelope.StageNativeIn:
		switch rec.EventType {
		case envelope.EventStderr, envelope.EventNonJSON:
			if rec.EventType == envelope.EventStderr {
				c.stderr++
			}
			mo.What = rec.EventType + ": " + string(envelope.DecodeNativeLine(rec.EventType, rec.Payload))
		case envelope.EventGap:
		default:
			c.native(rec)
		}
	case envelope.StageNormalizedOut:
		var e event.Event
		if err := json.Unmarshal(rec.Payload, &e); err != nil {
			return fmt.Errorf("normalized_out payload: %w", err)
		}
		c.recorded.event(e, rec.Sequence, off)
		mo.What = describe(e)
	case envelope.StageLegacyOut:
		mo.What = string(envelope.DecodeNativeLine(envelope.EventStderr, rec.Payload))
	}
	c.last = append(c.last, mo)
	if len(c.last) > lastN {
		c.last = c.last[1:]
	}
	return nil
}

// native feeds one provider line to the census and to the normalizer
// (whose events stand in for normalized_out when the capture has none).
func (c *collector) native(rec *envelope.Record) {
	if c.norm == nil && c.normErr == nil && c.newNorm != nil {
		c.norm, c.normErr = c.newNorm(rec.Provider)
		c.m.Census.Checked = c.norm != nil
	}
	if c.norm == nil {
		return
	}
	line := envelope.DecodeNativeLine(rec.EventType, rec.Payload)
	c.m.Census.NativeLines++
	cl := c.norm.Classify(line)
	if cl.Disposition == event.DispositionUnknown {
		u := c.unknownT[cl.NativeType]
		if u == nil {
			u = &UnknownType{NativeType: cl.NativeType, FirstSequence: rec.Sequence}
			c.unknownT[cl.NativeType] = u
		}
		u.Count++
	}
	for _, f := range cl.UnknownFields {
		k := [2]string{cl.NativeType, f}
		u := c.unknownF[k]
		if u == nil {
			u = &UnknownField{NativeType: cl.NativeType, Field: f, FirstSequence: rec.Sequence}
			c.unknownF[k] = u
		}
		u.Count++
	}
	off := c.clock.format(rec.Timestamp)
	for _, e := range c.norm.Line(rec.Sequence, line) {
		c.derived.event(e, rec.Sequence, off)
	}
}

func (c *collector) finish() {
	c.m.Census.UnknownTypes = []UnknownType{}
	for _, u := range c.unknownT {
		c.m.Census.UnknownTypes = append(c.m.Census.UnknownTypes, *u)
	}
	sort.Slice(c.m.Census.UnknownTypes, func(i, j int) bool {
		return c.m.Census.UnknownTypes[i].NativeType < c.m.Census.UnknownTypes[j].NativeType
	})
	c.m.Census.UnknownFields = []UnknownField{}
	for _, u := range c.unknownF {
		c.m.Census.UnknownFields = append(c.m.Census.UnknownFields, *u)
	}
	sort.Slice(c.m.Census.UnknownFields, func(i, j int) bool {
		a, b := c.m.Census.UnknownFields[i], c.m.Census.UnknownFields[j]
		if a.NativeType != b.NativeType {
			return a.NativeType < b.NativeType
		}
		return a.Field < b.Field
	})
	if c.m.Argv == nil {
		c.m.Argv = []string{}
	}
	if c.m.Agent.Version == "" {
		c.m.Agent.Version = c.recorded.version
		if c.m.Agent.Version == "" {
			c.m.Agent.Version = c.derived.version
		}
	}
	if c.m.Agent.Name == "" {
		c.m.Agent.Name = c.m.Provider
	}
}

// exitWords says how a run ended in a few words.
func exitWords(x Exit) string {
	switch {
	case !x.Ended:
		return "no capture.end (the recorder did not finish)"
	case x.Code != nil:
		return "exit " + strconv.Itoa(*x.Code)
	case x.Signal != "":
		return "killed by " + x.Signal
	default:
		return "no exit status"
	}
}

// offsets turns record timestamps into offsets from the first record.
// Sanitized captures already hold offsets ("+1.250s"); others hold RFC
// 3339 times.
type offsets struct {
	base    time.Time
	hasBase bool
}

func (o *offsets) format(ts string) string {
	t, offset, err := envelope.ParseTimestamp(ts)
	switch {
	case err != nil:
		return ""
	case offset:
		return ts
	}
	if !o.hasBase {
		o.base, o.hasBase = t, true
	}
	return fmt.Sprintf("+%.3fs", t.Sub(o.base).Seconds())
}
