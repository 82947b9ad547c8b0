package sanitize

import (
	"slices"
	"sort"
	"testing"
)

// TestIDTablesFromDescriptors pins what the provider descriptors give
// sanitize: the id keys and prefixes it pseudonymizes were sanitize's own
// tables before they moved into normalize/<provider>, and a descriptor
// that drops one would silently leave ids in shared captures.
func TestIDTablesFromDescriptors(t *testing.T) {
	var keys []string
	for k := range idKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"callID", "id", "messageID", "messageId", "parentID", "parent_tool_use_id", "partID", "partId",
		"requestID", "request_id", "sessionID", "sessionId", "session_id", "thread_id", "toolCallId", "tool_id",
		"tool_use_id", "uuid"}
	if !slices.Equal(keys, want) {
		t.Errorf("id keys %q, want %q", keys, want)
	}
	prefixes := slices.Clone(idPrefixes)
	sort.Strings(prefixes)
	wantP := []string{"call_", "evt_", "msg_", "per_", "prt_", "que_", "req_", "ses_", "srvtoolu_", "toolu_"}
	if !slices.Equal(prefixes, wantP) {
		t.Errorf("id prefixes %q, want %q", prefixes, wantP)
	}
}
