//go:build vmtest_lanfail && !vmtest_panic

package updates

const breakPanic, breakLAN = false, true
