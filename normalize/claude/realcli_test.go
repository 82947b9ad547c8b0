package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
)

// TestSubagentHooksMCPRealCLI re-records three of the corpus-extra runs
// with the real Claude Code (record.sh, as MANIFEST.md says) and checks
// what the recordings are kept for: a subagent's events carry their
// parent, hooks and the MCP tool are mapped, nothing is unknown. It runs
// where .ci/after-realcli.sh runs it: EVCAP_CLI_DIR (the installed CLIs)
// and EVCAP_BIN (an evcap binary) set, inside a loopback-only network
// namespace; elsewhere it is skipped.
func TestSubagentHooksMCPRealCLI(t *testing.T) {
	cliDir, evcap := os.Getenv("EVCAP_CLI_DIR"), os.Getenv("EVCAP_BIN")
	claude := filepath.Join(cliDir, "node_modules", ".bin", "claude")
	if _, err := os.Stat(claude); cliDir == "" || evcap == "" || err != nil {
		t.Skip("needs EVCAP_CLI_DIR with Claude Code installed and EVCAP_BIN (see .ci/after-realcli.sh)")
	}
	extra, err := filepath.Abs("../../testdata/corpus-extra")
	if err != nil {
		t.Fatal(err)
	}
	mcp := `{"mcpServers":{"evtest":{"command":"node","args":["` + extra + `/mcp/echo-server.mjs"]}}}`
	for _, tc := range []struct {
		name, scenario string
		env, args      []string
		want           event.Kind
	}{
		{"subagent", "scenarios/subagent.json", nil, []string{"--allowedTools", "Task,Agent,Bash,Read"}, event.KindAgent},
		{"hooks", "../../fakemodel/testdata/tools.json", []string{"SETTINGS=scenarios/hooks-settings.json"},
			[]string{"--allowedTools", "Bash,Read", "--include-hook-events"}, event.KindHook},
		{"mcp", "scenarios/mcp.json", nil, []string{"--allowedTools", "mcp__evtest__echo", "--mcp-config", mcp, "--strict-mcp-config"}, event.KindTool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command("sh", append([]string{"claude/record.sh", claude, evcap, tc.scenario, out, tc.name}, tc.args...)...)
			cmd.Dir, cmd.Env = extra, append(os.Environ(), tc.env...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("record.sh: %v\n%s", err, b)
			}
			path := filepath.Join(out, tc.name+".stdout.jsonl")
			evs := convert(read(t, path), 0)
			kinds := map[event.Kind]int{}
			nested := 0
			for _, e := range evs {
				kinds[e.Kind]++
				if e.Kind == event.KindUnknown {
					t.Errorf("unknown event %s", e.NativeType)
				}
				if e.ParentToolCallID != "" && e.Agent != nil && e.Agent.Name != "" {
					nested++
				}
			}
			if kinds[tc.want] == 0 || kinds[event.KindResult] != 1 {
				t.Errorf("kinds %v: want %s events and one result", kinds, tc.want)
			}
			if tc.name == "subagent" && nested < 3 {
				t.Errorf("%d events carry a parent and agent name; want the agent events and the subagent's tool call and result", nested)
			}
		})
	}
}
