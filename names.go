package lux

// ClosestName returns the one name of known that name most likely meant,
// or "": the same name in another case, else the one name a typo away
// (one or two edits), else the one name that begins with name and a '-'.
// Two names as close are no guess. It is the guess of "did you mean" in
// lux's messages, for callers with names of their own to check.
func ClosestName(name string, known []string) string { return closestName(name, known) }
