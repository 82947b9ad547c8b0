package census_test

import (
	"context"
	"fmt"
	"os"

	"github.com/evcap/evcap/census"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// fileLines reads raw CLI output as census.Lines, refs being line numbers.
type fileLines struct{ r *lines.Reader }

func (f fileLines) Next() (int64, []byte, error) {
	line, err := f.r.Next()
	return f.r.Line(), line, err
}

// A drift census of one real Claude Code run, built in-process as an IDE
// backend or CI runner would: count the file, gather it, gate on unknowns.
func Example() {
	const name = "../testdata/corpus/claude/fatal-error.stdout.jsonl"
	f, err := os.Open(name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	d, _ := providers.Lookup("claude")
	g, err := census.CountFile(context.Background(), fileLines{lines.NewReader(f)}, d.Normalizer(provider.Options{}),
		census.FileOptions{Name: name, Provider: d.Name})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := census.New()
	c.Add(g)
	rep := c.Report()
	for _, grp := range rep.Groups {
		fmt.Println(grp.Provider, grp.CLIVersion, grp.Lines, "lines")
		for _, t := range grp.Types {
			fmt.Println(" ", t.NativeType, t.Count, t.Disposition)
		}
	}
	fmt.Println("gate fails on", len(rep.Failures(census.FailAll)), "unknown(s)")
	// Output:
	// claude 2.1.197 13 lines
	//   assistant/text 1 handled
	//   result/success 1 handled
	//   system/api_retry 10 handled
	//   system/init 1 handled
	// gate fails on 0 unknown(s)
}
