// Package re2 words the errors of Go's regular expression parser (RE2
// syntax) for the people who write patterns in case files.
package re2

import (
	"errors"
	"fmt"
	"regexp/syntax"
)

// Problem says what is wrong with a pattern that did not compile, as
// "not a valid regular expression: missing closing ): `(a`": the parser's
// error code and the text it stopped at, read from the *syntax.Error
// rather than cut out of its message. An error of another kind is given as
// it is.
func Problem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("not a valid regular expression: %s: `%s`", se.Code, se.Expr)
	}
	return "not a valid regular expression: " + err.Error()
}
