package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tree is a group found by process ancestry and the TreeEnv mark, for a
// process that is a child subreaper.
type tree struct {
	mu      sync.Mutex // serializes scans, kills and reaping
	token   string
	leader  int
	exited  <-chan struct{}
	adopted map[int]bool // orphans re-parented to this process, to reap
}

func (t *tree) started(pid int, exited <-chan struct{}) {
	t.leader, t.exited = pid, exited
	tellWatchdog("+ " + strconv.Itoa(pid))
}
func (t *tree) failed()  {}
func (t *tree) release() { tellWatchdog("- " + strconv.Itoa(t.leader)) }

type procEntry struct {
	ppid   int
	pgrp   int
	zombie bool
}

// scan lists the processes of the system by pid.
func scan() map[int]procEntry {
	out := map[int]procEntry{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out[pid] = procEntry{ppid: ppid, pgrp: pgrp, zombie: f[0] == "Z" || f[0] == "X"}
	}
	return out
}

// marked reports whether process pid carries the group's mark in its
// environment. A process in the middle of an exec reads for a moment as
// having no environment, and one that is exiting (not yet a zombie) as
// having none to read (ESRCH): unknown says so.
func (t *tree) marked(pid int) (marked, unknown bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, errors.Is(err, syscall.ESRCH)
	}
	if len(env) == 0 {
		return false, true
	}
	return bytes.Contains(append([]byte{0}, env...), []byte("\x00"+TreeEnv+"="+t.token+"\x00")), false
}

// members are the live processes of the group: the leader's tree while
// the leader has not been reaped, and every marked process with its tree.
// unsure says that an orphan this process adopted could not be told apart
// (it was in an exec or exiting): a scan a moment later may find it, or
// find it ended.
func (t *tree) members() (live []int, unsure bool) {
	procs := scan()
	children := map[int][]int{}
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	self := os.Getpid()
	in := map[int]bool{}
	var add func(pid int)
	add = func(pid int) {
		if in[pid] || pid == self {
			return
		}
		in[pid] = true
		for _, c := range children[pid] {
			add(c)
		}
	}
	select {
	case <-t.exited:
	default:
		add(t.leader)
	}
	for pid, p := range procs {
		if p.zombie || in[pid] {
			continue
		}
		switch marked, unknown := t.marked(pid); {
		case marked:
			add(pid)
		case unknown && p.ppid == self:
			// An orphan this process adopted (so a descendant of one of
			// its groups) caught in an exec or its exit: look again.
			unsure = true
		}
	}
	for pid := range in {
		p, ok := procs[pid]
		if !ok {
			continue
		}
		if p.ppid == self && pid != t.leader {
			t.adopted[pid] = true
		}
		if !p.zombie {
			live = append(live, pid)
		}
	}
	return live, unsure
}

// reap collects the exit status of the adopted orphans that have ended.
func (t *tree) reap() {
	for pid := range t.adopted {
		var ws syscall.WaitStatus
		n, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if n == pid || err != nil {
			delete(t.adopted, pid)
		}
	}
}

func (t *tree) signal(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	live, _ := t.members()
	for _, pid := range live {
		if pid != t.leader {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// unsureLooks bounds the scans drain makes again for an adopted orphan
// that was caught in an exec or its exit.
const unsureLooks = 20

func (t *tree) drain(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, KillTimeout)
	defer cancel()
	wait := time.Millisecond
	for looks := 0; ; looks++ {
		m, unsure := t.members()
		for _, pid := range m {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.reap()
		// An exec or an exit lasts far less than the looks an unsure scan
		// gets.
		if len(m) == 0 && (!unsure || looks >= unsureLooks) {
			return nil
		}
		if err := pause(ctx, wait); err != nil {
			return fmt.Errorf("proc: processes %v still alive after SIGKILL: %w", m, err)
		}
		wait = min(2*wait, 20*time.Millisecond)
	}
}
