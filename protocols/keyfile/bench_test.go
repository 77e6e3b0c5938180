package keyfile

import "testing"

// BenchmarkCheck: one bond's info file, as check-files reads each at boot.
func BenchmarkCheck(b *testing.B) {
	in := []byte(info)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(in); err != nil {
			b.Fatal(err)
		}
	}
}
