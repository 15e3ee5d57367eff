// Package luxtest runs lux cases under go test and checks that plugins keep
// their contracts.
package luxtest
