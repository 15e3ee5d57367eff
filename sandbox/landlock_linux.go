package sandbox

import (
	"syscall"
	"unsafe"
)

// Landlock's system calls and constants (linux/landlock.h); the numbers
// are the same on every architecture.
const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	createRulesetVersion = 1 << 0

	ruleTypePathBeneath = 1
	ruleTypeNetPort     = 2

	fsExecute    = 1 << 0
	fsWriteFile  = 1 << 1
	fsReadFile   = 1 << 2
	fsReadDir    = 1 << 3
	fsRemoveDir  = 1 << 4
	fsRemoveFile = 1 << 5
	fsMakeChar   = 1 << 6
	fsMakeDir    = 1 << 7
	fsMakeReg    = 1 << 8
	fsMakeSock   = 1 << 9
	fsMakeFifo   = 1 << 10
	fsMakeBlock  = 1 << 11
	fsMakeSym    = 1 << 12
	fsRefer      = 1 << 13 // ABI 2
	fsTruncate   = 1 << 14 // ABI 3
	fsIoctlDev   = 1 << 15 // ABI 5

	netBindTCP    = 1 << 0 // ABI 4
	netConnectTCP = 1 << 1 // ABI 4

	scopeAbstractUnix = 1 << 0 // ABI 6
	scopeSignal       = 1 << 1 // ABI 6

	prSetNoNewPrivs = 38

	oPath = 0x200000 // O_PATH
)

// rights on a regular file (the others only make sense on a directory).
const fileRights = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev

// readRights is read-only access to a tree, executables included.
const readRights = fsExecute | fsReadFile | fsReadDir

// fsRightsOf is every filesystem right Landlock ABI abi handles.
func fsRightsOf(abi int) uint64 {
	r := uint64(1<<13 - 1)
	if abi >= 2 {
		r |= fsRefer
	}
	if abi >= 3 {
		r |= fsTruncate
	}
	if abi >= 5 {
		r |= fsIoctlDev
	}
	return r
}

type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// pathBeneathAttr is packed in the kernel: 12 bytes.
type pathBeneathAttr [12]byte

func newPathBeneath(access uint64, fd int) pathBeneathAttr {
	var a pathBeneathAttr
	*(*uint64)(unsafe.Pointer(&a[0])) = access
	*(*int32)(unsafe.Pointer(&a[8])) = int32(fd)
	return a
}

type netPortAttr struct {
	access uint64
	port   uint64
}

// landlockABI is the Landlock ABI version the kernel offers, or 0 with the
// reason it offers none (ENOSYS: not built in; EOPNOTSUPP: disabled at boot).
func landlockABI() (int, error) {
	v, _, e := syscall.RawSyscall(sysCreateRuleset, 0, 0, createRulesetVersion)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// rulesetSize is the size of rulesetAttr the kernel of ABI abi understands.
func rulesetSize(abi int) uintptr {
	switch {
	case abi >= 6:
		return 24
	case abi >= 4:
		return 16
	}
	return 8
}

func createRuleset(attr *rulesetAttr, abi int) (int, error) {
	fd, _, e := syscall.RawSyscall(sysCreateRuleset, uintptr(unsafe.Pointer(attr)), rulesetSize(abi), 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

func addPathRule(ruleset int, a *pathBeneathAttr) error {
	_, _, e := syscall.RawSyscall6(sysAddRule, uintptr(ruleset), ruleTypePathBeneath, uintptr(unsafe.Pointer(a)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func addPortRule(ruleset int, a *netPortAttr) error {
	_, _, e := syscall.RawSyscall6(sysAddRule, uintptr(ruleset), ruleTypeNetPort, uintptr(unsafe.Pointer(a)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// restrictSelf confines the calling thread (and what it execs).
func restrictSelf(ruleset int) error {
	_, _, e := syscall.RawSyscall(sysRestrictSelf, uintptr(ruleset), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func noNewPrivs() error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
