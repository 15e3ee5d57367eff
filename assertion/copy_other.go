//go:build !unix

package assertion

// copyFlags: the identity check after opening refuses a file swapped in
// after the walk.
const copyFlags = 0
