package record

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
)

// streamer is a value that writes itself as encode would (indented by
// "  ", HTML characters as they are, a newline after), piece by piece: a
// suite's summary holds a sample per run, and encoding it whole would
// hold its JSON twice in memory (encoded, then indented) at the end of
// every suite.
type streamer interface {
	streamJSON(w io.Writer) error
}

// streamJSON writes s as encode(w, s, "  ") does, one field, case and
// sample at a time.
func (s *SuiteSummary) streamJSON(w io.Writer) error {
	p := &pieceWriter{w: w}
	p.raw("{\n")
	p.field("schemaVersion", s.SchemaVersion, false)
	p.field("suiteId", s.SuiteID, false)
	p.field("generatedAt", s.GeneratedAt, false)
	p.field("status", s.Status, false)
	p.field("totals", s.Totals, false)
	p.field("metrics", s.Metrics, false)
	p.list("cases", s.Cases, false)
	p.list("samples", s.Samples, true)
	p.raw("}\n")
	return p.err
}

// pieceWriter writes the pieces of an indented JSON object.
type pieceWriter struct {
	w   io.Writer
	buf bytes.Buffer
	err error
	// encs are the encoders into buf, by prefix: an encoder reuses its
	// indenting buffer from one piece to the next.
	encs map[string]*json.Encoder
}

func (p *pieceWriter) raw(s string) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, s)
	}
}

// value writes v encoded at the given prefix, without its newline.
func (p *pieceWriter) value(v any, prefix string) {
	if p.err != nil {
		return
	}
	p.buf.Reset()
	enc := p.encs[prefix]
	if enc == nil {
		enc = json.NewEncoder(&p.buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent(prefix, "  ")
		if p.encs == nil {
			p.encs = map[string]*json.Encoder{}
		}
		p.encs[prefix] = enc
	}
	if p.err = enc.Encode(v); p.err == nil {
		_, p.err = p.w.Write(bytes.TrimSuffix(p.buf.Bytes(), []byte("\n")))
	}
}

func (p *pieceWriter) field(name string, v any, last bool) {
	p.raw(`  "` + name + `": `)
	p.value(v, "  ")
	p.end(last)
}

// list writes a slice field element by element, as the encoder would
// write it whole (null when nil, [] when empty).
func (p *pieceWriter) list(name string, slice any, last bool) {
	rv := reflect.ValueOf(slice)
	if rv.IsNil() || rv.Len() == 0 {
		p.field(name, slice, last)
		return
	}
	p.raw(`  "` + name + "\": [\n")
	for i := range rv.Len() {
		p.raw("    ")
		p.value(rv.Index(i).Interface(), "    ")
		if i < rv.Len()-1 {
			p.raw(",\n")
		} else {
			p.raw("\n")
		}
	}
	p.raw("  ]")
	p.end(last)
}

func (p *pieceWriter) end(last bool) {
	if last {
		p.raw("\n")
	} else {
		p.raw(",\n")
	}
}
