package compare

import (
	"fmt"
	"strings"
)

// A unified diff of two texts, for the artifacts a run comparison finds
// changed: lines common to both ends are trimmed first, the middle is
// matched by a longest common subsequence when it is small enough
// (maxLCSCells) and otherwise shown as removed and added whole, and
// hunks carry diffContext lines of context.
const (
	diffContext = 3
	maxLCSCells = 1 << 20
)

type editOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// unifiedDiff is the diff of a and b under the names "a/"+name and
// "b/"+name, cut to maxLines lines; more counts the lines left out. Equal
// texts give "".
func unifiedDiff(name, a, b string, maxLines int) (diff string, more int) {
	if a == b {
		return "", 0
	}
	ops := editScript(splitLines(a), splitLines(b))
	lines := []string{"--- a/" + name, "+++ b/" + name}
	for _, h := range hunks(ops) {
		lines = append(lines, h...)
	}
	if len(lines) > maxLines {
		more = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	return strings.Join(lines, "\n"), more
}

// splitLines splits text into lines without their newlines; a final
// newline does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// editScript turns a into b: the common ends kept, the middle by LCS.
func editScript(a, b []string) []editOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []editOp
	for _, l := range a[:pre] {
		ops = append(ops, editOp{' ', l})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, editOp{' ', l})
	}
	return ops
}

// middle is the edit script of the differing middle parts.
func middle(a, b []string) []editOp {
	var ops []editOp
	if len(a)*len(b) > maxLCSCells || len(a) == 0 || len(b) == 0 {
		for _, l := range a {
			ops = append(ops, editOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, editOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:], in one flat slice.
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, editOp{' ', a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			ops = append(ops, editOp{'-', a[i]})
			i++
		default:
			ops = append(ops, editOp{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, editOp{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, editOp{'+', b[j]})
	}
	return ops
}

// hunks groups the edit script into unified-diff hunks, each starting
// with its "@@ -a,n +b,m @@" header.
func hunks(ops []editOp) [][]string {
	var out [][]string
	for start := 0; start < len(ops); {
		// The next change.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		lo := max(start, first-diffContext)
		// Extend while the next change is within 2·context lines.
		hi, equal := first, 0
		for k := first; k < len(ops); k++ {
			if ops[k].kind == ' ' {
				equal++
				if equal > 2*diffContext {
					break
				}
				continue
			}
			equal, hi = 0, k
		}
		end := min(len(ops), hi+1+diffContext)
		// Line numbers of the hunk's first line on each side.
		lineA, lineB := 1, 1
		for _, op := range ops[:lo] {
			if op.kind != '+' {
				lineA++
			}
			if op.kind != '-' {
				lineB++
			}
		}
		countA, countB := 0, 0
		body := []string{""}
		for _, op := range ops[lo:end] {
			if op.kind != '+' {
				countA++
			}
			if op.kind != '-' {
				countB++
			}
			body = append(body, string(op.kind)+op.line)
		}
		body[0] = fmt.Sprintf("@@ -%s +%s @@", hunkRange(lineA, countA), hunkRange(lineB, countB))
		out = append(out, body)
		start = end
	}
	return out
}

// hunkRange is "l,n" (or "l" for one line; "l-1,0" for none, as diff does).
func hunkRange(line, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	case 1:
		return fmt.Sprint(line)
	}
	return fmt.Sprintf("%d,%d", line, n)
}
