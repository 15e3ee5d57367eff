//go:build !unix

package assertion_test

func mkfifo(string) error { return nil }
