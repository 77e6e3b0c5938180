package st7789_test

import (
	"image"
	"image/color"
	"image/draw"
	"log"

	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/spi/spireg"
	"periph.io/x/host/v3"

	"github.com/claude-pi/claude-pi/drivers/display/st7789"
)

func Example() {
	if _, err := host.Init(); err != nil {
		log.Fatal(err)
	}
	// The application owns the port; the driver only connects to it.
	p, err := spireg.Open("SPI0.0")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	// Pin names belong to the board profile; these are a Pimoroni-style HAT.
	opts := st7789.DefaultOpts
	opts.Rotation = st7789.Rotate90
	opts.SpeedHz = 62_500_000 // Short traces on a HAT.
	dev, err := st7789.New(p, gpioreg.ByName("GPIO9"), nil, gpioreg.ByName("GPIO13"), &opts)
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Halt()

	img := image.NewRGBA(dev.Bounds())
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{B: 0x80, A: 0xFF}), image.Point{}, draw.Src)
	if err := dev.Draw(dev.Bounds(), img, image.Point{}); err != nil {
		log.Fatal(err)
	}

	// Only the changed square goes over the bus.
	draw.Draw(img, image.Rect(100, 100, 140, 140), image.White, image.Point{}, draw.Src)
	if err := dev.Draw(dev.Bounds(), img, image.Point{}); err != nil {
		log.Fatal(err)
	}
}
