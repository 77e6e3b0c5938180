package st7789

// Commands from the ST7789V datasheet, section 9.1 "System Function Command
// Table 1". Only the ones the driver sends are listed.
const (
	_SWRESET = 0x01 // Software reset: registers back to their defaults.
	_SLPIN   = 0x10 // Enter sleep: DC/DC, oscillator and panel scanning stop.
	_SLPOUT  = 0x11 // Leave sleep.
	_NORON   = 0x13 // Normal display mode (partial mode off).
	_INVOFF  = 0x20 // Display inversion off.
	_INVON   = 0x21 // Display inversion on.
	_DISPOFF = 0x28 // Display off: panel shows blank, RAM is kept.
	_DISPON  = 0x29 // Display on.
	_CASET   = 0x2A // Column address set: XS[15:0], XE[15:0].
	_RASET   = 0x2B // Row address set: YS[15:0], YE[15:0].
	_RAMWR   = 0x2C // Memory write: pixel data follows until the next command.
	_MADCTL  = 0x36 // Memory data access control: scan order and RGB/BGR.
	_COLMOD  = 0x3A // Interface pixel format.
)

// MADCTL bits (datasheet 9.1.28).
const (
	madctlMY  = 0x80 // Row address order: bottom to top.
	madctlMX  = 0x40 // Column address order: right to left.
	madctlMV  = 0x20 // Row/column exchange: CASET then addresses rows.
	madctlBGR = 0x08 // Panel subpixels are blue-green-red.
)

// colmod16bit selects 65K colours (bits 6:4 = 101) and 16 bits per pixel
// over the serial interface (bits 2:0 = 101): RGB565, big endian.
const colmod16bit = 0x55

// The controller's frame memory is 240 columns by 320 rows whatever glass
// is fitted; smaller panels see a window of it.
const (
	ramColumns = 240
	ramRows    = 320
)
