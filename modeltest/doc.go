// Package modeltest is a scripted model server for testing coding agents
// offline.
package modeltest
