//go:build !unix

package safefs

// openFlags: without O_NOFOLLOW the file identity check after opening still
// refuses a final component swapped for a link.
const openFlags = 0

func isLoop(error) bool { return false }

const dirFlags = 0
