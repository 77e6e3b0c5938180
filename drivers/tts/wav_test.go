package tts

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// hdr builds a WAV header with the given fields and data size.
func hdr(format, channels uint16, rate uint32, bits uint16, dataSize uint32) []byte {
	b := make([]byte, 44)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], 36+dataSize)
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], format)
	binary.LittleEndian.PutUint16(b[22:], channels)
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], rate*uint32(channels)*uint32(bits)/8)
	binary.LittleEndian.PutUint16(b[32:], channels*bits/8)
	binary.LittleEndian.PutUint16(b[34:], bits)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], dataSize)
	return b
}

func TestWAVRoundTrip(t *testing.T) {
	for _, p := range []PCM{
		{Rate: 24000, Data: []byte{}},
		{Rate: 22050, Data: []byte{1, 0, 0xff, 0x7f, 0x00, 0x80}},
		FromSamples(8000, []int16{-32768, 0, 32767, 12345}),
	} {
		var buf bytes.Buffer
		if err := WriteWAV(&buf, p); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != 44+len(p.Data) {
			t.Fatalf("WAV of %d bytes is %d long", len(p.Data), buf.Len())
		}
		got, err := ReadWAV(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got.Rate != p.Rate || !bytes.Equal(got.Data, p.Data) {
			t.Fatalf("round trip %+v -> %+v", p, got)
		}
	}
}

func TestDecodeWAV(t *testing.T) {
	pcm := []byte{1, 2, 3, 4}
	withList := append(hdr(1, 1, 16000, 16, 4)[:36], append([]byte("LIST\x03\x00\x00\x00abc\x00data\x04\x00\x00\x00"), pcm...)...)
	binary.LittleEndian.PutUint32(withList[4:], uint32(len(withList)-8))
	extensible := hdr(0xfffe, 1, 16000, 16, 4)
	ext := make([]byte, 24)
	binary.LittleEndian.PutUint16(ext[0:], 22)
	binary.LittleEndian.PutUint16(ext[8:], 1) // sub-format PCM
	extensible = append(append(append(extensible[:16:16], 40, 0, 0, 0), extensible[20:36]...), ext...)
	extensible = append(append(extensible, "data\x04\x00\x00\x00"...), pcm...)
	tests := []struct {
		name     string
		in       []byte
		wantRate int
		wantData []byte
		wantErr  string
	}{
		{"canonical", append(hdr(1, 1, 22050, 16, 4), pcm...), 22050, pcm, ""},
		{"espeak streamed size", append(hdr(1, 1, 22050, 16, 0x7ffff000), pcm...), 22050, pcm, ""},
		{"streamed odd tail", append(hdr(1, 1, 22050, 16, 0xffffffff), 1, 2, 3), 22050, []byte{1, 2}, ""},
		{"extra chunk skipped", withList, 16000, pcm, ""},
		{"extensible PCM", extensible, 16000, pcm, ""},
		{"empty", nil, 0, nil, "not a RIFF/WAVE file"},
		{"not riff", []byte("RIFX\x00\x00\x00\x00WAVE"), 0, nil, "not a RIFF/WAVE file"},
		{"stereo", append(hdr(1, 2, 22050, 16, 4), pcm...), 0, nil, "2 channels, want mono"},
		{"8-bit", append(hdr(1, 1, 22050, 8, 4), pcm...), 0, nil, "8 bits per sample, want 16"},
		{"float", append(hdr(3, 1, 22050, 32, 4), pcm...), 0, nil, "format tag 3, want 1"},
		{"zero rate", append(hdr(1, 1, 0, 16, 4), pcm...), 0, nil, "sample rate 0 Hz"},
		{"truncated data", append(hdr(1, 1, 22050, 16, 100), pcm...), 0, nil, "data chunk truncated: declares 100 bytes, has 4"},
		{"no data", hdr(1, 1, 22050, 16, 4)[:36], 0, nil, "no data chunk"},
		{"data before fmt", []byte("RIFF\x00\x00\x00\x00WAVEdata\x02\x00\x00\x00ab"), 0, nil, "data chunk before fmt chunk"},
		{"short fmt", []byte("RIFF\x00\x00\x00\x00WAVEfmt \x04\x00\x00\x00abcd"), 0, nil, "fmt chunk of 4 bytes"},
		{"no fmt", []byte("RIFF\x00\x00\x00\x00WAVE"), 0, nil, "no fmt chunk"},
		{"truncated chunk", []byte("RIFF\x00\x00\x00\x00WAVEJUNK\xff\x00\x00\x00ab"), 0, nil, `"JUNK" chunk truncated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeWAV(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DecodeWAV() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Rate != tt.wantRate || !bytes.Equal(got.Data, tt.wantData) {
				t.Fatalf("DecodeWAV() = %d Hz %x, want %d Hz %x", got.Rate, got.Data, tt.wantRate, tt.wantData)
			}
		})
	}
}

func TestEncodeWAVErrors(t *testing.T) {
	if _, err := EncodeWAV(PCM{Rate: 0}); err == nil {
		t.Fatal("EncodeWAV(rate 0) succeeded")
	}
	if _, err := EncodeWAV(PCM{Rate: 8000, Data: []byte{1}}); err == nil {
		t.Fatal("EncodeWAV(odd length) succeeded")
	}
}

func FuzzReadWAV(f *testing.F) {
	f.Add(append(hdr(1, 1, 22050, 16, 4), 1, 2, 3, 4))
	f.Add(append(hdr(1, 1, 22050, 16, 0x7ffff000), 1, 2, 3))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEJUNK\x01\x00\x00\x00a\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadWAV(bytes.NewReader(b))
		if err != nil {
			return
		}
		if p.Rate <= 0 || len(p.Data)%2 != 0 {
			t.Fatalf("accepted %s as rate %d, %d bytes", hex.EncodeToString(b), p.Rate, len(p.Data))
		}
		enc, err := EncodeWAV(p)
		if err != nil {
			t.Fatalf("re-encoding %s: %v", hex.EncodeToString(b), err)
		}
		q, err := DecodeWAV(enc)
		if err != nil || q.Rate != p.Rate || !bytes.Equal(q.Data, p.Data) {
			t.Fatalf("round trip of %s: %v", hex.EncodeToString(b), err)
		}
	})
}
