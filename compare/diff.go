package compare

// UnifiedDiff is the unified diff of the texts a and b under the names
// "a/"+name and "b/"+name, hunks with three lines of context, cut to
// maxLines lines (more counts the lines left out); equal texts give "".
// It is the diff a run comparison shows for a changed artifact, for a
// report that shows more of it.
func UnifiedDiff(name, a, b string, maxLines int) (diff string, more int) {
	return unifiedDiff(name, a, b, maxLines)
}
