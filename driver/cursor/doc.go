// Package cursor is the lux driver for Cursor's agent CLI (cursor-agent),
// run headless with stream-json output.
package cursor
