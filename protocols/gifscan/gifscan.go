// Package gifscan reads a GIF's structure (the logical screen and each
// frame's rectangle) without decoding any pixels, so that the cost of
// decoding it can be known, and refused, before a single frame is
// allocated. A 2 KB GIF can declare a hundred 1024×1024 frames.
package gifscan

import (
	"errors"
	"fmt"
	"image"
)

// Info is what a GIF declares.
type Info struct {
	Width, Height int               // the logical screen
	Frames        []image.Rectangle // each image descriptor's rectangle
	LocalPalettes int               // frames with their own color table
}

// Errors Scan returns; the frame count one wraps ErrTooManyFrames.
var (
	ErrNotGIF        = errors.New("gifscan: not a GIF (no GIF87a/GIF89a header)")
	ErrTruncated     = errors.New("gifscan: GIF truncated")
	ErrTooManyFrames = errors.New("gifscan: too many frames")
)

// Scan walks b's blocks up to the trailer, or to the end of b, as
// image/gif.DecodeAll would, and reports the declared sizes. It stops
// with ErrTooManyFrames past maxFrames frames, and refuses what DecodeAll
// refuses about the sizes (a frame outside the logical screen), so Info
// bounds what DecodeAll allocates.
func Scan(b []byte, maxFrames int) (Info, error) {
	var in Info
	if len(b) < 13 || (string(b[:6]) != "GIF87a" && string(b[:6]) != "GIF89a") {
		return in, ErrNotGIF
	}
	in.Width, in.Height = le16(b[6:]), le16(b[8:])
	p := 13
	if b[10]&0x80 != 0 {
		p += 3 << (1 + b[10]&7)
	}
	for {
		if p >= len(b) {
			if len(in.Frames) == 0 {
				return in, ErrTruncated
			}
			return in, nil // DecodeAll also stops at the end without a trailer
		}
		switch b[p] {
		case 0x3b: // trailer
			return in, nil
		case 0x21: // extension: label, then sub-blocks
			if p+2 > len(b) {
				return in, ErrTruncated
			}
			var err error
			if p, err = skipBlocks(b, p+2); err != nil {
				return in, err
			}
		case 0x2c: // image descriptor
			if p+10 > len(b) {
				return in, ErrTruncated
			}
			x, y, w, h := le16(b[p+1:]), le16(b[p+3:]), le16(b[p+5:]), le16(b[p+7:])
			flags := b[p+9]
			p += 10
			if x+w > in.Width || y+h > in.Height {
				return in, fmt.Errorf("gifscan: frame %d at %d,%d size %dx%d is outside the %dx%d screen", len(in.Frames)+1, x, y, w, h, in.Width, in.Height)
			}
			if len(in.Frames) == maxFrames {
				return in, fmt.Errorf("%w: more than %d", ErrTooManyFrames, maxFrames)
			}
			in.Frames = append(in.Frames, image.Rect(x, y, x+w, y+h))
			if flags&0x80 != 0 {
				in.LocalPalettes++
				p += 3 << (1 + flags&7)
			}
			p++ // LZW minimum code size
			if p > len(b) {
				return in, ErrTruncated
			}
			var err error
			if p, err = skipBlocks(b, p); err != nil {
				return in, err
			}
		default:
			return in, fmt.Errorf("gifscan: unknown block 0x%02x at byte %d", b[p], p)
		}
	}
}

// skipBlocks skips the data sub-blocks at p and their terminator.
func skipBlocks(b []byte, p int) (int, error) {
	for {
		if p >= len(b) {
			return p, ErrTruncated
		}
		n := int(b[p])
		p++
		if n == 0 {
			return p, nil
		}
		p += n
	}
}

func le16(b []byte) int { return int(b[0]) | int(b[1])<<8 }
