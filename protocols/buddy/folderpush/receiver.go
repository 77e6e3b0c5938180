package folderpush

import (
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// Command names, equal to the wire "cmd" strings and therefore to the acks.
const (
	CmdBegin   = "char_begin"
	CmdFile    = "file"
	CmdChunk   = "chunk"
	CmdFileEnd = "file_end"
	CmdEnd     = "char_end"
)

// Defaults for Opts (spec §8.1, §8.2).
const (
	DefaultMaxTotal    = 1_800_000
	DefaultReserve     = 4096
	DefaultIdleTimeout = 30 * time.Second
	// maxChunkText bounds one chunk's base64 text, so a hostile line cannot
	// make us allocate more than the 16 KiB line limit allows anyway.
	maxChunkText = 16 << 10
)

// Opts tunes a Receiver. The zero value of a field means its default.
type Opts struct {
	// MaxTotal caps a pack's size. Raise it only together with the
	// desktop's own limit, which refuses folders above 1,800,000 bytes.
	MaxTotal int64
	// Reserve is kept free on the pack storage beyond the pack itself,
	// for directory entries and the manifest's rename.
	Reserve int64
	// IdleTimeout abandons a push after this long without a push command;
	// the desktop's longest wait is 10 s and it never aborts explicitly.
	IdleTimeout time.Duration
}

// Input is one decoded push command. The actor fills only the fields of its
// Cmd.
type Input struct {
	Cmd   string // one of the Cmd constants
	Name  string // char_begin: pack display name, may be empty
	Total int64  // char_begin: announced pack size; 0 = not announced, < 0 = invalid
	Path  string // file: the file name
	Size  int64  // file: announced size; set -1 when missing or not a non-negative integer
	Data  string // chunk: base64 payload
}

// Result is the ack for one Input. Ack, OK, N and Err map one to one onto
// the ack's "ack", "ok", "n" and "error" fields; Err is non-empty exactly
// when OK is false.
type Result struct {
	Ack string
	OK  bool
	N   int64
	Err string
	// Cause is the detailed reason behind Err, for the log; the wire text
	// stays short because the desktop shows it verbatim.
	Cause error
	// Installed is set by a successful char_end: the new pack is in place
	// and should be loaded.
	Installed *Manifest
	// Pack is the sanitized char_begin name of an installed pack.
	Pack string
}

// Progress describes the running push for the screen.
type Progress struct {
	Active   bool
	Name     string // sanitized pack name
	File     string // file being written, "" between files
	FileN    int64  // bytes of File so far
	FileSize int64  // announced size of File
	Received int64  // bytes received in this push
	Total    int64  // announced pack size, 0 when not announced
}

type fileState struct {
	size, written int64
	done          bool
}

// Receiver is the push state machine. It is not safe for concurrent use;
// the owning actor serializes access.
type Receiver struct {
	fs   FS
	opts Opts

	stage               Staging // nil when idle
	name                string
	total               int64
	capacity            int64 // bytes this push may occupy, fixed at char_begin
	files               map[string]*fileState
	announced, received int64
	cur                 File
	curName             string
	manifest            []byte
	last                time.Time
	scratch             []byte
}

// New returns an idle Receiver writing through fs.
func New(fs FS, opts *Opts) (*Receiver, error) {
	if fs == nil {
		return nil, errors.New("folderpush: nil FS")
	}
	r := &Receiver{fs: fs}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.MaxTotal < 0 || r.opts.Reserve < 0 || r.opts.IdleTimeout < 0 {
		return nil, fmt.Errorf("folderpush: negative option in %+v", r.opts)
	}
	if r.opts.MaxTotal == 0 {
		r.opts.MaxTotal = DefaultMaxTotal
	}
	if r.opts.Reserve == 0 {
		r.opts.Reserve = DefaultReserve
	}
	if r.opts.IdleTimeout == 0 {
		r.opts.IdleTimeout = DefaultIdleTimeout
	}
	return r, nil
}

// Active reports whether a push is in progress.
func (r *Receiver) Active() bool { return r.stage != nil }

// Progress reports the running push; the zero Progress when idle.
func (r *Receiver) Progress() Progress {
	if r.stage == nil {
		return Progress{}
	}
	p := Progress{Active: true, Name: r.name, Received: r.received, Total: r.total}
	if r.cur != nil {
		f := r.files[r.curName]
		p.File, p.FileN, p.FileSize = r.curName, f.written, f.size
	}
	return p
}

// Apply handles one push command received at now and returns its ack.
func (r *Receiver) Apply(in Input, now time.Time) Result {
	r.last = now
	var res Result
	switch in.Cmd {
	case CmdBegin:
		res = r.begin(in.Name, in.Total)
	case CmdFile:
		res = r.file(in.Path, in.Size)
	case CmdChunk:
		res = r.chunk(in.Data)
	case CmdFileEnd:
		res = r.fileEnd()
	case CmdEnd:
		res = r.end()
	default:
		return Result{Ack: in.Cmd, Err: "unknown command", Cause: fmt.Errorf("folderpush: %q is not a push command", in.Cmd)}
	}
	res.Ack = in.Cmd
	return res
}

// Tick abandons the push if it has been idle for the idle timeout. The
// actor calls it from a timer; it reports whether a push was abandoned.
func (r *Receiver) Tick(now time.Time) (abandoned bool, err error) {
	if r.stage == nil || now.Sub(r.last) < r.opts.IdleTimeout {
		return false, nil
	}
	return true, r.Abort()
}

// Abort abandons any running push, for a disconnect or shutdown. The
// Receiver is idle afterwards even if deleting the staging folder failed;
// the error is for the log, and the next Stage clears the leftovers.
func (r *Receiver) Abort() error {
	if r.stage == nil {
		return nil
	}
	var errs []error
	if r.cur != nil {
		errs = append(errs, r.cur.Close())
	}
	errs = append(errs, r.stage.Discard())
	*r = Receiver{fs: r.fs, opts: r.opts, scratch: r.scratch[:0]}
	return errors.Join(errs...)
}

// fail abandons the push and builds a failed ack. Every rejection inside a
// transfer ends it (see the package comment).
func (r *Receiver) fail(n int64, wire string, cause error) Result {
	if err := r.Abort(); err != nil {
		cause = errors.Join(cause, fmt.Errorf("discarding staging: %w", err))
	}
	return Result{N: n, Err: wire, Cause: cause}
}

// Busy reports whether a push is under way and has begun sending files:
// then a new char_begin is refused instead of restarting it.
func (r *Receiver) Busy() bool { return r.stage != nil && len(r.files) > 0 }

func (r *Receiver) begin(name string, total int64) Result {
	// A push that is already moving files is not interrupted: a second
	// char_begin then is another push, and is refused with an error so the
	// desktop stops and shows why. The running push goes on; if its sender
	// is gone, the 30 s idle rule ends it.
	if r.Busy() {
		return Result{Err: "another push is in progress; try again in 30 s",
			Cause: fmt.Errorf("char_begin while push %q has %d file(s) under way", r.name, len(r.files))}
	}
	// Before any file arrived, a char_begin starts afresh (spec §8.2 step
	// 1): the desktop retries char_begin when its ack is slow, and such a
	// retry must not fail the push it is retrying.
	// A failed discard is not fatal here: Stage drops leftovers by contract.
	_ = r.Abort()
	if total < 0 {
		return Result{Err: "invalid total", Cause: fmt.Errorf("char_begin: total %d is negative", total)}
	}
	free, err := r.fs.Free()
	if err != nil {
		return Result{Err: "storage error", Cause: fmt.Errorf("reading free space: %w", err)}
	}
	avail := min(max(free, 0), r.opts.MaxTotal)
	capacity := min(max(free-r.opts.Reserve, 0), r.opts.MaxTotal)
	if total > capacity {
		return Result{N: avail, Err: fmt.Sprintf("need %dK, have %dK", total/1024, avail/1024),
			Cause: fmt.Errorf("char_begin: %d bytes announced, %d free, limit %d, reserve %d", total, free, r.opts.MaxTotal, r.opts.Reserve)}
	}
	st, err := r.fs.Stage()
	if err != nil {
		return Result{Err: "storage error", Cause: fmt.Errorf("creating staging folder: %w", err)}
	}
	r.stage, r.name, r.total, r.capacity = st, packName(name), total, capacity
	r.files = make(map[string]*fileState)
	return Result{OK: true}
}

func (r *Receiver) file(path string, size int64) Result {
	if r.stage == nil {
		return Result{Err: "no transfer", Cause: errors.New("file outside a push")}
	}
	if err := r.closeCurrent(); err != nil {
		return r.fail(0, "write failed", err)
	}
	if err := CheckName(path); err != nil {
		return r.fail(0, "invalid path", err)
	}
	if size < 0 {
		return r.fail(0, "invalid size", fmt.Errorf("file %q: size missing or negative", path))
	}
	if path == ManifestName && size > MaxManifestSize {
		return r.fail(0, "manifest too large", fmt.Errorf("file %q: %d bytes, limit %d", path, size, MaxManifestSize))
	}
	announced := r.announced
	if old, ok := r.files[path]; ok { // rewritten: its old bytes go away
		announced -= old.size
	}
	if announced+size > r.capacity {
		return r.fail(0, "too large", fmt.Errorf("file %q: %d bytes would bring the push to %d, capacity %d", path, size, announced+size, r.capacity))
	}
	f, err := r.stage.Create(path)
	if err != nil {
		return r.fail(0, "open failed", fmt.Errorf("creating %q: %w", path, err))
	}
	if old, ok := r.files[path]; ok {
		r.received -= old.written
	}
	r.announced = announced + size
	r.files[path] = &fileState{size: size}
	r.cur, r.curName = f, path
	if path == ManifestName {
		r.manifest = r.manifest[:0]
	}
	return Result{OK: true}
}

// closeCurrent closes a file left open by a file without file_end. Its
// entry stays not done, so char_end refuses the pack unless it is rewritten.
func (r *Receiver) closeCurrent() error {
	if r.cur == nil {
		return nil
	}
	err := r.cur.Close()
	r.cur, r.curName = nil, ""
	if err != nil {
		return fmt.Errorf("closing abandoned file: %w", err)
	}
	return nil
}

func (r *Receiver) chunk(d string) Result {
	if r.stage == nil {
		return Result{Err: "no transfer", Cause: errors.New("chunk outside a push")}
	}
	if r.cur == nil {
		return r.fail(0, "no file open", errors.New("chunk before file"))
	}
	f := r.files[r.curName]
	if len(d) > maxChunkText {
		return r.fail(f.written, "chunk too large", fmt.Errorf("chunk for %q: %d base64 bytes, limit %d", r.curName, len(d), maxChunkText))
	}
	enc := base64.StdEncoding
	if len(d)%4 != 0 {
		// Padding is what the desktop sends; a host that leaves it off
		// is still unambiguous, so accept that too.
		enc = base64.RawStdEncoding
	}
	if cap(r.scratch) < enc.DecodedLen(len(d)) {
		r.scratch = make([]byte, enc.DecodedLen(len(d)))
	}
	n, err := enc.Decode(r.scratch[:cap(r.scratch)], []byte(d))
	if err != nil {
		return r.fail(f.written, "bad base64", fmt.Errorf("chunk for %q: %v", r.curName, err))
	}
	b := r.scratch[:n]
	if f.written+int64(n) > f.size {
		return r.fail(f.written, "file too long", fmt.Errorf("chunk for %q: %d more bytes would exceed the announced %d", r.curName, n, f.size))
	}
	if r.received+int64(n) > r.capacity {
		return r.fail(f.written, "too large", fmt.Errorf("chunk for %q: push would exceed capacity %d", r.curName, r.capacity))
	}
	if _, err := r.cur.Write(b); err != nil {
		return r.fail(f.written, "write failed", fmt.Errorf("writing %q at %d: %w", r.curName, f.written, err))
	}
	if r.curName == ManifestName {
		r.manifest = append(r.manifest, b...)
	}
	f.written += int64(n)
	r.received += int64(n)
	return Result{OK: true, N: f.written}
}

func (r *Receiver) fileEnd() Result {
	if r.stage == nil {
		return Result{Err: "no transfer", Cause: errors.New("file_end outside a push")}
	}
	if r.cur == nil {
		return r.fail(0, "no file open", errors.New("file_end without file"))
	}
	name, f := r.curName, r.files[r.curName]
	if err := r.closeCurrent(); err != nil {
		return r.fail(f.written, "write failed", fmt.Errorf("closing %q: %w", name, err))
	}
	if f.written != f.size {
		// Also when the announced size was 0 (spec §12 item 9).
		return r.fail(f.written, fmt.Sprintf("wrote %d of %d", f.written, f.size), fmt.Errorf("file_end for %q: %d bytes written, %d announced", name, f.written, f.size))
	}
	f.done = true
	return Result{OK: true, N: f.written}
}

func (r *Receiver) end() Result {
	if r.stage == nil {
		return Result{Err: "no transfer", Cause: errors.New("char_end outside a push")}
	}
	if r.cur != nil {
		return r.fail(0, "file still open", fmt.Errorf("char_end while %q is open", r.curName))
	}
	for name, f := range r.files {
		if !f.done {
			return r.fail(0, "incomplete file", fmt.Errorf("char_end: %q has no successful file_end", name))
		}
	}
	if _, ok := r.files[ManifestName]; !ok {
		return r.fail(0, "manifest missing", errors.New("char_end: no manifest.json in the push"))
	}
	m, err := ParseManifest(r.manifest, func(n string) bool { _, ok := r.files[n]; return ok })
	if err != nil {
		return r.fail(0, "manifest invalid", err)
	}
	if err := CheckMemory(m, r.stage.ReadFile); err != nil {
		wire := "pack invalid"
		if errors.Is(err, ErrOverBudget) {
			wire = fmt.Sprintf("too large to load: over %d MB of RAM", MemoryBudget>>20)
		}
		return r.fail(0, wire, fmt.Errorf("char_end: pack %q: %w", r.name, err))
	}
	if l, ok := r.stage.(Labeler); ok {
		if err := l.Label(r.name); err != nil {
			return r.fail(0, "install failed", fmt.Errorf("labelling pack %q: %w", r.name, err))
		}
	}
	if err := r.stage.Commit(); err != nil {
		return r.fail(0, "install failed", fmt.Errorf("committing pack %q: %w", r.name, err))
	}
	pack := r.name
	// Committed: reset without Abort, there is nothing left to discard.
	*r = Receiver{fs: r.fs, opts: r.opts, scratch: r.scratch[:0]}
	return Result{OK: true, Installed: m, Pack: pack}
}
