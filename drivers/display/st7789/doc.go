// Package st7789 drives a Sitronix ST7789 TFT controller over 4-wire SPI,
// the chip behind the 1.3" and 1.54" 240×240 IPS HATs for the Raspberry Pi.
//
// The driver keeps a copy of what the panel shows and sends only the
// rectangle that changed, which is what makes a status screen cheap: a
// 240×240 RGB565 frame is 115 200 bytes, while a changed counter is a few
// hundred.
//
// # Wiring
//
// SCL to SPI_CLK, SDA to SPI_MOSI, CS to SPI_CE0 (or CE1), D/C ("DC", "RS")
// to any GPIO, RES to any GPIO or tie it high, BLK/BL to a GPIO, ideally
// one with hardware PWM (GPIO18 or GPIO13 on a Pi) for dimming.
//
// The Pi's spidev driver refuses transfers larger than its bufsiz module
// parameter (4096 bytes by default), so writes are split accordingly.
//
// # Datasheet
//
// ST7789V, Sitronix, version 1.6 (2017): command table in section 9.1,
// MADCTL in 9.1.28, reset timing in 7.4.5.
// https://www.newhavendisplay.com/appnotes/datasheets/LCDs/ST7789V.pdf
package st7789
