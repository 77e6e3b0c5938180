// Package sim is the simulated board: the hardware a Raspberry Pi HAT would
// give the appliance, made of memory and a local web page, so that a
// developer without a Pi runs the same appliance with `go run .`.
//
// The board has
//
//   - a framebuffer Display (240×240 by default) that implements periph's
//     display.Drawer, so the UI draws to it exactly as to a real panel;
//
//   - four named Buttons, as on the Pirate Audio and similar HATs: "A"
//     approves and "B" denies the prompt on the screen, "X" and "Y" page
//     through the info pages. A press held for LongPress or longer is a
//     long press;
//
//   - a web Server (loopback by default) that shows the display live, has
//     clickable buttons (the page's ?autopress=A presses A once a
//     prompt is on the screen, for the headless-browser test), and exposes a small JSON API:
//
//     GET  /                     the live page
//     GET  /api/screen.png       the current framebuffer as PNG
//     POST /api/press/{button}   a short press; ?hold=ms holds it that long
//     GET  /api/state            what the appliance knows, as JSON
//
// Later parts of the appliance (the BLE link, the approvals, the dock) fill
// in /api/state through Server.State; until then its fields are null.
package sim
