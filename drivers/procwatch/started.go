package procwatch

// Started is when this process was created, in nanoseconds on a clock of
// this computer's own: boot-relative on Linux, wall time on macOS and
// Windows. It orders the hooks Claude Code spawns, which run as separate
// processes and reach the Pi in any order (an async hook can arrive after
// one spawned well after it), so a value is only comparable with another
// from the same computer. It is the operating system's record of the
// spawn, not a clock read once the program runs: under load a process
// can wait hundreds of milliseconds before its first instruction, which is
// exactly when the order matters. ok is false where the system does not
// say.
func Started() (ns int64, ok bool) { return started() }
