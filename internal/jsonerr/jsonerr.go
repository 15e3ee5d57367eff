// Package jsonerr words the errors of encoding/json for a person who fixes
// the input by hand: where it broke (line and column, or byte offset),
// which field holds a value of the wrong type, and what is wrong, without
// the "json: " the standard library starts its messages with.
//
// Case files, plugin configs, run records and a judge's answers are all
// decoded with encoding/json and reported through [Of], so a broken file
// reads the same wherever it is found. The wording is built from the
// fields of *json.SyntaxError, *json.UnmarshalTypeError and the encoding
// errors; only the errors encoding/json gives no type to (an unknown
// field under DisallowUnknownFields) are taken from their text.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Kind is what sort of problem a [Problem] is.
type Kind int

// The kinds of problem.
const (
	// Other: any other error (an unknown field, a failed MarshalJSON);
	// Text is all there is.
	Other Kind = iota
	// Syntax: the input is not JSON; Offset says where.
	Syntax
	// Truncated: the input ends before the value does, or is empty.
	Truncated
	// Type: a JSON value cannot go into the Go value it is decoded into.
	Type
	// Unencodable: a Go value has no JSON form (a channel, a NaN).
	Unencodable
)

// Problem is an encoding/json error taken apart.
type Problem struct {
	Kind Kind
	// Offset is, for Syntax, the number of bytes read through the one
	// that broke the JSON (json.SyntaxError.Offset), and for Type the
	// number read through the ill-typed value; 0 when unknown. A
	// json.Decoder counts from where it started reading.
	Offset int64
	// Field is, for Type, the dotted path of the field that holds the
	// value ("interruptCounts.ask"); empty for the value as a whole.
	Field string
	// Want is, for Type, the Go type the value was to go into ("int",
	// "record.Outcome").
	Want string
	// Got is, for Type, the JSON value found ("string", "number 1e999").
	Got string
	// Text says what is wrong, without a "json: " prefix: "invalid
	// character 'x' looking for beginning of value", "unexpected end of
	// JSON input", "must be int, got JSON string", `unknown field "z"`,
	// "unsupported value: NaN".
	Text string
}

// Of takes err, returned by encoding/json (or by a json.Decoder, whose
// io.EOF and io.ErrUnexpectedEOF mean the input ended), apart. A
// *json.MarshalerError gives the problem of the error it carries. An
// error not from encoding/json is Other with its text as it is.
func Of(err error) Problem {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		ut  *json.UnsupportedTypeError
		uv  *json.UnsupportedValueError
		me  *json.MarshalerError
	)
	switch {
	case err == nil:
		return Problem{}
	case errors.As(err, &me) && me.Err != nil:
		return Of(me.Err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return Problem{Kind: Truncated, Text: "unexpected end of JSON input"}
	case errors.As(err, &syn):
		p := Problem{Kind: Syntax, Offset: syn.Offset, Text: syn.Error()}
		if strings.HasPrefix(p.Text, "unexpected end") {
			p.Kind = Truncated
		}
		return p
	case errors.As(err, &typ):
		p := Problem{Kind: Type, Offset: typ.Offset, Field: typ.Field, Got: typ.Value}
		if typ.Type != nil {
			p.Want = typ.Type.String()
		}
		p.Text = fmt.Sprintf("must be %s, got JSON %s", p.Want, p.Got)
		if p.Field != "" {
			p.Text = p.Field + " " + p.Text
		}
		return p
	case errors.As(err, &ut):
		return Problem{Kind: Unencodable, Text: "unsupported type: " + ut.Type.String()}
	case errors.As(err, &uv):
		return Problem{Kind: Unencodable, Text: "unsupported value: " + uv.Str}
	}
	// encoding/json gives these no type (an unknown field, an invalid
	// unmarshal target): the text is all there is.
	text := err.Error()
	return Problem{Text: strings.TrimPrefix(text, "json: ")}
}

// Position says where Offset lies in data, the input that was decoded, as
// "line 3, column 41"; empty when Offset is unknown or outside data.
func (p Problem) Position(data []byte) string {
	if p.Offset <= 0 || p.Offset > int64(len(data)) {
		return ""
	}
	// Offset counts the bytes read, through the offending one.
	before := data[:p.Offset-1]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// NotValid says that data is not JSON, and where and why, as err from
// decoding it has it: "not valid JSON at line 3, column 41: invalid
// character '}' looking for beginning of object key string", or "not
// valid JSON: unexpected end of JSON input" when there is no position.
func NotValid(data []byte, err error) string {
	p := Of(err)
	if pos := p.Position(data); p.Kind == Syntax && pos != "" {
		return "not valid JSON at " + pos + ": " + p.Text
	}
	return "not valid JSON: " + p.Text
}

// Describe is err from decoding data in words: "at line 3, column 41:
// invalid character '}' looking for beginning of object key string", or
// the problem's Text alone when its position is unknown.
func Describe(data []byte, err error) string {
	p := Of(err)
	if p.Kind == Syntax {
		if pos := p.Position(data); pos != "" {
			return "at " + pos + ": " + p.Text
		}
	}
	return p.Text
}
