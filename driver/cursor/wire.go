package cursor

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// line is one stdout line of the CLI's stream-json output, decoded
// tolerantly: each field is kept raw and read with the helpers below, so a
// field of an unexpected type (an int64 printed as a string, a new shape)
// never makes the whole line unreadable.
type line map[string]json.RawMessage

// decodeLine decodes one stream-json line. ok is false when the line is
// not a JSON object.
func decodeLine(b []byte) (l line, ok bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, false
	}
	return l, true
}

// has reports whether key is present and not null.
func (l line) has(key string) bool { return present(l[key]) }

// str returns the string value of key, or "" when it is absent or not a string.
func (l line) str(key string) string { return rawString(l[key]) }

// num returns the numeric value of key, accepting a JSON number or a
// string holding one (protobuf int64 fields arrive as strings).
func (l line) num(key string) (float64, bool) { return rawNumber(l[key]) }

// object decodes key as a JSON object, or returns nil.
func (l line) object(key string) line { return rawObject(l[key]) }

func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

func rawString(raw json.RawMessage) string {
	var s string
	if !present(raw) || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func rawNumber(raw json.RawMessage) (float64, bool) {
	if !present(raw) {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func rawObject(raw json.RawMessage) line {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var l line
	if json.Unmarshal(raw, &l) != nil {
		return nil
	}
	return l
}

// rawAny decodes raw into a plain Go value (maps, slices, float64,
// strings), the shape events take after a round trip through a record.
func rawAny(raw json.RawMessage) any {
	if !present(raw) {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

// messageText joins the text parts of a user or assistant message:
// {"role": ..., "content": [{"type": "text", "text": ...}]}. A content
// that is a plain string is accepted too.
func messageText(raw json.RawMessage) string {
	msg := rawObject(raw)
	if msg == nil {
		return ""
	}
	if s := msg.str("content"); s != "" {
		return s
	}
	var parts []line
	if json.Unmarshal(msg["content"], &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, part := range parts {
		if t := part.str("type"); t != "" && t != "text" {
			continue
		}
		b.WriteString(part.str("text"))
	}
	return b.String()
}
