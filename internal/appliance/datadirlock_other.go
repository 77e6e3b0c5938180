//go:build !unix

package appliance

import "os"

// tryLockExclusive takes no lock: the appliance runs on Linux only, and
// this build exists for the developer-side commands (hook, pair).
func tryLockExclusive(*os.File) (busy bool, err error) { return false, nil }
