package scan

import (
	"hash/maphash"
	"strings"
)

// Volatile ids: the session, message, tool-use, part and item ids that
// sanitize replaces with pseudonyms. The gate keeps its own copy of the
// shapes (it must not lean on sanitize to judge sanitize's output): an id
// is learned where a provider names it (native lines and meta records,
// under a key that names an id), and a learned id is flagged wherever it
// appears again as a whole token.

// idPrefixes are the provider prefixes of ids (Claude msg_/toolu_/req_,
// opencode ses_/msg_/prt_/call_/evt_/per_/que_).
var idPrefixes = []string{"toolu_", "srvtoolu_", "msg_", "req_", "ses_", "prt_", "call_", "evt_", "per_", "que_"}

// idKeys are the JSON keys whose values are ids.
var idKeys = map[string]bool{
	"id": true, "session_id": true, "sessionID": true, "sessionId": true, "messageID": true, "messageId": true,
	"partID": true, "partId": true, "callID": true, "toolCallId": true, "tool_use_id": true, "parent_tool_use_id": true,
	"request_id": true, "requestID": true, "parentID": true, "uuid": true, "tool_id": true, "thread_id": true,
}

// volatileID reports whether v, found under key, is an id sanitize would
// replace.
func volatileID(key, v string) bool {
	if !idKeys[key] || v == "" || len(v) > 200 || isPseudonym(v) || !isToken(v) {
		return false
	}
	for _, p := range idPrefixes {
		if strings.HasPrefix(v, p) {
			return len(v) >= len(p)+4
		}
	}
	switch key {
	case "session_id", "sessionID", "sessionId", "thread_id", "uuid", "tool_id", "tool_use_id", "toolCallId", "callID":
		return len(v) >= 8 && strings.ContainsAny(v, "0123456789")
	case "id":
		// Codex item ids: item_ and digits.
		rest, ok := strings.CutPrefix(v, "item_")
		return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
	}
	return false
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

// knownIDs holds the ids learned so far in one file. It keeps each id as
// two 64-bit hashes, not its text: the set grows with every distinct id
// of the file (the run of a 200 MB capture learns hundreds of thousands),
// and a key of 16 bytes is about a third of a kept string's cost. Two
// independent seeds make a false "learned" answer about as likely as a
// collision of 128-bit keys, which no file comes near.
type knownIDs struct {
	set   map[idKey]struct{}
	lens  map[int]bool
	seeds [2]maphash.Seed
}

// idKey is an id's two hashes.
type idKey [2]uint64

func (k *knownIDs) key(v string) idKey {
	return idKey{maphash.String(k.seeds[0], v), maphash.String(k.seeds[1], v)}
}

func (k *knownIDs) learn(v string) {
	if k.set == nil {
		k.set, k.lens = map[idKey]struct{}{}, map[int]bool{}
		k.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	}
	// Hashes, so nothing of v (often a piece of the line it came from)
	// is kept alive.
	k.set[k.key(v)] = struct{}{}
	k.lens[len(v)] = true
}

// has reports whether v is a learned id.
func (k *knownIDs) has(v string) bool {
	if !k.lens[len(v)] {
		return false
	}
	_, ok := k.set[k.key(v)]
	return ok
}

// holds reports whether text contains a learned id as a whole token.
func (k *knownIDs) holds(text string) bool {
	if len(k.set) == 0 {
		return false
	}
	for i := 0; i < len(text); {
		if !isIdent(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isIdent(text[j]) {
			j++
		}
		if k.has(text[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// holdsAny reports whether one of cands is a learned id.
func (k *knownIDs) holdsAny(cands []string) bool {
	if len(k.set) == 0 {
		return false
	}
	for _, c := range cands {
		if k.has(c) {
			return true
		}
	}
	return false
}

// idCands appends the tokens of text that could be learned ids: those of
// an id's shape under some key (volatileID, but for the pseudonym test:
// the set holds no pseudonym, so a pseudonym among them changes nothing).
// holds(text) is holdsAny(idCands(nil, text)).
//
// It jumps as nextB64Run does: a token of 6 bytes or more starting at i
// needs text[i:i+6] all identifier bytes, and when the last of those that
// is not is at k, none starts at i..k; each place tried follows a byte
// that is not one (or is the text's start), so a token found there starts
// there.
func idCands(dst []string, text string) []string {
	for i := 0; i+6 <= len(text); {
		k := i + 5
		for k >= i && identClass[text[k]] != 0 {
			k--
		}
		if k >= i {
			i = k + 1
			continue
		}
		j := i
		digit := false
		for j < len(text) {
			c := identClass[text[j]]
			if c == 0 {
				break
			}
			digit = digit || c == identDigit
			j++
		}
		if j-i <= 200 && idShape(text[i:j], digit) {
			dst = append(dst, text[i:j])
		}
		i = j
	}
	return dst
}

// identClass tells identifier bytes (isIdent) from others, and digits
// among them.
var identClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= '0' && c <= '9':
			t[c] = identDigit
		case isIdent(byte(c)):
			t[c] = 1
		}
	}
	return t
}()

const identDigit = 2

// idPrefixMax is the length of the longest of idPrefixes.
var idPrefixMax = func() (n int) {
	for _, p := range idPrefixes {
		n = max(n, len(p))
	}
	return n
}()

// idFirst are the first bytes of idPrefixes and of "item_".
var idFirst = func() (t [256]bool) {
	for _, p := range idPrefixes {
		t[p[0]] = true
	}
	t['i'] = true
	return t
}()

// idShape reports whether a token of 6 to 200 bytes (digit: holding a
// digit) is an id under some key of idKeys.
func idShape(v string, digit bool) bool {
	if !idFirst[v[0]] {
		// No prefix of idPrefixes starts so.
		return len(v) >= 8 && digit
	}
	// Each prefix ends at its only "_": only the one as long as the
	// token's first "_" reaches can start it (most tokens have none).
	if k := strings.IndexByte(v[:min(len(v), idPrefixMax)], '_'); k >= 0 {
		for _, p := range idPrefixes {
			if len(p) == k+1 && v[:k+1] == p {
				return len(v) >= len(p)+4
			}
		}
	}
	if len(v) >= 8 && digit {
		return true
	}
	rest, ok := strings.CutPrefix(v, "item_")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}
