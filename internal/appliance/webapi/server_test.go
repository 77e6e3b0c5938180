package webapi

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards/sim"
)

func newTestServer(t *testing.T) (*sim.Board, *Server, *httptest.Server) {
	t.Helper()
	b, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Display: b.Display, Buttons: b.Buttons, Board: "sim"}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return b, s, ts
}

func do(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestScreenPNGShowsWhatWasDrawn(t *testing.T) {
	b, _, ts := newTestServer(t)
	red := image.NewUniform(color.RGBA{0xff, 0, 0, 0xff})
	if err := b.Display.Draw(image.Rect(10, 20, 30, 40), red, image.Point{}); err != nil {
		t.Fatal(err)
	}
	resp, body := do(t, "GET", ts.URL+"/api/screen.png")
	if resp.StatusCode != 200 {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "image/png" {
		t.Fatalf("Content-Type = %q, want image/png", ct)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds(); got != image.Rect(0, 0, 240, 240) {
		t.Fatalf("bounds = %v, want 240x240", got)
	}
	for _, tt := range []struct {
		p    image.Point
		want color.RGBA
	}{
		{image.Pt(10, 20), color.RGBA{0xff, 0, 0, 0xff}},
		{image.Pt(29, 39), color.RGBA{0xff, 0, 0, 0xff}},
		{image.Pt(30, 40), color.RGBA{0, 0, 0, 0xff}},
		{image.Pt(0, 0), color.RGBA{0, 0, 0, 0xff}},
	} {
		if got := color.RGBAModel.Convert(img.At(tt.p.X, tt.p.Y)); got != tt.want {
			t.Errorf("pixel %v = %v, want %v", tt.p, got, tt.want)
		}
	}

	// An unchanged screen answers a conditional request with 304.
	req, _ := http.NewRequest("GET", ts.URL+"/api/screen.png", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotModified {
		t.Fatalf("conditional GET = %d, want 304", r2.StatusCode)
	}
}

func TestPressIsDelivered(t *testing.T) {
	b, _, ts := newTestServer(t)
	ch, stop := b.Buttons.Subscribe(4)
	defer stop()
	tests := []struct {
		url  string
		want sim.Press
	}{
		{"/api/press/A", sim.Press{Name: "A"}},
		{"/api/press/B?hold=499", sim.Press{Name: "B", Hold: 499 * time.Millisecond}},
		{"/api/press/A?hold=500", sim.Press{Name: "A", Long: true, Hold: 500 * time.Millisecond}},
	}
	for _, tt := range tests {
		resp, body := do(t, "POST", ts.URL+tt.url)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s = %d %s", tt.url, resp.StatusCode, body)
		}
		var got struct {
			Button    string `json:"button"`
			Long      bool   `json:"long"`
			Delivered int    `json:"delivered"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if got.Button != tt.want.Name || got.Long != tt.want.Long || got.Delivered != 1 {
			t.Errorf("POST %s answered %+v, want button %s long %v delivered 1", tt.url, got, tt.want.Name, tt.want.Long)
		}
		select {
		case p := <-ch:
			if p != tt.want {
				t.Errorf("POST %s delivered %+v, want %+v", tt.url, p, tt.want)
			}
		default:
			t.Errorf("POST %s delivered nothing", tt.url)
		}
	}
}

func TestAPIErrors(t *testing.T) {
	_, _, ts := newTestServer(t)
	tests := []struct {
		method, path string
		code         int
		errContains  string
	}{
		{"POST", "/api/press/C", 404, `no button "C"`},
		{"GET", "/api/press/A", 405, "method not allowed"},
		{"POST", "/api/state", 405, "method not allowed"},
		{"DELETE", "/api/screen.png", 405, "method not allowed"},
		{"POST", "/api/press/A?hold=-1", 400, "hold"},
		{"POST", "/api/press/A?hold=soon", 400, "hold"},
		{"POST", "/api/press/A?hold=60001", 400, "hold"},
		{"GET", "/api/nothing", 404, "no such endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp, body := do(t, tt.method, ts.URL+tt.path)
			if resp.StatusCode != tt.code {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, tt.code, body)
			}
			var e struct{ Error string }
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("error body is not JSON: %v: %s", err, body)
			}
			if !strings.Contains(e.Error, tt.errContains) {
				t.Errorf("error = %q, want it to contain %q", e.Error, tt.errContains)
			}
		})
	}
}

func TestStateShape(t *testing.T) {
	_, s, ts := newTestServer(t)
	check := func(wantServices int) map[string]json.RawMessage {
		t.Helper()
		resp, body := do(t, "GET", ts.URL+"/api/state")
		if resp.StatusCode != 200 {
			t.Fatalf("status = %d", resp.StatusCode)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"board", "link", "snapshot", "prompt", "dock", "services"} {
			if _, ok := m[k]; !ok {
				t.Errorf("state has no %q: %s", k, body)
			}
		}
		for _, k := range []string{"link", "snapshot", "prompt", "dock"} {
			if string(m[k]) != "null" {
				t.Errorf("state.%s = %s, want null until something fills it", k, m[k])
			}
		}
		if string(m["board"]) != `"sim"` {
			t.Errorf("state.board = %s, want \"sim\"", m["board"])
		}
		var svcs []map[string]any
		if err := json.Unmarshal(m["services"], &svcs); err != nil || len(svcs) != wantServices {
			t.Errorf("state.services = %s (%v), want %d entries", m["services"], err, wantServices)
		}
		return m
	}
	check(0)
	s.State = func() State {
		return State{Board: "sim", Services: []Service{{Name: "ble", State: "RUNNING", Description: "x"}}}
	}
	m := check(1)
	var svcs []Service
	_ = json.Unmarshal(m["services"], &svcs)
	if svcs[0].Name != "ble" || svcs[0].State != "RUNNING" {
		t.Errorf("services[0] = %+v", svcs[0])
	}
}

func TestPage(t *testing.T) {
	_, _, ts := newTestServer(t)
	resp, body := do(t, "GET", ts.URL+"/")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "/api/press/") {
		t.Fatalf("GET / = %d, page without buttons:\n%s", resp.StatusCode, body)
	}
	if resp, _ := do(t, "GET", ts.URL+"/nothing"); resp.StatusCode != 404 {
		t.Errorf("GET /nothing = %d, want 404", resp.StatusCode)
	}
}

// TestAsleepScreen: a panel put to sleep shows black, and both the PNG's
// header and /api/state say "asleep"; Wake brings the frame back.
func TestAsleepScreen(t *testing.T) {
	b, _, ts := newTestServer(t)
	red := image.NewUniform(color.RGBA{0xff, 0, 0, 0xff})
	if err := b.Display.Draw(b.Display.Bounds(), red, image.Point{}); err != nil {
		t.Fatal(err)
	}
	screen := func() (string, color.Color, string) {
		t.Helper()
		resp, body := do(t, "GET", ts.URL+"/api/screen.png")
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, sb := do(t, "GET", ts.URL+"/api/state")
		var st State
		if err := json.Unmarshal(sb, &st); err != nil {
			t.Fatal(err)
		}
		return resp.Header.Get(ScreenStateHeader), img.At(5, 5), st.Screen
	}
	if h, c, st := screen(); h != ScreenOn || st != ScreenOn || c != (color.RGBA{0xff, 0, 0, 0xff}) {
		t.Fatalf("awake: header %q, state %q, pixel %v", h, st, c)
	}
	changed := b.Display.Changed()
	if err := b.Display.Sleep(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Error("Sleep did not tell pollers that the picture changed")
	}
	if h, c, st := screen(); h != ScreenAsleep || st != ScreenAsleep || c != (color.RGBA{0, 0, 0, 0xff}) {
		t.Fatalf("asleep: header %q, state %q, pixel %v; want asleep and black", h, st, c)
	}
	if err := b.Display.Wake(); err != nil {
		t.Fatal(err)
	}
	if h, c, st := screen(); h != ScreenOn || st != ScreenOn || c != (color.RGBA{0xff, 0, 0, 0xff}) {
		t.Fatalf("woken: header %q, state %q, pixel %v; want the frame back", h, st, c)
	}
}
