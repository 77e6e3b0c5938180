package tts

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxWAVBytes bounds what ReadWAV accepts: ten minutes of 48 kHz mono, far
// beyond one spoken sentence, so a runaway engine cannot exhaust memory.
const MaxWAVBytes = 10 * 60 * 48000 * 2

// ReadWAV reads a whole RIFF/WAVE stream of 16-bit PCM mono.
func ReadWAV(r io.Reader) (PCM, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxWAVBytes+1))
	if err != nil {
		return PCM{}, fmt.Errorf("wav: reading: %w", err)
	}
	if len(b) > MaxWAVBytes {
		return PCM{}, fmt.Errorf("wav: larger than %d bytes", MaxWAVBytes)
	}
	return DecodeWAV(b)
}

// streamedSize reports whether a RIFF or data size is a placeholder written
// by an encoder that could not seek back (espeak-ng --stdout writes
// 0x7ffff000; others 0 or 0xffffffff): the chunk then runs to the end.
func streamedSize(n uint32) bool { return n == 0 || n >= 0x7ffff000 }

// DecodeWAV parses a RIFF/WAVE file holding 16-bit PCM mono. Chunks other
// than fmt and data are skipped; anything else (stereo, 8-bit, float,
// compressed, truncated) is an error naming what was found.
func DecodeWAV(b []byte) (PCM, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return PCM{}, errors.New("wav: not a RIFF/WAVE file")
	}
	rate := 0
	rest := b[12:]
	for len(rest) >= 8 {
		id, size := string(rest[0:4]), binary.LittleEndian.Uint32(rest[4:8])
		body := rest[8:]
		switch id {
		case "fmt ":
			if size < 16 || uint64(size) > uint64(len(body)) {
				return PCM{}, fmt.Errorf("wav: fmt chunk of %d bytes (need 16, have %d)", size, len(body))
			}
			format := binary.LittleEndian.Uint16(body[0:])
			channels := binary.LittleEndian.Uint16(body[2:])
			sr := binary.LittleEndian.Uint32(body[4:])
			bits := binary.LittleEndian.Uint16(body[14:])
			if format == 0xfffe && size >= 40 {
				// WAVE_FORMAT_EXTENSIBLE: the real format is the first two
				// bytes of the sub-format GUID.
				format = binary.LittleEndian.Uint16(body[24:])
			}
			if format != 1 {
				return PCM{}, fmt.Errorf("wav: format tag %d, want 1 (integer PCM)", format)
			}
			if channels != 1 {
				return PCM{}, fmt.Errorf("wav: %d channels, want mono", channels)
			}
			if bits != 16 {
				return PCM{}, fmt.Errorf("wav: %d bits per sample, want 16", bits)
			}
			if sr == 0 || sr > 1_000_000 {
				return PCM{}, fmt.Errorf("wav: sample rate %d Hz", sr)
			}
			rate = int(sr)
		case "data":
			if rate == 0 {
				return PCM{}, errors.New("wav: data chunk before fmt chunk")
			}
			n := uint64(size)
			if streamedSize(size) && n > uint64(len(body)) {
				n = uint64(len(body))
			}
			if n > uint64(len(body)) {
				return PCM{}, fmt.Errorf("wav: data chunk truncated: declares %d bytes, has %d", size, len(body))
			}
			n &^= 1 // a half sample at the end of a streamed file is noise
			return PCM{Rate: rate, Data: bytes.Clone(body[:n])}, nil
		}
		skip := uint64(size) + uint64(size&1) // chunks are word aligned
		if skip > uint64(len(body)) {
			return PCM{}, fmt.Errorf("wav: %q chunk truncated: declares %d bytes, has %d", id, size, len(body))
		}
		rest = body[skip:]
	}
	if rate == 0 {
		return PCM{}, errors.New("wav: no fmt chunk")
	}
	return PCM{}, errors.New("wav: no data chunk")
}

// EncodeWAV returns p as a canonical 44-byte-header WAV file.
func EncodeWAV(p PCM) ([]byte, error) {
	if p.Rate <= 0 {
		return nil, fmt.Errorf("wav: sample rate %d Hz", p.Rate)
	}
	if len(p.Data)%2 != 0 {
		return nil, fmt.Errorf("wav: odd PCM length %d", len(p.Data))
	}
	if uint64(len(p.Data)) > 0xffffffff-36 {
		return nil, fmt.Errorf("wav: %d bytes do not fit a RIFF file", len(p.Data))
	}
	b := make([]byte, 44, 44+len(p.Data))
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+len(p.Data)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(p.Rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(p.Rate*2)) // byte rate
	binary.LittleEndian.PutUint16(b[32:], 2)                // block align
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(len(p.Data)))
	return append(b, p.Data...), nil
}

// WriteWAV writes p to w as a WAV file.
func WriteWAV(w io.Writer, p PCM) error {
	b, err := EncodeWAV(p)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
