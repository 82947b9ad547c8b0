package scan

import "github.com/evcap/evcap/redact"

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

type op struct {
	kind opKind
	f    Finding
	// cands are the tokens of the text that could be volatile ids
	// (opIDs): every token knownIDs.holds would look up that could be
	// in the set.
	cands []string
	// text and stream are opPEM's; marker says text holds a BEGIN line
	// or a private-key token (without one, a stream that is not inside a
	// key ignores the text).
	text   string
	stream string
	marker bool
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
	d       delta
	ends    []string
	ops     []op
	// cands holds the ops' cands (each a piece of it).
	cands []string
}

func (o *lineOut) reset(n int64) {
	*o = lineOut{n: n, ops: o.ops[:0], learned: o.learned[:0], cands: o.cands[:0]}
}

// find adds an opFind for f, unless the op before it is an opFind of the
// same line, rule and pointer: applying it would report nothing (the
// in-order stage reports the first finding of a line, rule and pointer,
// and nothing between the two ops forgets it). One text can give
// thousands of hits of one rule (paths in a long tool output).
func (o *lineOut) find(f Finding) {
	if k := len(o.ops) - 1; k >= 0 {
		if p := &o.ops[k]; p.kind == opFind && p.f.Line == f.Line && p.f.Rule == f.Rule && p.f.Pointer == f.Pointer {
			return
		}
	}
	o.ops = append(o.ops, op{kind: opFind, f: f})
}

// apply carries out one line's result, in file order.
func (f *fileScan) apply(o *lineOut, m *matcher) {
	if f.m == nil || f.m.shared != m {
		f.m = m.local()
	}
	n := o.n
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
			f.add(x.f)
		case opIDs:
			if f.ids.holdsAny(x.cands) {
				f.add(x.f)
			}
		case opPEM:
			p := f.stream(x.stream)
			if (p.in || x.marker) && p.feed(x.text) && !f.s.disabled[redact.RulePrivateKey] {
				f.add(x.f)
			}
		}
	}
	f.finish(n)
}
