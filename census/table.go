package census

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/evcap/evcap/internal/termtext"
)

// WriteTable writes the report as evcap census prints it: one aligned
// table per provider and CLI version, then a one-line total. Type and
// field names come from the input, so they are escaped (termtext.Escape):
// a census of hostile input must not drive the terminal it is printed on.
func (r *Report) WriteTable(w io.Writer) error {
	var out bytes.Buffer
	for i, g := range r.Groups {
		if i > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "%s %s: %d file(s), %d line(s)\n", g.Provider, g.CLIVersion, len(g.Files), g.Lines)
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NATIVE TYPE\tCOUNT\tDISPOSITION\tUNKNOWN FIELDS\tREASON")
		for _, t := range g.Types {
			var fields []string
			for _, f := range t.UnknownFields {
				fields = append(fields, fmt.Sprintf("%s(%d)", termtext.Escape(f.Field), f.Count))
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\n", termtext.Escape(t.NativeType), t.Count, t.Disposition,
				strings.Join(fields, ","), t.Reason)
		}
		tw.Flush()
		// Empty last cells leave padding behind; drop it.
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			out.WriteString(strings.TrimRight(line, " \n"))
			if strings.HasSuffix(line, "\n") {
				out.WriteByte('\n')
			}
		}
	}
	fmt.Fprintf(&out, "\ncensus: %d group(s), %d unknown type(s), %d unknown field(s)\n",
		len(r.Groups), r.UnknownTypes, r.UnknownFields)
	_, err := w.Write(out.Bytes())
	return err
}

// String words one unknown type or field as the census gate reports it
// on standard error, names escaped as in WriteTable.
func (u Unknown) String() string {
	if u.Field == "" {
		return fmt.Sprintf("%s %s: unknown type %s (%d, first at %s)",
			u.Provider, u.CLIVersion, termtext.Escape(u.NativeType), u.Count, u.FirstSeen)
	}
	return fmt.Sprintf("%s %s: unknown field %s of %s (%d, first at %s)",
		u.Provider, u.CLIVersion, termtext.Escape(u.Field), termtext.Escape(u.NativeType), u.Count, u.FirstSeen)
}
