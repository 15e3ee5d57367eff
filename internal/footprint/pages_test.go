package footprint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const smapsSample = `00400000-00b99000 r-xp 00000000 fd:01 1234 /usr/bin/lux
Size:               7780 kB
Rss:                6600 kB
Anonymous:             0 kB
00b99000-00d00000 r--p 00799000 fd:01 1234 /usr/bin/lux
Rss:                2000 kB
Anonymous:             0 kB
00d00000-00d01000 r--p 00900000 fd:01 1234 /usr/bin/lux
Rss:                   4 kB
Anonymous:             4 kB
00d01000-0136d000 r--p 00901000 fd:01 1234 /usr/bin/lux
Rss:                4000 kB
Anonymous:             0 kB
0136d000-013d6000 rw-p 00f6d000 fd:01 1234 /usr/bin/lux
Rss:                 356 kB
Anonymous:           100 kB
013d6000-0341a000 rw-p 00000000 00:00 0
Rss:                 108 kB
Anonymous:           108 kB
7f2818533000-7f2818689000 r-xp 00026000 fd:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                 820 kB
Anonymous:             0 kB
7f2818700000-7f2818701000 r--p 00000000 fd:02 1234 /other/device/same/inode
Rss:                   4 kB
Anonymous:             0 kB
`

// TestReleasableIsTheUnwrittenReadOnlyPagesOfTheFile checks which
// mappings are dropped: the executable's read-only ones that hold no
// written page, not a written one (a relocation made read-only), not a
// writable one, not another file's.
func TestReleasableIsTheUnwrittenReadOnlyPagesOfTheFile(t *testing.T) {
	var got []string
	for _, m := range releasable(parseSmaps([]byte(smapsSample)), 0xfd, 0x01, 1234) {
		got = append(got, m.perms)
		if m.rss == 0 {
			t.Errorf("mapping %x-%x: no Rss read", m.lo, m.hi)
		}
	}
	if diff := cmp.Diff([]string{"r-xp", "r--p", "r--p"}, got); diff != "" {
		t.Errorf("releasable perms (-want +got):\n%s", diff)
	}
	if ms := releasable(parseSmaps([]byte(smapsSample)), 0xfd, 0x01, 0); len(ms) != 0 {
		t.Errorf("inode 0 (anonymous memory) released: %v", ms)
	}
	noAnon := "00400000-00b99000 r-xp 00000000 fd:01 1234 /usr/bin/lux\nRss: 6600 kB\n"
	if ms := releasable(parseSmaps([]byte(noAnon)), 0xfd, 0x01, 1234); len(ms) != 0 {
		t.Errorf("a mapping whose written pages are not reported was released: %v", ms)
	}
}
