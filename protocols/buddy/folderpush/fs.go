package folderpush

// FS is the pack storage as the receiver sees it. A real implementation keeps
// the installed pack in one directory and stages a push in a sibling
// directory on the same filesystem, so that Commit can be a rename.
//
// Names passed to Staging.Create have already passed CheckName; an
// implementation may join them to its staging directory without further
// cleaning.
type FS interface {
	// Free reports the bytes still available for packs while the current
	// pack is installed. The receiver subtracts its reserve itself.
	Free() (int64, error)
	// Stage discards any leftover staging area (from a crash or an
	// abandoned push) and creates a new, empty one.
	Stage() (Staging, error)
}

// Staging is one push's private folder. Exactly one of Commit or Discard
// ends its life; the receiver calls Discard after a failed Commit.
type Staging interface {
	// Create opens name for writing, truncating it if this push already
	// wrote it.
	Create(name string) (File, error)
	// ReadFile returns what was written to name, once it is closed:
	// char_end reads the GIFs back to check what loading them costs.
	ReadFile(name string) ([]byte, error)
	// Commit makes the staged folder the installed pack in one atomic step:
	// flush and sync every file and the folder, then swap it with the
	// current pack, and only then delete the previous one. If Commit
	// returns an error the previous pack must still be installed and
	// complete.
	Commit() error
	// Discard deletes the staging folder. The installed pack is not
	// touched.
	Discard() error
}

// Labeler is a Staging that keeps the pack's name with its files, so that
// the installed pack names itself: a crash between Commit and the owner
// recording the name (buddy.json) then costs nothing, because the owner
// reads the name back from the pack at start. The receiver calls Label
// once, before Commit.
type Labeler interface {
	Label(name string) error
}

// PackName is the display name a pack's own name becomes (packName): the
// same rule for a name read back from an installed pack's manifest.
func PackName(name string) string { return packName(name) }

// File is one staged file. Write must not retain p. Close flushes and
// closes; syncing may wait until Commit, because the desktop allows only 3 s
// per chunk and 10 s per file_end.
type File interface {
	Write(p []byte) (int, error)
	Close() error
}
