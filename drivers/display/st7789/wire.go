package st7789

import (
	"bytes"
	"fmt"
	"image"
	"log/slog"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/physic"
)

// backlightPWM is far above visible flicker, and high enough that the
// backlight's inductor does not whine.
const backlightPWM = 20 * physic.KiloHertz

// normalize fills defaults and rejects what the controller cannot show.
func (o *Opts) normalize() error {
	if o.Width == 0 {
		o.Width = 240
	}
	if o.Height == 0 {
		o.Height = 240
	}
	if o.SpeedHz == 0 {
		o.SpeedHz = 40_000_000
	}
	if o.sleep == nil {
		o.sleep = time.Sleep
	}
	switch {
	case o.Width < 0 || o.Width > ramColumns:
		return fmt.Errorf("st7789: invalid width %d (1..%d)", o.Width, ramColumns)
	case o.Height < 0 || o.Height > ramRows:
		return fmt.Errorf("st7789: invalid height %d (1..%d)", o.Height, ramRows)
	case o.Rotation != Rotate0 && o.Rotation != Rotate90 && o.Rotation != Rotate180 && o.Rotation != Rotate270:
		return fmt.Errorf("st7789: invalid rotation %d (0, 90, 180 or 270)", o.Rotation)
	case o.ColumnOffset < 0 || o.ColumnOffset+o.Width > ramColumns:
		return fmt.Errorf("st7789: column offset %d + width %d exceed the %d memory columns", o.ColumnOffset, o.Width, ramColumns)
	case o.RowOffset < 0 || o.RowOffset+o.Height > ramRows:
		return fmt.Errorf("st7789: row offset %d + height %d exceed the %d memory rows", o.RowOffset, o.Height, ramRows)
	case o.SpeedHz < 0:
		return fmt.Errorf("st7789: invalid SPI speed %d Hz", o.SpeedHz)
	}
	return nil
}

// geometry returns MADCTL and the offsets to add to CASET and RASET.
//
// MX mirrors the 240 memory columns and MY the 320 rows whatever MV says;
// MV only makes CASET walk rows and RASET columns. So a mirrored axis moves
// the glass to the far end of its memory dimension, and MV swaps which
// offset goes with which address. Clockwise order follows the datasheet's
// MADCTL figure: 0 → MX|MV → MX|MY → MY|MV.
func geometry(o *Opts) (madctl byte, xOff, yOff int) {
	switch o.Rotation {
	case Rotate90:
		madctl = madctlMX | madctlMV
	case Rotate180:
		madctl = madctlMX | madctlMY
	case Rotate270:
		madctl = madctlMY | madctlMV
	}
	col, row := o.ColumnOffset, o.RowOffset
	if madctl&madctlMX != 0 {
		col = ramColumns - o.Width - o.ColumnOffset
	}
	if madctl&madctlMY != 0 {
		row = ramRows - o.Height - o.RowOffset
	}
	xOff, yOff = col, row
	if madctl&madctlMV != 0 {
		xOff, yOff = row, col
	}
	if o.BGR {
		madctl |= madctlBGR
	}
	return madctl, xOff, yOff
}

// init runs the power-on sequence of datasheet 7.4.5 and 9.1.
func (d *Dev) init() error {
	if d.bl != nil {
		if err := d.bl.Out(gpio.Low); err != nil {
			return fmt.Errorf("st7789: turning backlight %s off: %w", d.bl, err)
		}
	}
	if d.rst != nil {
		// RES low for at least 10 µs resets; the chip then needs up to
		// 120 ms before it takes commands.
		if err := d.rst.Out(gpio.Low); err != nil {
			return fmt.Errorf("st7789: pulling reset %s low: %w", d.rst, err)
		}
		d.wait(10 * time.Millisecond)
		if err := d.rst.Out(gpio.High); err != nil {
			return fmt.Errorf("st7789: releasing reset %s: %w", d.rst, err)
		}
		d.wait(120 * time.Millisecond)
	}
	// Also without a reset pin, start from register defaults; 150 ms
	// covers the 120 ms SWRESET needs when issued in sleep-out mode.
	if err := d.command(_SWRESET, nil); err != nil {
		return err
	}
	d.wait(150 * time.Millisecond)
	// The booster needs 5 ms before the next command, and 120 ms before a
	// SLPIN may follow; wait the longer so Halt right after New is safe.
	if err := d.command(_SLPOUT, nil); err != nil {
		return err
	}
	d.wait(120 * time.Millisecond)
	d.args[0] = colmod16bit // 65K colours, 16 bits per pixel (RGB565).
	if err := d.command(_COLMOD, d.args[:1]); err != nil {
		return err
	}
	d.args[0] = d.madctl // Scan order for the rotation, and RGB/BGR.
	if err := d.command(_MADCTL, d.args[:1]); err != nil {
		return err
	}
	if err := d.command(d.invertCmd(), nil); err != nil {
		return err
	}
	// Normal mode: the whole glass is active, not a partial area.
	if err := d.command(_NORON, nil); err != nil {
		return err
	}
	return d.command(_DISPON, nil)
}

// wake reverses Sleep. Caller holds d.mu.
func (d *Dev) wake() error {
	if err := d.command(_SLPOUT, nil); err != nil {
		return err
	}
	d.wait(120 * time.Millisecond)
	if err := d.command(_DISPON, nil); err != nil {
		return err
	}
	d.asleep = false
	if d.lit {
		return d.applyBacklight()
	}
	return nil
}

// applyBacklight drives bl to d.brightness. Caller holds d.mu.
func (d *Dev) applyBacklight() error {
	if d.bl == nil {
		return nil
	}
	duty := d.brightness
	if duty > 0 && duty < gpio.DutyMax && !d.noPWM {
		err := d.bl.PWM(duty, backlightPWM)
		if err == nil {
			return nil
		}
		d.noPWM = true
		slog.Warn("st7789: backlight pin cannot PWM; dimming falls back to on/off", "pin", d.bl.String(), "err", err)
	}
	l := gpio.Level(duty > 0)
	if err := d.bl.Out(l); err != nil {
		return fmt.Errorf("st7789: setting backlight %s to %s: %w", d.bl, l, err)
	}
	return nil
}

func (d *Dev) invertCmd() byte {
	if d.invert {
		return _INVON
	}
	return _INVOFF
}

func (d *Dev) wait(t time.Duration) {
	d.sleep(t)
}

// command sends one command byte with D/C low, then its parameters with
// D/C high.
func (d *Dev) command(c byte, args []byte) error {
	if err := d.dc.Out(gpio.Low); err != nil {
		return fmt.Errorf("st7789: setting dc %s low for %s: %w", d.dc, cmdName(c), err)
	}
	d.cmd[0] = c
	if err := d.c.Tx(d.cmd[:], nil); err != nil {
		return fmt.Errorf("st7789: sending %s: %w", cmdName(c), err)
	}
	if len(args) == 0 {
		return nil
	}
	if err := d.dc.Out(gpio.High); err != nil {
		return fmt.Errorf("st7789: setting dc %s high for %s parameters: %w", d.dc, cmdName(c), err)
	}
	if err := d.c.Tx(args, nil); err != nil {
		return fmt.Errorf("st7789: sending %s parameters: %w", cmdName(c), err)
	}
	return nil
}

// sendWindow writes the shadow's pixels inside b (logical coordinates).
func (d *Dev) sendWindow(b image.Rectangle) error {
	x0, x1 := b.Min.X+d.xOff, b.Max.X-1+d.xOff
	y0, y1 := b.Min.Y+d.yOff, b.Max.Y-1+d.yOff
	d.args = [4]byte{byte(x0 >> 8), byte(x0), byte(x1 >> 8), byte(x1)}
	if err := d.command(_CASET, d.args[:]); err != nil {
		return err
	}
	d.args = [4]byte{byte(y0 >> 8), byte(y0), byte(y1 >> 8), byte(y1)}
	if err := d.command(_RASET, d.args[:]); err != nil {
		return err
	}
	if err := d.command(_RAMWR, nil); err != nil {
		return err
	}
	if err := d.dc.Out(gpio.High); err != nil {
		return fmt.Errorf("st7789: setting dc %s high for RAMWR data: %w", d.dc, err)
	}
	w := d.rect.Dx()
	d.tx = d.tx[:0]
	if b.Dx() == w {
		// Full-width rows are contiguous in the shadow.
		if err := d.write(d.shadow[b.Min.Y*w*2 : b.Max.Y*w*2]); err != nil {
			return err
		}
	} else {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if err := d.write(d.shadow[(y*w+b.Min.X)*2 : (y*w+b.Max.X)*2]); err != nil {
				return err
			}
		}
	}
	return d.flush()
}

// write queues RAMWR data, sending maxTx-sized transfers as they fill.
// Whole chunks go straight from p without a copy.
func (d *Dev) write(p []byte) error {
	for len(p) > 0 {
		if len(d.tx) == 0 && len(p) >= d.maxTx {
			if err := d.c.Tx(p[:d.maxTx], nil); err != nil {
				return fmt.Errorf("st7789: sending RAMWR data: %w", err)
			}
			p = p[d.maxTx:]
			continue
		}
		n := min(d.maxTx-len(d.tx), len(p))
		d.tx = append(d.tx, p[:n]...)
		p = p[n:]
		if len(d.tx) == d.maxTx {
			if err := d.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *Dev) flush() error {
	if len(d.tx) == 0 {
		return nil
	}
	err := d.c.Tx(d.tx, nil)
	d.tx = d.tx[:0]
	if err != nil {
		return fmt.Errorf("st7789: sending RAMWR data: %w", err)
	}
	return nil
}

// merge converts src into the shadow over r and returns the bounding box
// of the pixels that changed.
func (d *Dev) merge(r image.Rectangle, src image.Image, sp image.Point) image.Rectangle {
	var changed image.Rectangle
	if r.Empty() {
		return changed
	}
	w := d.rect.Dx()
	n := r.Dx() * 2
	buf := d.row[:n]
	for y := r.Min.Y; y < r.Max.Y; y++ {
		convertRow(buf, src, sp.X, sp.Y+y-r.Min.Y)
		dst := d.shadow[(y*w+r.Min.X)*2 : (y*w+r.Max.X)*2]
		if bytes.Equal(dst, buf) {
			continue
		}
		first, last := 0, n-1
		for dst[first] == buf[first] {
			first++
		}
		for dst[last] == buf[last] {
			last--
		}
		copy(dst[first:last+1], buf[first:last+1])
		row := image.Rect(r.Min.X+first/2, y, r.Min.X+last/2+1, y+1)
		changed = changed.Union(row)
	}
	return changed
}

// convertRow fills buf with len(buf)/2 pixels of src starting at (x, y).
func convertRow(buf []byte, src image.Image, x, y int) {
	switch img := src.(type) {
	case *image.RGBA:
		pix := img.Pix[img.PixOffset(x, y):]
		for i := 0; i < len(buf); i += 2 {
			p := pix[i*2 : i*2+3 : i*2+3]
			c := uint16(p[0])>>3<<11 | uint16(p[1])>>2<<5 | uint16(p[2])>>3
			buf[i], buf[i+1] = byte(c>>8), byte(c)
		}
	case *image.Uniform:
		r, g, b, _ := img.C.RGBA()
		c := to565(r, g, b)
		for i := 0; i < len(buf); i += 2 {
			buf[i], buf[i+1] = byte(c>>8), byte(c)
		}
	default:
		for i := 0; i < len(buf); i += 2 {
			r, g, b, _ := src.At(x+i/2, y).RGBA()
			c := to565(r, g, b)
			buf[i], buf[i+1] = byte(c>>8), byte(c)
		}
	}
}

// clip narrows r to what lies inside both dst and the source image, moving
// sp along, with the same rules as image/draw.
func clip(dst image.Rectangle, r *image.Rectangle, src image.Rectangle, sp *image.Point) {
	orig := r.Min
	*r = r.Intersect(dst)
	*r = r.Intersect(src.Add(orig.Sub(*sp)))
	sp.X += r.Min.X - orig.X
	sp.Y += r.Min.Y - orig.Y
}

// cmdName names a command in errors.
func cmdName(c byte) string {
	switch c {
	case _SWRESET:
		return "SWRESET"
	case _SLPIN:
		return "SLPIN"
	case _SLPOUT:
		return "SLPOUT"
	case _NORON:
		return "NORON"
	case _INVOFF:
		return "INVOFF"
	case _INVON:
		return "INVON"
	case _DISPOFF:
		return "DISPOFF"
	case _DISPON:
		return "DISPON"
	case _CASET:
		return "CASET"
	case _RASET:
		return "RASET"
	case _RAMWR:
		return "RAMWR"
	case _MADCTL:
		return "MADCTL"
	case _COLMOD:
		return "COLMOD"
	}
	return fmt.Sprintf("command %#02x", c)
}
