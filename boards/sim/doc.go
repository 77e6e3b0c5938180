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
//   - the live web page (PageHTML) that shows the display and has
//     clickable buttons (its ?autopress=A presses A once a prompt is on
//     the screen, for the headless-browser test).
//
// The board knows nothing of what the appliance knows: the web server
// that serves the page, the screen and the presses, and the /api/state
// schema, are internal/appliance/webapi, beside the code that fills them.
package sim
