package footprint

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// A mapping is one line of /proc/<pid>/smaps with the fields release
// reads.
type mapping struct {
	lo, hi     uint64 // the address range
	perms      string // "r-xp"
	major      uint64 // the device and inode of the file mapped
	minor      uint64
	inode      uint64
	rss        uint64 // KiB resident
	anonymous  uint64 // KiB of private copies (written pages)
	hasAnonRow bool   // the Anonymous field was present
}

// parseSmaps reads the mappings of an smaps file.
func parseSmaps(data []byte) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4 {
			lo, hi, ok := strings.Cut(f[0], "-")
			maj, mnr, ok2 := strings.Cut(f[3], ":")
			if !ok || !ok2 {
				continue
			}
			var m mapping
			var err [5]error
			m.lo, err[0] = strconv.ParseUint(lo, 16, 64)
			m.hi, err[1] = strconv.ParseUint(hi, 16, 64)
			m.major, err[2] = strconv.ParseUint(maj, 16, 64)
			m.minor, err[3] = strconv.ParseUint(mnr, 16, 64)
			m.inode, err[4] = strconv.ParseUint(f[4], 10, 64)
			if err != [5]error{} {
				continue
			}
			m.perms = f[1]
			out = append(out, m)
			continue
		}
		if len(out) == 0 || len(f) < 2 {
			continue
		}
		m := &out[len(out)-1]
		switch f[0] {
		case "Rss:":
			m.rss, _ = strconv.ParseUint(f[1], 10, 64)
		case "Anonymous:":
			m.anonymous, _ = strconv.ParseUint(f[1], 10, 64)
			m.hasAnonRow = true
		}
	}
	return out
}

// releasable is the mappings of the file (major:minor, inode) that are
// read-only, private and unmodified: the pages of each are all the file's
// own, so dropping them loses nothing. A read-only mapping with a written
// page (a relocation made read-only after, a debugger's breakpoint, an
// uprobe) is left alone: dropping it would undo the write.
func releasable(ms []mapping, major, minor, inode uint64) []mapping {
	var out []mapping
	for _, m := range ms {
		if m.major != major || m.minor != minor || m.inode != inode || inode == 0 {
			continue
		}
		if (m.perms != "r-xp" && m.perms != "r--p") || !m.hasAnonRow || m.anonymous != 0 {
			continue
		}
		out = append(out, m)
	}
	return out
}
