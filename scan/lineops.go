package scan

import (
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// What checking one line gives the in-order stage. A line is checked on its
// own (by any worker, lines of one file in parallel), which needs nothing
// of the lines before it but the matcher of the project declared so far.
// What does depend on earlier lines is left to the stage that takes lines
// in file order: the ids learned so far (a string's volatile-id finding),
// the private-key streams that run across records, the blocks of streamed
// deltas, and the findings already reported (one per line, rule and
// pointer). So a line's check yields its findings and these steps as ops,
// in the order the walk met them, and applying them in that order reports
// the findings a scan of one line after another would, in the same order.

type opKind uint8

const (
	// opFind reports f.
	opFind opKind = iota
	// opIDs reports f when one of cands is a learned id.
	opIDs
	// opPEM feeds text to the private-key stream named stream and
	// reports f when it holds a body line.
	opPEM
)

// An op holds what its finding needs beyond the line's number and
// sequence (lineOut.n and opSeq, the same for every op of a line); the
// tokens of an opIDs and the text of an opPEM are kept beside the ops
// (lineOut.cands[i:j], lineOut.pems[i]): ops stay small, since a long
// line can give hundreds of thousands.
type op struct {
	kind opKind
	// i and j are opIDs' cands (cands[i:j]: the tokens of the text that
	// could be volatile ids, every token knownIDs.holds would look up
	// that could be in the set) and opPEM's pems[i].
	i, j                   int32
	rule, pointer, decoded string
}

// pemOp is an opPEM's text and stream; marker says text holds a BEGIN
// line or a private-key token (without one, a stream that is not inside
// a key ignores the text).
type pemOp struct {
	text, stream string
	marker       bool
}

// lineOut is the result of checking one line.
type lineOut struct {
	n int64
	// rec: the line is a record (of a capture or fixture): the fields
	// below it apply.
	rec bool
	// learned are the ids the record names (native lines and meta
	// records).
	learned []string
	// session: the record's sessionId is a volatile id (at sequence seq).
	session bool
	seq     int64
	// d and ends are the delta the record carries and the blocks it ends
	// (a normalized_out or legacy_out record: see deltaOf); native is the
	// JSON payload of a native_in record, of the named provider, whose
	// deltas the in-order stage asks the provider's tracker about.
	d        delta
	ends     []string
	native   string
	provider string
	ops      []op
	// opSeq is the sequence number of the ops' findings.
	opSeq int64
	// cands and pems hold the ops' tokens and texts.
	cands []string
	pems  []pemOp
}

func (o *lineOut) reset(n int64) {
	clear(o.pems) // (their texts may be long: do not keep them)
	*o = lineOut{n: n, ops: o.ops[:0], learned: o.learned[:0], cands: o.cands[:0], pems: o.pems[:0]}
}

// record notes the delta of a record of the stage and provider whose
// payload is payload (a view of the line, which lives as long as o).
func (o *lineOut) record(stage, provider string, payload gjson.Result) {
	if stage == "native_in" {
		if payload.Type == gjson.JSON {
			o.native, o.provider = payload.Raw, provider
		}
		return
	}
	o.d, o.ends = deltaOf(stage, payload)
}

// find adds an opFind for f, unless the op before it is an opFind of the
// same line, rule and pointer: applying it would report nothing (the
// in-order stage reports the first finding of a line, rule and pointer,
// and nothing between the two ops forgets it). One text can give
// thousands of hits of one rule (paths in a long tool output). f is of
// the line (f.Line is n) and its sequence is opSeq.
func (o *lineOut) find(f Finding) {
	if k := len(o.ops) - 1; k >= 0 {
		if p := &o.ops[k]; p.kind == opFind && p.rule == f.Rule && p.pointer == f.Pointer {
			return
		}
	}
	o.ops = append(o.ops, op{kind: opFind, rule: f.Rule, pointer: f.Pointer, decoded: f.Decoded})
}

// addIDs adds an opIDs for f with the tokens cands[start:].
func (o *lineOut) addIDs(f Finding, start int) {
	o.ops = append(o.ops, op{kind: opIDs, i: int32(start), j: int32(len(o.cands)), rule: f.Rule, pointer: f.Pointer, decoded: f.Decoded})
}

// addPEM adds an opPEM for f, feeding text to stream.
func (o *lineOut) addPEM(f Finding, text, stream string, marker bool) {
	o.pems = append(o.pems, pemOp{text: text, stream: stream, marker: marker})
	o.ops = append(o.ops, op{kind: opPEM, i: int32(len(o.pems) - 1), rule: f.Rule, pointer: f.Pointer, decoded: f.Decoded})
}

// finding is the finding of x, an op of o.
func (o *lineOut) finding(x *op) Finding {
	return Finding{Line: o.n, Sequence: o.opSeq, Rule: x.rule, Pointer: x.pointer, Decoded: x.decoded}
}

// apply carries out one line's result, in file order.
func (f *fileScan) apply(o *lineOut, m *matcher) {
	if f.m == nil || f.m.shared != m {
		f.m = m.local()
	}
	n := o.n
	if o.rec && o.native != "" {
		// A native line's deltas depend on the lines before it: its
		// provider's tracker reads it here, in file order.
		o.d, o.ends = f.nativeDelta(o.provider, o.native)
	}
	f.begin(n, o.rec && o.d.key != "", o.d.pointer)
	if o.rec {
		for _, id := range o.learned {
			f.ids.learn(id)
		}
		if o.session {
			f.add(Finding{Line: n, Sequence: o.seq, Rule: RuleVolatileID, Pointer: "/sessionId"})
		}
		f.blocks.end(o.ends, f.checkBlock)
		if o.d.key != "" {
			f.blocks.add(o.d, n, o.seq, f.checkBlock)
		}
	}
	for i := range o.ops {
		x := &o.ops[i]
		switch x.kind {
		case opFind:
			f.add(o.finding(x))
		case opIDs:
			if f.ids.holdsAny(o.cands[x.i:x.j]) {
				f.add(o.finding(x))
			}
		case opPEM:
			pm := &o.pems[x.i]
			p := f.stream(pm.stream)
			if (p.in || pm.marker) && p.feed(pm.text) && !f.s.disabled[redact.RulePrivateKey] {
				f.add(o.finding(x))
			}
		}
	}
	f.finish(n)
}
