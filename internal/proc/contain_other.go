//go:build !linux

package proc

import "os/exec"

// ForceContainment has no effect where only process groups exist.
func ForceContainment(Containment) {}

// HostContainment is how this process contains the groups it starts:
// ContainGroup on systems other than Linux.
func HostContainment() Containment { return ContainGroup }

func tellWatchdog(string) {}

func prepare(*exec.Cmd) (container, error) { return &groupOnly{}, nil }
