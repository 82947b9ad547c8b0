package main

import (
	"fmt"
	"io"

	"github.com/evcap/evcap/envelope"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// applyConventions gives the whole command tree the conventions users
// bring from gh and kubectl, in one place rather than in each command:
// shell completion of the flag values that are one of a list, and the
// deprecated spellings of flags that were renamed so that one flag has one
// spelling across commands.
func applyConventions(root *cobra.Command, warn io.Writer) {
	walk(root, func(c *cobra.Command) {
		for _, a := range flagAliases {
			aliasFlag(c, a.old, a.now, warn)
		}
		for name, values := range flagValues(c) {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			values := values
			_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return values, cobra.ShellCompDirectiveNoFileComp
			})
		}
	})
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// flagAliases are old spellings kept, hidden and deprecated, for flags
// that now have the spelling the other commands use.
var flagAliases = []struct{ old, now string }{
	{"temp", "tmp"}, // bundle --temp; sanitize, scan and promote say --tmp
}

// aliasFlag renames c's flag old to now: --now is the flag, and --old,
// hidden from help, still sets the same value and says on warn that it is
// deprecated. (cobra's own deprecation notice goes to the command's
// output, which is stdout here, where it would mix with the data.)
func aliasFlag(c *cobra.Command, old, now string, warn io.Writer) {
	f := c.Flags().Lookup(old)
	if f == nil || c.Flags().Lookup(now) != nil {
		return
	}
	c.Flags().AddFlag(&pflag.Flag{Name: now, Usage: f.Usage, Value: f.Value, DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal})
	f.Value = deprecatedValue{Value: f.Value, notice: func() { fmt.Fprintf(warn, "evcap: --%s is deprecated; use --%s\n", old, now) }}
	f.Hidden = true
}

// deprecatedValue is a flag value that gives notice when it is set.
type deprecatedValue struct {
	pflag.Value
	notice func()
}

func (d deprecatedValue) Set(s string) error {
	d.notice()
	return d.Value.Set(s)
}

// flagValues lists, by flag name, the values a flag of c takes, for shell
// completion. Names mean the same in every command, except --format and
// --provider whose lists depend on the command.
func flagValues(c *cobra.Command) map[string][]string {
	var stages []string
	for _, st := range envelope.Stages() {
		stages = append(stages, string(st))
	}
	providers := providerNames()
	v := map[string][]string{
		"stage":    stages,
		"color":    {"auto", "always", "never"},
		"progress": {"auto", "always", "never"},
		"mode":     {"native", "normalized", "legacy"},
		"chunking": {"whole", "line", "byte", "random:1", "random:2", "random:3"},
		"timing":   {"max", "original", "x2", "x10"},
		"inject":   {"drop-delta", "duplicate-text", "last-delta-only", "ignore-cumulative"},
		"provider": append([]string{"auto"}, providers...),
	}
	switch c.Name() {
	case "render", "replay":
		v["format"] = []string{"term", "chat", "groups", "legacy"}
	case "record":
		v["render"] = []string{"term", "chat", "none"}
	case "play":
		v["speed"] = []string{"1", "2", "0.5", "max"}
	case "import":
		v["provider"] = providers
	}
	return v
}
