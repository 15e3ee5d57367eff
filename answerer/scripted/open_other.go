//go:build !unix

package scripted

const openFlags = 0
