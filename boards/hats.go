package boards

import "github.com/claude-pi/claude-pi/drivers/display/st7789"

// Sources for the pin numbers below (read 2026; cited next to each pin):
//
//	[PA-README]  github.com/pimoroni/pirate-audio README.md ("Hardware",
//	             "Installation": dtoverlay=hifiberry-dac, gpio=25=op,dh)
//	[PA-BUTTONS] github.com/pimoroni/pirate-audio examples/buttons.py
//	             (A, B, X, Y = BCM 5, 6, 16, 24; boards before 2020-01-23
//	             had Y on 20)
//	[PA-LCD]     github.com/pimoroni/pirate-audio examples/rainbow.py and
//	             backlight-pwm.py (ST7789 port=0, cs=1, dc=9, backlight=13,
//	             rotation=90)
//	[DHM]        github.com/pimoroni/displayhatmini-python
//	             library/displayhatmini/__init__.py (BUTTON_A..Y = 5, 6,
//	             16, 24; LED_R/G/B = 17, 27, 22 driven as 1-duty, i.e.
//	             active low; SPI_PORT 0, SPI_CS 1, SPI_DC 9, BACKLIGHT 13;
//	             320×240, rotation=180)
//	[ST-PY]      github.com/pimoroni/st7789-python st7789/__init__.py
//	             (MADCTL 0x70 = MX|MV|ML, then numpy.rot90(image,
//	             rotation/90) in software; invert=True by default)
//	[WS-WIKI]    waveshare.com/wiki/1.3inch_LCD_HAT, "Interface" table
//	             (KEY1 P21, KEY2 P20, KEY3 P16, joystick up P6, down P19,
//	             left P5, right P26, press P13; SCLK P11, MOSI P10, CS
//	             P8/CE0, DC P25, RST P27, BL P24). The 1.44" HAT shares
//	             the same header pinout.
//	[WS-PY]      Waveshare's 1.3inch LCD HAT Python demo, config.py
//	             (spidev.SpiDev(0,0), rst=27, dc=25, bl=24, 40 MHz)
//
// Rotations: our st7789 driver takes the glass's native orientation
// (240 columns × 320 rows of frame memory) and a clockwise Rotation done
// with MADCTL. Pimoroni's library always writes MADCTL 0x70 (our Rotate90)
// and then rotates the picture counter-clockwise by its rotation argument
// in software, so its rotation=90 is our Rotate0 and its rotation=180 is
// our Rotate270. These were derived from the code, not checked on glass:
// if a panel shows upside down, change Rotation by 180.

// profiles is the table Lookup serves. Keep it sorted by Name.
var profiles = []Profile{
	{
		Name:   "display-hat-mini",
		Title:  "Pimoroni Display HAT Mini (ST7789 320×240, 4 buttons, RGB LED)",
		Width:  320,
		Height: 240,
		Display: &Display{
			Bus: 0, CS: 1, // [DHM] SPI_PORT = 0, SPI_CS = 1
			// GPIO9 is SPI0 MISO; the panel is write-only, so Pimoroni
			// reuse it as D/C. Setting it as an output takes it from spidev.
			DC:        "GPIO9",  // [DHM] SPI_DC = 9
			Backlight: "GPIO13", // [DHM] BACKLIGHT = 13 (PWM1 capable)
			Opts: st7789.Opts{
				Width: 240, Height: 320, // the glass is portrait natively
				Rotation: st7789.Rotate270, // [DHM] rotation=180 + [ST-PY] MADCTL 0x70
				Invert:   true,             // [ST-PY] invert=True
				SpeedHz:  60_000_000,       // [DHM] spi_speed_hz=60 MHz
			},
		},
		Buttons: []Button{
			{Name: "A", Pin: "GPIO5", Role: RoleApprove}, // [DHM] BUTTON_A = 5
			{Name: "B", Pin: "GPIO6", Role: RoleDeny},    // [DHM] BUTTON_B = 6
			{Name: "X", Pin: "GPIO16", Role: RoleNext},   // [DHM] BUTTON_X = 16
			{Name: "Y", Pin: "GPIO24", Role: RoleBack},   // [DHM] BUTTON_Y = 24
		},
		LED: &LED{
			R: "GPIO17", // [DHM] LED_R = 17
			G: "GPIO27", // [DHM] LED_G = 27
			B: "GPIO22", // [DHM] LED_B = 22
			// [DHM] set_led writes duty (1.0 - r): the pins sink the LED.
			ActiveLow: true,
		},
		ConfigTxt: []string{"dtparam=spi=on"},
	},
	{
		Name:   "pirate-audio",
		Title:  "Pimoroni Pirate Audio (ST7789 240×240, 4 buttons, I²S DAC)",
		Width:  240,
		Height: 240,
		Display: &Display{
			Bus: 0, CS: 1, // [PA-LCD] port=0, cs=1
			DC:        "GPIO9",  // [PA-LCD] dc=9 (SPI0 MISO reused, as on the Display HAT Mini)
			Backlight: "GPIO13", // [PA-LCD] backlight=13; backlight-pwm.py drives it with PWM
			Opts: st7789.Opts{
				Width: 240, Height: 240,
				Rotation: st7789.Rotate0, // [PA-LCD] rotation=90 + [ST-PY] MADCTL 0x70
				Invert:   true,           // [ST-PY] invert=True
				// [PA-LCD] runs 80 MHz; stay at the datasheet's 62.5 MHz.
				SpeedHz: 62_500_000,
			},
		},
		Buttons: []Button{
			{Name: "A", Pin: "GPIO5", Role: RoleApprove}, // [PA-BUTTONS] A = 5
			{Name: "B", Pin: "GPIO6", Role: RoleDeny},    // [PA-BUTTONS] B = 6
			{Name: "X", Pin: "GPIO16", Role: RoleNext},   // [PA-BUTTONS] X = 16
			// [PA-BUTTONS] Y = 24 (boards before 2020-01-23: 20; edit the
			// profile's Pin for those).
			{Name: "Y", Pin: "GPIO24", Role: RoleBack},
		},
		Audio: &Audio{
			// The hifiberry-dac overlay registers card id
			// "sndrpihifiberry" (PCM5102A, stereo only), so plughw converts
			// our mono chimes.
			Device: "plughw:CARD=sndrpihifiberry,DEV=0",
			Card:   "sndrpihifiberry",
			// [PA-README] gpio=25=op,dh: GPIO25 high un-mutes the DAC (and
			// enables the amplifier on the Speaker model).
			Amp: "GPIO25",
		},
		ConfigTxt: []string{
			"dtparam=spi=on",
			"dtoverlay=hifiberry-dac", // [PA-README]
			"gpio=25=op,dh",           // [PA-README]
		},
	},
	{
		Name:      "sim",
		Title:     "Simulated board (web page framebuffer and buttons)",
		Simulated: true,
		Width:     240,
		Height:    240,
		// boards/sim only has A and B; X and Y are here so the UI's
		// role table is complete and the sim page can grow them.
		Buttons: []Button{
			{Name: "A", Role: RoleApprove},
			{Name: "B", Role: RoleDeny},
			{Name: "X", Role: RoleNext},
			{Name: "Y", Role: RoleBack},
		},
	},
	{
		Name:   "waveshare-lcd13",
		Title:  "Waveshare 1.3inch LCD HAT (ST7789 240×240, joystick, 3 keys)",
		Width:  240,
		Height: 240,
		Display: &Display{
			Bus: 0, CS: 0, // [WS-WIKI] CS P8/CE0; [WS-PY] SpiDev(0,0)
			DC:        "GPIO25", // [WS-WIKI] DC P25; [WS-PY] dc=25
			RST:       "GPIO27", // [WS-WIKI] RST P27; [WS-PY] rst=27
			Backlight: "GPIO24", // [WS-WIKI] BL P24; [WS-PY] bl=24
			Opts: st7789.Opts{
				Width: 240, Height: 240,
				Invert:  true,
				SpeedHz: 40_000_000, // [WS-PY] spi_freq=40000000
			},
		},
		Buttons: []Button{
			// KEY1 and KEY3 are the outer keys: approve and deny are as far
			// apart as the board allows, so one slip cannot do both.
			{Name: "KEY1", Pin: "GPIO21", Role: RoleApprove}, // [WS-WIKI] KEY1 P21
			{Name: "KEY2", Pin: "GPIO20", Role: RoleNone},    // [WS-WIKI] KEY2 P20
			{Name: "KEY3", Pin: "GPIO16", Role: RoleDeny},    // [WS-WIKI] KEY3 P16
			{Name: "RIGHT", Pin: "GPIO26", Role: RoleNext},   // [WS-WIKI] joystick right P26
			{Name: "LEFT", Pin: "GPIO5", Role: RoleBack},     // [WS-WIKI] joystick left P5
			{Name: "UP", Pin: "GPIO6", Role: RoleNone},       // [WS-WIKI] joystick up P6
			{Name: "DOWN", Pin: "GPIO19", Role: RoleNone},    // [WS-WIKI] joystick down P19
			{Name: "PRESS", Pin: "GPIO13", Role: RoleNone},   // [WS-WIKI] joystick press P13
		},
		ConfigTxt: []string{"dtparam=spi=on"},
	},
}
