package fakedesktop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// Folder push limits and timeouts of the desktop (spec §8.1).
const (
	MaxPack        = 1_800_000
	ChunkSize      = 256
	beginTries     = 8
	beginTimeout   = 2 * time.Second
	beginPause     = time.Second
	fileTimeout    = 5 * time.Second
	chunkTimeout   = 3 * time.Second
	fileEndTimeout = 10 * time.Second
	charEndTimeout = 10 * time.Second
)

// PackFile is one file of a character pack. Name is sent as is: the
// desktop does not validate names, the device must.
type PackFile struct {
	Name string
	Data []byte
}

// PushError is a failed push, with the text the desktop would show and the
// ack that caused it (nil for a timeout or a desktop-side refusal).
type PushError struct {
	Step string // "inventory", "char_begin", "file", "chunk", "file_end", "char_end"
	File string
	Msg  string
	Ack  *pbuddy.Ack
}

// Error names the push step, the file and the device's error text.
func (e *PushError) Error() string {
	if e.Ack != nil && e.Ack.Error != "" {
		return "✗ " + e.Msg + ": " + e.Ack.Error
	}
	return "✗ " + e.Msg
}

// ReadPack reads a folder the way the desktop does: regular files directly
// inside it, names starting with "." skipped, no recursion. The pack name
// is manifest.json's "name" if it has a non-empty one, else the folder's.
func ReadPack(dir string) (name string, files []PackFile, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("desktop: reading pack folder: %w", err)
	}
	name = filepath.Base(dir)
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", nil, fmt.Errorf("desktop: reading pack folder: %w", err)
		}
		if e.Name() == "manifest.json" {
			var m struct {
				Name any `json:"name"`
			}
			if json.Unmarshal(b, &m) == nil {
				if s, ok := m.Name.(string); ok && s != "" {
					name = s
				}
			}
		}
		files = append(files, PackFile{Name: e.Name(), Data: b})
	}
	return name, files, nil
}

// PushPack sends the folder dir as a character pack (see ReadPack).
func (d *Desktop) PushPack(ctx context.Context, dir string) error {
	name, files, err := ReadPack(dir)
	if err != nil {
		return err
	}
	return d.PushFiles(ctx, name, files)
}

// PushFiles sends files as the pack name, step by step, each step waiting
// for its ack with the desktop's timeout; char_begin is tried up to 8
// times. Heartbeats and turn events are held back meanwhile. A failure is
// a *PushError; the desktop has no abort command, so the device is left
// mid-transfer, exactly as with the real desktop.
func (d *Desktop) PushFiles(ctx context.Context, name string, files []PackFile) error {
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	if len(files) == 0 {
		return &PushError{Step: "inventory", Msg: "Folder is empty"}
	}
	if total > MaxPack {
		return &PushError{Step: "inventory", Msg: fmt.Sprintf("Folder is %dKB; device limit is %dKB", total/1024, MaxPack/1024)}
	}
	d.mu.Lock()
	if d.pushing {
		d.mu.Unlock()
		return &PushError{Step: "inventory", Msg: "install already in progress"}
	}
	d.pushing = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.pushing = false
		d.mu.Unlock()
		d.changed() // heartbeats resume
	}()

	if err := d.charBegin(ctx, name, total); err != nil {
		return err
	}
	var sent int64
	for _, f := range files {
		size := int64(len(f.Data))
		a, err := d.step(ctx, pbuddy.File{Path: f.Name, Size: size}, fileTimeout)
		if err != nil || !a.OK {
			return &PushError{Step: "file", File: f.Name, Msg: "Stick failed to open " + f.Name, Ack: ackOrNil(a, err)}
		}
		for off := 0; off < len(f.Data); off += ChunkSize {
			end := min(off+ChunkSize, len(f.Data))
			a, err := d.step(ctx, pbuddy.Chunk{D: base64.StdEncoding.EncodeToString(f.Data[off:end])}, chunkTimeout)
			if err != nil || !a.OK {
				return &PushError{Step: "chunk", File: f.Name, Msg: fmt.Sprintf("chunk failed at %s+%d", f.Name, off), Ack: ackOrNil(a, err)}
			}
			sent += int64(end - off)
			if d.opts.Progress != nil {
				d.opts.Progress(f.Name, sent, total)
			}
		}
		a, err = d.step(ctx, pbuddy.FileEnd{}, fileEndTimeout)
		if err != nil || !a.OK || a.N != size {
			return &PushError{Step: "file_end", File: f.Name, Msg: fmt.Sprintf("%s: wrote %d of %d", f.Name, a.N, size), Ack: ackOrNil(a, err)}
		}
	}
	a, err := d.step(ctx, pbuddy.CharEnd{}, charEndTimeout)
	if err != nil || !a.OK {
		return &PushError{Step: "char_end", Msg: "char_end failed — character did not reload", Ack: ackOrNil(a, err)}
	}
	return nil
}

// charBegin tries up to 8 times: ok:false with an error aborts at once,
// ok:false without one or no ack at all is retried after a pause.
func (d *Desktop) charBegin(ctx context.Context, name string, total int64) error {
	for try := 1; try <= beginTries; try++ {
		a, err := d.step(ctx, pbuddy.CharBegin{Name: name, Total: total}, beginTimeout)
		switch {
		case err == nil && a.OK:
			return nil
		case err == nil && a.Error != "":
			return &PushError{Step: "char_begin", Msg: "Stick refused the character", Ack: &a}
		case ctx.Err() != nil || d.Err() != nil:
			return &PushError{Step: "char_begin", Msg: fmt.Sprintf("char_begin: %v", errors.Join(ctx.Err(), d.Err()))}
		}
		if try < beginTries {
			select {
			case <-time.After(beginPause):
			case <-ctx.Done():
			}
		}
	}
	return &PushError{Step: "char_begin", Msg: "Stick did not respond to char_begin"}
}

// step sends one push command and waits up to timeout for its ack.
func (d *Desktop) step(ctx context.Context, cmd pbuddy.Command, timeout time.Duration) (pbuddy.Ack, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return d.Command(ctx, cmd)
}

func ackOrNil(a pbuddy.Ack, err error) *pbuddy.Ack {
	if err != nil {
		return nil
	}
	return &a
}
