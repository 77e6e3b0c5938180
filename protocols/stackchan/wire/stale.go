package wire

import "time"

// StaleAfter is how long a receiver waits for the rest of a partial frame
// (the stale-partial extension of §4, README.md "Cut-off frames"). The
// largest frame, 4120 bytes, takes about 4 ms at USB full speed and 36 ms
// even at 1 Mbit/s; a sender stalled between two writes of one frame (a
// flash erase on the CoreS3, a descheduled Pi) is covered many times over.
// A peer that restarted mid-frame, though, costs at most half a second.
const StaleAfter = 500 * time.Millisecond

// FillLen is the length of the fill AppendFill writes: one largest frame.
const FillLen = MaxFrame

// AppendFill appends FillLen zero bytes to dst. Sent before HELLO on a
// freshly opened link, they complete any partial frame a §4 parser on the
// other side still holds from before (a header can promise at most
// MaxFrame-1 more bytes), and zeros never contain the magic, so the
// parser then discards them and is idle when HELLO arrives. This works
// with a peer that has no stale-partial timeout too.
func AppendFill(dst []byte) []byte {
	return append(dst, make([]byte, FillLen)...)
}

// arrivals remembers when the pending bytes arrived, as the stream offsets
// where each read ended. It has a fixed size: when full, the newest entry
// absorbs the next read and takes its later time, which can only make a
// partial frame go stale later, never earlier.
type arrivals struct {
	e [16]arrival
	n int
}

type arrival struct {
	end int64     // stream offset just past the read
	at  time.Time // zero: fed without a time, never stale
}

func (a *arrivals) add(end int64, at time.Time) {
	switch {
	case a.n > 0 && a.e[a.n-1].at.Equal(at):
		a.e[a.n-1].end = end
	case a.n == len(a.e):
		a.e[a.n-1] = arrival{end: end, at: at}
	default:
		a.e[a.n] = arrival{end: end, at: at}
		a.n++
	}
}

// drop forgets the reads wholly before stream offset base (consumed).
func (a *arrivals) drop(base int64) {
	k := 0
	for k < a.n && a.e[k].end <= base {
		k++
	}
	if k > 0 {
		a.n = copy(a.e[:], a.e[k:a.n])
	}
}

// at is when the byte at stream offset off arrived (zero if untimed).
func (a *arrivals) at(off int64) time.Time {
	for i := range a.n {
		if a.e[i].end > off {
			return a.e[i].at
		}
	}
	return time.Time{}
}
