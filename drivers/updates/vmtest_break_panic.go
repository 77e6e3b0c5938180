//go:build vmtest_panic

package updates

const breakPanic, breakLAN = true, false
