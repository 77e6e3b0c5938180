package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
)

// screenshotFlags are `claude-pi screenshot`'s flags.
type screenshotFlags struct {
	screen, size, from string
}

func screenshotFlagSet(w io.Writer) (*flag.FlagSet, *screenshotFlags) {
	o := &screenshotFlags{}
	names := make([]string, len(ui.SampleScreens))
	for i, s := range ui.SampleScreens {
		names[i] = string(s)
	}
	fs := newFlagSet("screenshot", "Usage: claude-pi screenshot FILE.png [flags]\n\n"+
		"Renders one screen with sample data to a PNG, without running the appliance,\n"+
		"or saves what a running sim appliance shows (--from).", w)
	fs.StringVar(&o.screen, "screen", "home", "the screen: "+strings.Join(names, ", "))
	fs.StringVar(&o.size, "size", "240x240", "the panel size, WIDTHxHEIGHT (240x240 or 320x240)")
	fs.StringVar(&o.from, "from", "", "fetch /api/screen.png from this running sim appliance, e.g. http://127.0.0.1:8080")
	return fs, o
}

// screenshotCommand is `claude-pi screenshot FILE.png`.
func screenshotCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := screenshotFlagSet(stderr)
	// The file may come before the flags: claude-pi screenshot a.png --screen info.
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return usagef("screenshot: unexpected argument %q", fs.Arg(0))
	}
	if file == "" {
		return usagef("screenshot: the output FILE.png is required (see claude-pi screenshot --help)")
	}
	var data []byte
	var err error
	if o.from != "" {
		data, err = fetchScreen(ctx, o.from)
	} else {
		data, err = renderSample(o.screen, o.size)
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", file, len(data))
	return nil
}

func renderSample(screen, size string) ([]byte, error) {
	w, h, err := parseSize(size)
	if err != nil {
		return nil, err
	}
	known := false
	for _, s := range ui.SampleScreens {
		known = known || string(s) == screen
	}
	if !known {
		return nil, usagef("screenshot: --screen %q: want one of %v", screen, ui.SampleScreens)
	}
	img, err := ui.Sample(ui.Screen(screen), w, h)
	if err != nil {
		return nil, usagef("screenshot: %v", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("screenshot: encoding png: %w", err)
	}
	return buf.Bytes(), nil
}

// parseSize reads "240x240".
func parseSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(a)
		if err == nil {
			h, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || w <= 0 || h <= 0 {
		return 0, 0, usagef("screenshot: --size %q: want WIDTHxHEIGHT, e.g. 240x240", s)
	}
	return w, h, nil
}

// fetchScreen downloads the live framebuffer of a running sim appliance.
func fetchScreen(ctx context.Context, base string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url := strings.TrimRight(base, "/") + "/api/screen.png"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, usagef("screenshot: --from %q: %v", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("screenshot: fetching %s: %w (is claude-pi running with the web page on?)", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("screenshot: reading %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("screenshot: %s: %s", url, resp.Status)
	}
	if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("screenshot: %s did not return a PNG: %w", url, err)
	}
	return data, nil
}
