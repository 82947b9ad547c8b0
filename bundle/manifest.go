package bundle

// FormatVersion is the version of the bundle layout and manifest: it
// changes when an entry is renamed or a manifest field changes meaning.
const FormatVersion = 1

// Manifest is manifest.json: what a maintainer needs to know about a run
// before reading the capture. Its JSON form has a fixed key order (struct
// order, map keys sorted by encoding/json).
type Manifest struct {
	BundleFormat int `json:"bundleFormat"`
	// EvcapVersion made the bundle; RecordedWith made the capture.
	EvcapVersion string `json:"evcapVersion"`
	RecordedWith string `json:"recordedWith,omitempty"`
	Provider     string `json:"provider"`
	Agent        Agent  `json:"agent"`
	OS           string `json:"os,omitempty"`
	Arch         string `json:"arch,omitempty"`
	// Argv is the agent's command line from capture.start, sanitized and
	// with the values of credential-named flags masked.
	Argv []string `json:"argv"`
	Exit Exit     `json:"exit"`
	// Records counts records per stage; EventTypes per stage and event type.
	Records    map[string]int64            `json:"records"`
	EventTypes map[string]map[string]int64 `json:"eventTypes"`
	Census     Census                      `json:"census"`
	Sanitize   SanitizeInfo                `json:"sanitize"`
	// Files lists the archive's entries in archive order.
	Files []string `json:"files"`
}

// Agent names the agent CLI: from capture.start, else from the init event.
type Agent struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// Exit is how the run ended, from capture.end. Ended is false when the
// capture has no capture.end record (the recorder was killed).
type Exit struct {
	Ended      bool     `json:"ended"`
	Code       *int     `json:"code"`
	Signal     string   `json:"signal,omitempty"`
	CleanEnd   bool     `json:"cleanEnd"`
	DurationMs int64    `json:"durationMs"`
	Notes      []string `json:"notes,omitempty"`
}

// Census lists the native event types and fields the provider's
// normalizer does not know, with where each was first seen. Checked is
// false when no normalizer was available for the provider.
type Census struct {
	Checked       bool           `json:"checked"`
	NativeLines   int64          `json:"nativeLines"`
	UnknownTypes  []UnknownType  `json:"unknownTypes"`
	UnknownFields []UnknownField `json:"unknownFields"`
}

// UnknownType is a native type the normalizer has never seen.
type UnknownType struct {
	NativeType    string `json:"nativeType"`
	Count         int64  `json:"count"`
	FirstSequence int64  `json:"firstSequence"`
}

// UnknownField is a field the normalizer has never seen for its type.
type UnknownField struct {
	NativeType    string `json:"nativeType"`
	Field         string `json:"field"`
	Count         int64  `json:"count"`
	FirstSequence int64  `json:"firstSequence"`
}

// SanitizeInfo says what sanitizing changed, without saying what it was.
type SanitizeInfo struct {
	// Skipped is true when the capture was bundled as given
	// (Options.AlreadySanitized); the other figures are then zero.
	Skipped      bool `json:"skipped,omitempty"`
	Redactions   int  `json:"redactions"`
	Pseudonyms   int  `json:"pseudonyms"`
	PrivateText  bool `json:"privateText"`
	EarlyFlushes int  `json:"earlyFlushes"`
	TornLine     bool `json:"tornLine"`
}
