module github.com/luxeval/lux

go 1.26
