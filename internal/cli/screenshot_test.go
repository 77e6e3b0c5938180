package cli

import (
	"bytes"
	"context"
	"flag"
	"image"
	_ "image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/webapi"
)

var updateUIShots = flag.Bool("update-ui-screenshots", false, "write every screen to actors/ui/screens/testdata/screenshots/ui-*.png")

func TestScreenshotCommand(t *testing.T) {
	dir := t.TempDir()
	for _, screen := range ui.SampleScreens {
		for _, size := range []string{"240x240", "320x240"} {
			file := filepath.Join(dir, string(screen)+"-"+size+".png")
			if *updateUIShots {
				file = filepath.Join("../../actors/ui/screens/testdata/screenshots", "ui-"+string(screen)+"-"+size+".png")
			}
			var out bytes.Buffer
			if err := run(context.Background(), []string{"screenshot", file, "--screen", string(screen), "--size", size}, nil, &out, &out); err != nil {
				t.Fatalf("%s %s: %v\n%s", screen, size, err, out.String())
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if got := cfg.Width*1000 + cfg.Height; (size == "240x240" && got != 240240) || (size == "320x240" && got != 320240) {
				t.Fatalf("%s is %dx%d, want %s", file, cfg.Width, cfg.Height, size)
			}
		}
	}
}

func TestScreenshotCommand_errors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"screenshot"}, "FILE.png is required"},
		{[]string{"screenshot", filepath.Join(dir, "a.png"), "--screen", "menu"}, `--screen "menu"`},
		{[]string{"screenshot", filepath.Join(dir, "a.png"), "--size", "big"}, `--size "big"`},
		{[]string{"screenshot", filepath.Join(dir, "a.png"), "--size", "20x20"}, `--size "20x20": want one of 240x240, 320x240`},
		{[]string{"screenshot", filepath.Join(dir, "a.gif")}, "want a .png, .jpg or .jpeg file name"},
		{[]string{"screenshot", filepath.Join(dir, "a")}, "want a .png, .jpg or .jpeg file name"},
		{[]string{"screenshot", filepath.Join(dir, "a.png"), "extra"}, `unexpected argument "extra"`},
		{[]string{"screenshot", filepath.Join(dir, "a.png"), "--from", "http://127.0.0.1:1"}, "is claude-pi running"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tt.args, nil, &out, &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want it to contain %q", tt.args, err, tt.want)
		}
	}
}

func TestScreenshotCommand_from(t *testing.T) {
	img, err := ui.Sample(ui.ScreenPasskey, 240, 240)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/screen.png" {
			http.NotFound(w, r)
			return
		}
		w.Write(buf.Bytes())
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "live.png")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"screenshot", "--from", srv.URL + "/", file}, nil, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatal("the saved file differs from what the appliance served")
	}
}

// TestScreenshotJPEG: x.jpg is a JPEG, not a PNG by another name.
func TestScreenshotJPEG(t *testing.T) {
	for _, name := range []string{"x.jpg", "x.JPEG"} {
		file := filepath.Join(t.TempDir(), name)
		var out bytes.Buffer
		if err := run(context.Background(), []string{"screenshot", file, "--screen", "info"}, nil, &out, &out); err != nil {
			t.Fatal(err, out.String())
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(f)
		f.Close()
		if err != nil || format != "jpeg" || cfg.Width != 240 {
			t.Errorf("%s: format %q %dx%d (%v), want a 240x240 jpeg", name, format, cfg.Width, cfg.Height, err)
		}
	}
}

// TestScreenshotFromAddress: --from takes the address as the banner prints
// it (no http://), and says so when the sim's screen is asleep.
func TestScreenshotFromAddress(t *testing.T) {
	img, err := ui.Sample(ui.ScreenHome, 240, 240)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	asleep := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asleep {
			w.Header().Set(webapi.ScreenStateHeader, webapi.ScreenAsleep)
		}
		w.Write(buf.Bytes())
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	file := filepath.Join(t.TempDir(), "live.png")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"screenshot", file, "--from", addr}, nil, &out, &errOut); err != nil {
		t.Fatalf("--from %s: %v", addr, err)
	}
	if strings.Contains(errOut.String(), "asleep") {
		t.Errorf("an awake screen got the asleep hint: %s", errOut.String())
	}
	asleep = true
	errOut.Reset()
	if err := run(context.Background(), []string{"screenshot", file, "--from", addr}, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "asleep") || !strings.Contains(errOut.String(), "wake") {
		t.Errorf("an asleep screen got no hint: %q", errOut.String())
	}
}

func TestScreenshotHelp(t *testing.T) {
	var out bytes.Buffer
	run(context.Background(), []string{"help", "screenshot"}, nil, &out, &out)
	for _, want := range []string{appliance.SimHTTP, "240x240, 320x240", ".jpg"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("screenshot help does not say %q:\n%s", want, out.String())
		}
	}
}
