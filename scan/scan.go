package scan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// ErrNotScannable is wrapped by the error for input that is neither a
// capture nor a fixture (nor a file of a fixture tree or bundle): scan
// cannot say it is clean, so it says it could not check it.
var ErrNotScannable = errors.New("not a capture or fixture")

// Options configure a Scanner: the machine paths that must not appear and
// the repository's redaction config (its allowlist, its custom rules and
// its disabled rules).
type Options struct {
	Home    string
	Project string
	Temp    []string
	Config  redact.Config
	// NoAnyHome turns off the check for home directories of any user
	// (/home/NAME/, /Users/NAME/); the home given in Home is still checked.
	NoAnyHome bool
	// Stdin is what the path "-" reads: a capture or a fixture.json
	// piped in (evcap sanitize run.jsonl | evcap scan -). A caller that
	// wants SIGINT to reach a read blocked on it passes a reader that
	// stops with the context (source.Interruptible).
	Stdin io.Reader
	// LongLine, when set, is told the length read so far of a line
	// longer than 1 MiB while the scan reads it (about once per MiB, and
	// its whole length when it ends). evcap lets its soft memory limit
	// follow the longest line with it: a scan holds a few copies of such
	// a line while it is checked.
	LongLine func(n int)
}

// Finding is one thing the scan found. It never holds the secret.
type Finding struct {
	File string `json:"file"`
	// Line is 1-based.
	Line int64 `json:"line"`
	// Sequence is the record's sequence number, 0 for lines without one.
	Sequence int64  `json:"sequence"`
	Rule     string `json:"rule"`
	// Pointer is the JSON pointer of the string the finding is in, from
	// the line's top level ("" for text lines).
	Pointer string `json:"pointer"`
	// Decoded names the decodings it took to see the finding ("base64",
	// "percent", "escape", "deltas" for a block reassembled from streamed
	// deltas, "key" for a JSON object key, "key-body" for the body of a
	// private key), joined with "+"; "" when it was in plain sight.
	Decoded string `json:"decoded,omitempty"`
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Sequence, f.Rule)
	if f.Pointer != "" {
		s += " " + f.Pointer
	}
	if f.Decoded != "" {
		s += " (" + f.Decoded + ")"
	}
	return s
}

// Stdin is the path that means standard input (Options.Stdin).
const Stdin = "-"

// Kind is what a file is, which decides how its lines are read.
type Kind int

const (
	// KindCapture is an evcap capture: one envelope record per line.
	KindCapture Kind = iota + 1
	// KindFixture is a fixture.json: a header and one event per line.
	KindFixture
	// KindFile is any other file of a fixture tree or bundle (a golden,
	// summary.md, manifest.json): each line is checked, as JSON when it
	// parses.
	KindFile
)

// matcher is the compiled rule set.
type matcher struct {
	rules      []rule
	credential bool
	paths      []needle
	anyHome    bool
	allowExact map[string]bool
	allowRe    []*regexp.Regexp
	// pf gates the rules (entries: each rule in order, then the
	// credential check, then the other-home check); nil runs them all.
	// Its search state is the matcher's own: a matcher checks one text at
	// a time, and each goroutine checks with its own local copy.
	pf *prefilter
	// shared is the matcher a local copy was made of.
	shared *matcher
	// b64 is a local copy's buffer for base64 candidates.
	b64 []byte
}

// local returns a copy of m with its own prefilter search state.
func (m *matcher) local() *matcher {
	c := *m
	c.shared, c.b64 = m, nil
	if m.pf != nil {
		c.pf = m.pf.instance()
	}
	return &c
}

// Prefilter entries after the rules.
const (
	entryCredential = iota
	entryOtherHome
	extraEntries
)

func (m *matcher) allowed(s string) bool {
	if m.allowExact[s] {
		return true
	}
	for _, re := range m.allowRe {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Scanner checks files. It holds no state between files and may be used
// for many, one at a time.
type Scanner struct {
	opts     Options
	disabled map[string]bool
	base     []rule
	pf       *prefilter
	// baseSpecs are pf's requirements; withPaths holds the prefilters that
	// add the machine paths' needles to them (pathPrefilter).
	baseSpecs []filterSpec
	withPaths *pathFilters
	// noPrefilter runs every rule on every text (the differential tests
	// compare the two).
	noPrefilter bool
	// projectKeys are the keys a record names its project by (a
	// provider's ProjectPaths, capture.start's cwd): a line without one
	// is not parsed for it.
	projectKeys []string
	// ctx, set only on the copy PathsContext and ReadContext make,
	// stops a scan at the next line once it is done.
	ctx context.Context
}

// PathsContext is Paths that stops at the next line once ctx is done,
// returning its cause with what was found so far.
func (s *Scanner) PathsContext(ctx context.Context, paths []string) (Result, error) {
	c := *s
	c.ctx = ctx
	return c.Paths(paths)
}

// ReadContext is Read that stops at the next line once ctx is done,
// returning its cause with what was found so far.
func (s *Scanner) ReadContext(ctx context.Context, r io.Reader, name string, kind Kind) ([]Finding, error) {
	c := *s
	c.ctx = ctx
	return c.Read(r, name, kind)
}

// New compiles the rules. It fails on an invalid config (a custom rule or
// allow_regex that does not compile).
func New(opts Options) (*Scanner, error) {
	s := &Scanner{opts: opts, disabled: map[string]bool{}, withPaths: &pathFilters{},
		projectKeys: providers.ProjectKeys()}
	for _, id := range opts.Config.Disable {
		s.disabled[id] = true
	}
	custom, err := customRules(opts.Config)
	if err != nil {
		return nil, fmt.Errorf("scan: custom rule: %w", err)
	}
	for _, r := range append(custom, builtinRules()...) {
		if !s.disabled[r.id] {
			s.base = append(s.base, r)
		}
	}
	specs, err := s.specs()
	if err != nil {
		return nil, err
	}
	s.pf, s.baseSpecs = newPrefilter(specs), specs
	if _, err := s.matcher(""); err != nil {
		return nil, err
	}
	return s, nil
}

// specs derives the prefilter's requirements: one per rule of s.base, in
// order, then the credential check and the other-home check.
func (s *Scanner) specs() ([]filterSpec, error) {
	specs := make([]filterSpec, 0, len(s.base)+extraEntries)
	for _, r := range s.base {
		sp, err := specOf(r.id, r.re)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	cred, err := credentialSpec()
	if err != nil {
		return nil, fmt.Errorf("scan: %s: %w", RuleCredential, err)
	}
	home, err := specOf(RulePathOtherHome, otherHome)
	if err != nil {
		return nil, err
	}
	return append(specs, cred, home), nil
}

// pathPrefilter is s.pf with an entry for each of paths after its own
// (needleSpec), made once per set of paths.
func (s *Scanner) pathPrefilter(paths []needle) *prefilter {
	if len(paths) == 0 {
		return s.pf
	}
	var key strings.Builder
	for _, n := range paths {
		key.WriteString(n.text)
		key.WriteByte(0)
	}
	c := s.withPaths
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.m[key.String()]; p != nil {
		return p
	}
	specs := slices.Clone(s.baseSpecs)
	for _, n := range paths {
		specs = append(specs, needleSpec(n.text))
	}
	p := newPrefilter(specs)
	if c.m == nil || len(c.m) >= maxPathPrefilters {
		c.m = map[string]*prefilter{}
	}
	c.m[key.String()] = p
	return p
}

// pathFilters are the prefilters of sets of paths, by their needles'
// texts (shared by the copies of a Scanner that PathsContext and
// ReadContext make).
type pathFilters struct {
	mu sync.Mutex
	m  map[string]*prefilter
}

// maxPathPrefilters bounds the prefilters kept for sets of paths (a
// set per project a file declares).
const maxPathPrefilters = 16

func (s *Scanner) matcher(project string) (*matcher, error) {
	m := &matcher{rules: s.base, credential: !s.disabled[RuleCredential], anyHome: !s.opts.NoAnyHome && !s.disabled[RulePathOtherHome],
		allowExact: map[string]bool{}}
	for _, n := range needles(s.opts.Home, project, s.opts.Temp) {
		if !s.disabled[n.rule] {
			m.paths = append(m.paths, n)
		}
	}
	if !s.noPrefilter {
		m.pf = s.pathPrefilter(m.paths).instance()
		m.pf.chunk = s.pf.chunk
	}
	for _, a := range s.opts.Config.Allow {
		m.allowExact[a] = true
	}
	for _, p := range s.opts.Config.AllowRegex {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("scan: allow_regex %q: %w", p, err)
		}
		m.allowRe = append(m.allowRe, re)
	}
	return m, nil
}

// Read checks one file of the given kind, streaming it line by line.
// name is used in findings and errors. A capture whose first line is not
// an evcap record, or a fixture that does not start like one, is refused
// with ErrNotScannable.
func (s *Scanner) Read(r io.Reader, name string, kind Kind) ([]Finding, error) {
	f, err := s.read(r, name, kind, nil)
	if f == nil {
		return nil, err
	}
	return f.sorted(), err
}

// Sniff says what kind a file is from its first non-empty line, or 0 when
// it is neither a capture nor a fixture.
func Sniff(first []byte) Kind {
	t := bytes.TrimSpace(first)
	if bytes.Equal(t, []byte("{")) {
		return KindFixture
	}
	if gjson.ValidBytes(t) {
		v := gjson.GetManyBytes(t, "schemaVersion", "stage", "sequence")
		if v[0].Type == gjson.Number && v[1].Type == gjson.String && v[2].Type == gjson.Number {
			return KindCapture
		}
	}
	return 0
}

// findKey is a finding's line, rule and pointer, the last two as two
// independent 64-bit hashes of both: a key without pointers keeps the
// map of all a file's findings out of the collector's scans (it holds
// one entry per finding of lines still open), and two findings of one
// line that are not the same are told apart unless 128 bits of hash
// collide.
type findKey struct {
	line   int64
	h1, h2 uint64
}

// key is the findKey of x.
func (f *fileScan) key(x *Finding) findKey {
	b := append(append(append(f.kbuf[:0], x.Rule...), 0), x.Pointer...)
	f.kbuf = b
	return findKey{x.Line, maphash.Bytes(f.seeds[0], b), maphash.Bytes(f.seeds[1], b)}
}

// fileScan is the state of one file's scan that follows the file in
// order (see lineops.go).
type fileScan struct {
	s *Scanner
	// m is a local copy of the matcher in force (for blocks).
	m    *matcher
	name string
	kind Kind
	out  []Finding
	// cur holds the keys of the findings reported of the line being
	// applied (curLine, -1 between lines), seen those of earlier lines
	// that later findings may name again: the findings, in the pointer of
	// their part (partPtr for the line being applied), of lines that gave
	// parts to open blocks.
	seen    map[findKey]bool
	cur     map[findKey]bool
	curLine int64
	part    bool
	partPtr string
	// live is forget's buffer.
	live   []int64
	ids    knownIDs
	blocks blockSet
	// deltas follows the native lines' streamed blocks, with each
	// provider's tracker.
	deltas providers.CaptureDeltas
	// lastKey, lastPath and lastPtr are the last native block's key
	// and the last piece's path and pointer: a block's deltas come one
	// after another, at one path (nativeDelta).
	lastBlock providers.Block
	lastKey   string
	lastPath  []string
	lastPtr   string
	// pem follows private-key blocks across the lines of each text
	// stream (stderr, non-JSON stdout, a text file).
	pem map[string]*pemState
	// emit, when set, takes each finding instead of out.
	emit func(Finding)
	// seenKept is the size of seen after forget last ran.
	seenKept int
	seeds    [2]maphash.Seed
	// kbuf is key's buffer.
	kbuf []byte
}

// lineScan checks lines on their own (one worker's state).
type lineScan struct {
	s    *Scanner
	kind Kind
	// m is a local copy of the matcher of the line being checked.
	m   *matcher
	out *lineOut
	// names caches credentialName of object keys (a file repeats few).
	names map[string]bool
	fw    *fastWalk
	// ptrs and pbuf are join's cache of pointers and its buffer.
	ptrs map[string]string
	pbuf []byte
	// clean holds short texts the matcher found nothing in (keys and
	// values repeat: "type", "text_delta", "assistant"); the matcher's
	// check is deterministic, so they need not be checked again. Each
	// maps to its own copy, which front keeps: a small table, one slot
	// per text (cleanSlot), that answers for the texts of the last few
	// lines without the map's hashing and its misses in memory.
	clean map[string]string
	front *[cleanSlots]string
	// gjsonOnly checks every line with the gjson walk (the tests
	// compare it with the one-pass walk).
	gjsonOnly bool
}

// Texts up to maxClean bytes are remembered when clean, up to maxCleans
// of them.
const (
	maxClean  = 48
	maxCleans = 8192
)

// cleanSlots is the size of lineScan.front.
const cleanSlots = 512

// cleanSlot is the slot of front a text of 1 to maxClean bytes takes:
// its length and three of its bytes, mixed.
func cleanSlot(s string) int {
	h := uint32(len(s))<<24 | uint32(s[0])<<16 | uint32(s[len(s)>>1])<<8 | uint32(s[len(s)-1])
	return int((h * 0x9E3779B1) >> (32 - 9))
}

// check is ls.m.check(text, report), skipping a short text found clean
// before.
func (ls *lineScan) check(text string, report func(hit), hits *int) {
	if len(text) > maxClean || text == "" {
		ls.m.check(text, report)
		return
	}
	if ls.front == nil {
		ls.front = new([cleanSlots]string)
	}
	slot := &ls.front[cleanSlot(text)]
	if *slot == text {
		return
	}
	if kept, ok := ls.clean[text]; ok {
		*slot = kept
		return
	}
	before := *hits
	ls.m.check(text, report)
	if *hits == before {
		if ls.clean == nil {
			ls.clean = make(map[string]string, 256)
		} else if len(ls.clean) >= maxCleans {
			clear(ls.clean) // (keeping its table: no regrowth)
		}
		kept := strings.Clone(text)
		ls.clean[kept] = kept
		*slot = kept
	}
}

// batch checks every line of b.
func (ls *lineScan) batch(b *batch) {
	if cap(b.outs) < len(b.jobs) {
		b.outs = append(b.outs[:cap(b.outs)], make([]lineOut, len(b.jobs)-cap(b.outs))...)
	}
	b.outs = b.outs[:len(b.jobs)]
	for i := range b.jobs {
		j := &b.jobs[i]
		if ls.m == nil || ls.m.shared != j.m {
			ls.m = j.m.local()
			ls.clean, ls.front = nil, nil
		}
		ls.out = &b.outs[i]
		ls.out.reset(j.n)
		ls.line(j.line, j.n)
	}
	ls.out = nil
}

// maxNames bounds the names cache.
const maxNames = 4096

// credentialName is credentialName(key), remembered.
func (f *lineScan) credentialName(key string) bool {
	v, ok := f.names[key]
	if ok {
		return v
	}
	v = credentialName(key)
	if f.names == nil {
		f.names = map[string]bool{}
	} else if len(f.names) >= maxNames {
		clear(f.names)
	}
	f.names[strings.Clone(key)] = v // not a piece of the line: see knownIDs.learn
	return v
}

func (f *fileScan) sniff(line []byte) error {
	switch f.kind {
	case KindCapture:
		if Sniff(line) != KindCapture {
			return fmt.Errorf("scan %s: %w: line 1 is not an evcap capture record", f.name, ErrNotScannable)
		}
	case KindFixture:
		if Sniff(line) != KindFixture {
			return fmt.Errorf("scan %s: %w: it does not start like a fixture.json", f.name, ErrNotScannable)
		}
	}
	return nil
}

func (f *fileScan) add(x Finding) {
	k := f.key(&x)
	if x.Line == f.curLine {
		if f.cur[k] {
			return
		}
		f.cur[k] = true
		if f.part && x.Pointer == f.partPtr {
			f.seen[k] = true
		}
	} else {
		if f.seen[k] {
			return
		}
		f.seen[k] = true
	}
	x.File = f.name
	if f.emit != nil {
		f.emit(x)
		return
	}
	f.out = append(f.out, x)
}

// begin starts applying line n, which gives a block of deltas a part at
// pointer ptr when part is set. Once the line is applied, findings name
// it again only from such a block (a block's findings name the lines of
// its parts, at the pointer of each part), so the keys of its findings
// go to cur, which the next line clears, and those at the part's pointer
// to seen as well, which keeps them while a block holds the part.
func (f *fileScan) begin(n int64, part bool, ptr string) {
	f.curLine, f.part, f.partPtr = n, part, ptr
	if len(f.cur) > 256 {
		// (A map cleared keeps its size, and clearing costs that.)
		f.cur = map[findKey]bool{}
	} else if len(f.cur) > 0 {
		clear(f.cur)
	}
}

// finish ends line n's apply.
func (f *fileScan) finish(n int64) {
	f.curLine, f.part, f.partPtr = -1, false, ""
	f.forget(n)
}

// forget drops what seen holds of lines no finding can name any more,
// once line n is done: seen holds lines that gave parts to blocks, and
// a line stays nameable only while an open block still holds one of its
// parts. It runs when seen has doubled since it last did, so its cost is
// spread over the findings. The keys are deleted in place (the map keeps
// its buckets for the next lines) unless the map grew large, when a new
// one gives the memory back.
func (f *fileScan) forget(n int64) {
	if len(f.seen) < 4096 || len(f.seen) < 2*f.seenKept {
		return
	}
	f.live = f.blocks.originLines(f.live[:0])
	live := func(line int64) bool {
		if line > n {
			return true
		}
		i := sort.Search(len(f.live), func(i int) bool { return f.live[i] >= line })
		return i < len(f.live) && f.live[i] == line
	}
	if len(f.seen) <= maxSeenInPlace {
		for k := range f.seen {
			if !live(k.line) {
				delete(f.seen, k)
			}
		}
		f.seenKept = max(len(f.seen), 2048)
		return
	}
	kept := make(map[findKey]bool, len(f.seen)/2)
	for k := range f.seen {
		if live(k.line) {
			kept[k] = true
		}
	}
	f.seen = kept
	f.seenKept = max(len(kept), 2048)
}

// maxSeenInPlace is the size up to which forget deletes in place.
const maxSeenInPlace = 1 << 16

func (f *fileScan) sorted() []Finding {
	sort.SliceStable(f.out, func(i, j int) bool {
		a, b := f.out[i], f.out[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Pointer < b.Pointer
	})
	return f.out
}

// line checks one line.
func (f *lineScan) line(raw []byte, n int64) {
	t := bytes.TrimSpace(raw)
	if f.kind == KindFixture {
		t = bytes.TrimSuffix(t, []byte(","))
	}
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && !f.gjsonOnly && f.fastLine(t, n) {
		return
	}
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && gjson.ValidBytes(t) {
		v := gjson.ParseBytes(t)
		if f.kind == KindCapture || f.kind == KindFixture {
			f.record(v)
		}
		f.out.opSeq = seq(v)
		f.walk(v, "", n, f.out.opSeq, "", 0)
		return
	}
	f.out.opSeq = 0
	// A fixture header line ("name": "x",) is a JSON member on its own.
	if len(t) > 0 && t[0] == '"' {
		if w := append(append([]byte("{"), t...), '}'); gjson.ValidBytes(w) {
			f.walk(gjson.ParseBytes(w), "", n, 0, "", 0)
			return
		}
	}
	f.text(string(raw), n, 0, "", "", "file")
}

func seq(v gjson.Result) int64 {
	if s := v.Get("sequence"); s.Type == gjson.Number {
		return s.Int()
	}
	return 0
}

// record reads what needs the record's meaning: the ids it names, whether
// its session id is volatile, the delta it carries (the project it
// declares is the reader's: see reader.declare).
func (f *lineScan) record(v gjson.Result) {
	o := f.out
	o.rec = true
	stage := v.Get("stage").String()
	payload := v.Get("payload")
	o.seq = seq(v)
	if stage == "meta" || stage == "native_in" {
		f.learnIDs(payload)
	}
	if sid := v.Get("sessionId"); sid.Type == gjson.String && volatileID("session_id", sid.String()) && !f.m.allowed(sid.String()) {
		o.session = true
	}
	o.record(stage, v.Get("provider").String(), payload)
}

// learnIDs collects the volatile ids a native line or meta record names.
func (f *lineScan) learnIDs(v gjson.Result) {
	var walk func(key string, v gjson.Result, depth int)
	walk = func(key string, v gjson.Result, depth int) {
		if depth > 64 {
			return
		}
		switch {
		case v.IsObject():
			v.ForEach(func(k, x gjson.Result) bool { walk(k.String(), x, depth+1); return true })
		case v.IsArray():
			v.ForEach(func(_, x gjson.Result) bool { walk(key, x, depth+1); return true })
		case v.Type == gjson.String && idKeys[key]:
			// (volatileID is false under any other key: do not decode a
			// many-megabyte tool output to find that out.)
			if s := v.String(); volatileID(key, s) && !f.m.allowed(s) {
				f.out.learned = append(f.out.learned, s)
			}
		}
	}
	walk("", v, 0)
}

// checkBlock checks a block of reassembled deltas.
func (f *fileScan) checkBlock(b *block) {
	if len(b.origins) < 2 {
		return
	}
	f.m.check(b.text.String(), func(h hit) {
		o := b.originAt(h.start)
		via := "deltas"
		if h.via != "" {
			via += "+" + h.via
		}
		f.add(Finding{Line: o.line, Sequence: o.seq, Rule: h.rule, Pointer: o.pointer, Decoded: via})
	})
}

// maxWalkDepth bounds JSON nesting the walk follows; deeper values are
// checked as raw text with escapes decoded.
const maxWalkDepth = 256

// walk checks every key and string of a JSON value, and walks JSON held
// in strings.
func (f *lineScan) walk(v gjson.Result, ptr string, n, seq int64, key string, depth int) {
	if depth > maxWalkDepth {
		f.text(v.Raw, n, seq, ptr, "escape", "")
		return
	}
	switch {
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool {
			ks := k.String()
			p := ptr + "/" + escapePointer(ks)
			if f.checkKey(ks, n, seq, ptr) {
				// The key is itself a secret: pointers below it must
				// not spell it out.
				p = ptr + "/" + keyStandIn
			}
			if x.Type == gjson.String && f.credentialName(ks) && machineMade(x.String()) && !f.m.allowed(x.String()) && !f.s.disabled[RuleCredential] {
				f.out.find(Finding{Line: n, Sequence: seq, Rule: RuleCredential, Pointer: p})
			}
			f.walk(x, p, n, seq, ks, depth+1)
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, x gjson.Result) bool {
			f.walk(x, ptr+"/"+strconv.Itoa(i), n, seq, key, depth+1)
			i++
			return true
		})
	case v.Type == gjson.String:
		s := v.String()
		stream := ""
		if ptr == "/payload" {
			// A text record (stderr, non-JSON stdout, a legacy marker):
			// private keys run across records of one stream.
			stream = "payload"
		}
		f.text(s, n, seq, ptr, "", stream)
		f.ids(s, Finding{Line: n, Sequence: seq, Rule: RuleVolatileID, Pointer: ptr})
		if depth < maxWalkDepth {
			if inner, ok := heldJSON(s); ok {
				f.walk(inner, ptr, n, seq, key, depth+1)
			}
		}
	}
}

// heldJSON finds JSON inside a string: the string itself with its
// surrounding space trimmed, an SSE "data:" line, or the argument of a
// legacy marker ("[MARKER] {…}").
func heldJSON(s string) (gjson.Result, bool) {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "data:"); ok {
		t = strings.TrimSpace(rest)
	} else if strings.HasPrefix(t, "[") {
		if i := strings.Index(t, "] "); i > 0 && !strings.Contains(t[:i], " ") {
			t = strings.TrimSpace(t[i+2:])
		}
	}
	if len(t) < 2 || t[0] != '{' && t[0] != '[' || !gjson.Valid(t) {
		return gjson.Result{}, false
	}
	return gjson.Parse(t), true
}

// ids reports x when s holds a learned id (as a whole token).
func (f *lineScan) ids(s string, x Finding) {
	o := f.out
	start := len(o.cands)
	o.cands = idCands(o.cands, s)
	if len(o.cands) > start {
		o.addIDs(x, start)
	}
}

// text checks one piece of text: the rules on it and its decodings, and
// private-key bodies on its lines (those of the text stream named stream,
// whose keys run across lines; "" for a text of its own).
func (f *lineScan) text(s string, n, seq int64, ptr, via, stream string) {
	f.m.check(s, func(h hit) {
		d := h.via
		if via != "" {
			if d != "" {
				d = via + "+" + d
			} else {
				d = via
			}
		}
		f.out.find(Finding{Line: n, Sequence: seq, Rule: h.rule, Pointer: ptr, Decoded: d})
	})
	x := Finding{Line: n, Sequence: seq, Rule: redact.RulePrivateKey, Pointer: ptr, Decoded: "key-body"}
	if stream != "" {
		f.out.addPEM(x, s, stream, pemMarker(s))
		return
	}
	var pem pemState
	if pem.feed(s) && !f.s.disabled[redact.RulePrivateKey] {
		f.out.find(x)
	}
}

func (f *fileScan) stream(name string) *pemState {
	p := f.pem[name]
	if p == nil {
		p = &pemState{}
		f.pem[name] = p
	}
	return p
}

func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// keyStandIn replaces, in pointers, an object key that is itself a secret.
const keyStandIn = "[secret-key]"

// checkKey checks an object key; findings point at the object that holds
// it. It reports whether the key had any finding.
func (f *lineScan) checkKey(k string, n, seq int64, obj string) bool {
	found := false
	f.m.check(k, func(h hit) {
		found = true
		d := "key"
		if h.via != "" {
			d += "+" + h.via
		}
		f.out.find(Finding{Line: n, Sequence: seq, Rule: h.rule, Pointer: obj, Decoded: d})
	})
	return found
}
