package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/webapi"
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
	fs := newFlagSet("screenshot", "Usage: claude-pi screenshot FILE.png|FILE.jpg [flags]\n\n"+
		"Renders one screen with sample data, without running the appliance, or\n"+
		"saves what a running sim appliance shows (--from "+appliance.SimHTTP+"). The file's\n"+
		"extension picks the format: .png, or .jpg/.jpeg.", w)
	fs.StringVar(&o.screen, "screen", "home", "the screen: "+strings.Join(names, ", "))
	fs.StringVar(&o.size, "size", "240x240", "the panel `size`, one of the boards': "+strings.Join(panelSizes(), ", "))
	fs.StringVar(&o.from, "from", "", "fetch /api/screen.png from this running sim appliance's `address`, e.g. "+appliance.SimHTTP+" (http:// optional)")
	return fs, o
}

// screenshotCommand is `claude-pi screenshot FILE.png`.
func screenshotCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := screenshotFlagSet(stderr)
	// The file may come before the flags: claude-pi screenshot a.png --screen info.
	files, help, err := parseInterleaved(fs, args)
	if help || err != nil {
		return err
	}
	if len(files) > 1 {
		return usagef("screenshot: unexpected argument %q", files[1])
	}
	if len(files) == 0 {
		return usagef("screenshot: the output FILE.png is required (see claude-pi screenshot --help)")
	}
	file := files[0]
	format, err := imageFormat(file)
	if err != nil {
		return err
	}
	var img image.Image
	if o.from != "" {
		var asleep bool
		img, asleep, err = fetchScreen(ctx, o.from)
		if err == nil && asleep {
			fmt.Fprintln(stderr, "screenshot: the sim's screen is asleep (it sleeps when idle, as the panel does): the picture is black. Press a button on its page, or POST /api/press/A, to wake it.")
		}
	} else {
		img, err = renderSample(o.screen, o.size)
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return fmt.Errorf("screenshot: encoding %s: %w", format, err)
	}
	data := buf.Bytes()
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", file, len(data))
	return nil
}

// imageFormat picks the encoding from the file's extension, so x.jpg is a
// JPEG and not a PNG by another name.
func imageFormat(file string) (string, error) {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".png":
		return "png", nil
	case ".jpg", ".jpeg":
		return "jpeg", nil
	}
	return "", usagef("screenshot: %q: want a .png, .jpg or .jpeg file name (the extension picks the format)", file)
}

// panelSizes are the boards' picture sizes, the ones the screens are laid
// out for.
func panelSizes() []string {
	var out []string
	for _, n := range boards.Names() {
		if p, err := boards.Lookup(n); err == nil && p.Width > 0 {
			out = append(out, fmt.Sprintf("%dx%d", p.Width, p.Height))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func renderSample(screen, size string) (image.Image, error) {
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
	return img, nil
}

// parseSize reads "240x240", one of panelSizes.
func parseSize(s string) (w, h int, err error) {
	s = strings.ToLower(s)
	if !slices.Contains(panelSizes(), s) {
		return 0, 0, usagef("screenshot: --size %q: want one of %s", s, strings.Join(panelSizes(), ", "))
	}
	_, err = fmt.Sscanf(s, "%dx%d", &w, &h)
	return w, h, err
}

// fetchScreen downloads the live framebuffer of a running sim appliance;
// asleep is the sim's word that the panel is off, so the frame is black.
func fetchScreen(ctx context.Context, base string) (_ image.Image, asleep bool, _ error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if !strings.Contains(base, "://") {
		base = "http://" + base // --from 127.0.0.1:8330, as the banner prints it
	}
	url := strings.TrimRight(base, "/") + "/api/screen.png"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, usagef("screenshot: --from %q: %v", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("screenshot: fetching %s: %w (is claude-pi running with the web page on?)", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, false, fmt.Errorf("screenshot: reading %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("screenshot: %s: %s", url, resp.Status)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, false, fmt.Errorf("screenshot: %s did not return a PNG: %w", url, err)
	}
	return img, resp.Header.Get(webapi.ScreenStateHeader) == webapi.ScreenAsleep, nil
}
