package cursor

// FakeCLI is the path of the fake cursor-agent that TestMain builds.
func FakeCLI() string { return fakeCLI }
