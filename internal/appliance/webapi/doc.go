// Package webapi is the sim board's web server and the /api/state schema,
// kept beside internal/appliance's apistate.go, which fills the schema from
// the services: the board (boards/sim) stays only a board.
//
// The routes, behind the checks of guard:
//
//	GET  /                     the live page (sim.PageHTML)
//	GET  /api/screen.png       the current framebuffer as PNG
//	POST /api/press/{button}   a short press; ?hold=ms holds it that long
//	GET  /api/state            what the appliance knows, as JSON
//
// Each part of State is filled by the service that owns it; while that
// service does not answer, its field is null.
package webapi
