package provider

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Locate finds the piece d points at in line (the line the tracker was
// given): the byte range of the JSON string, quotes included, and its
// decoded text. ok is false when the path does not lead to a string.
func (d Delta) Locate(line []byte) (start, end int, text string, ok bool) {
	if d.Offset < 0 || d.Offset > len(line) {
		return 0, 0, "", false
	}
	v := gjson.GetBytes(line[d.Offset:], GJSONPath(d.Path))
	if v.Type != gjson.String || v.Index <= 0 {
		return 0, 0, "", false
	}
	start = d.Offset + v.Index
	end = start + len(v.Raw)
	if end > len(line) {
		return 0, 0, "", false
	}
	return start, end, v.String(), true
}

// Replace returns line with the piece d points at replaced by s (JSON
// encoded, without HTML escaping), everything else byte for byte; line
// itself when the piece cannot be found.
func (d Delta) Replace(line []byte, s string) []byte {
	start, end, _, ok := d.Locate(line)
	if !ok {
		return line
	}
	var b bytes.Buffer
	b.Grow(len(line) + len(s) + 2)
	b.Write(line[:start])
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
	b.Write(line[end:])
	return b.Bytes()
}

// GJSONPath writes a Delta path as a gjson path.
func GJSONPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(gjson.Escape(p))
	}
	return b.String()
}
