package redact

// TextKeyBlockOpen reports whether Text is inside a private key block: a
// text it redacted began one (its BEGIN line, no END), and the texts it
// gives next may be replaced whole as the block's body or END line (see
// keyLines). While it reports false, Text of a given text depends on that
// text alone; a caller may then remember that a text it sees again (an
// envelope field repeated on every record) had nothing to replace, instead
// of redacting it again.
func (r *Redactor) TextKeyBlockOpen() bool {
	kl := &r.keyLines
	kl.mu.Lock()
	defer kl.mu.Unlock()
	return kl.left > 0
}
