package webapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/claude-pi/claude-pi/boards/sim"
)

// State is what the appliance knows, as served by GET /api/state. The
// fields after Board are filled in by the parts of the appliance that own
// them; until a part exists its field stays nil and encodes as null,
// because an honest "unknown" beats a made-up default.
type State struct {
	Board    string    `json:"board"`
	Link     *Link     `json:"link"`     // the BLE link to the Claude desktop app
	Snapshot *Snapshot `json:"snapshot"` // the latest session snapshot
	Prompt   *Prompt   `json:"prompt"`   // the prompt the buttons act on
	Prompts  []Prompt  `json:"prompts"`  // every pending prompt, oldest first
	Dock     *Dock     `json:"dock"`     // the CoreS3 dock
	LAN      *LAN      `json:"lan"`      // the CLI-hook bridge: paired clients, pairing code, sessions
	Shows    string    `json:"shows"`    // the ui's screen: "home", "info", "approval", "forget", ...
	Forget   *Forget   `json:"forget"`   // "Forget Bluetooth pairing?" while it is on, else null
	Services []Service `json:"services"`
	// Screen is ScreenOn or ScreenAsleep: after the UI's screen timeout
	// the panel is off and /api/screen.png is black; a press wakes it.
	Screen string `json:"screen"`
}

// ScreenStateHeader on /api/screen.png carries State.Screen, so a client
// that saves a black frame can tell an asleep panel from a broken one.
const ScreenStateHeader = "X-Claude-Pi-Screen"

// The values of State.Screen and ScreenStateHeader.
const (
	ScreenOn     = "on"
	ScreenAsleep = "asleep"
)

func (s *Server) screenState() string {
	if s.Display != nil && s.Display.Asleep() {
		return ScreenAsleep
	}
	return ScreenOn
}

// Service is one supervised service as /api/state shows it.
type Service struct {
	Name        string    `json:"name"`
	State       string    `json:"state"` // supervisord's name, e.g. "RUNNING"
	Description string    `json:"description"`
	Since       time.Time `json:"since,omitzero"` // last start
}

// Server is the sim board's web server: the live page and its API.
type Server struct {
	Display *sim.Display
	Buttons *sim.Buttons
	// State returns what the appliance knows. Nil serves a State with
	// only Board set.
	State  func() State
	Board  string // the board name reported when State is nil
	Logger *slog.Logger
}

// Handler returns the server's routes, behind the checks that keep other
// web pages away from them (guard). Serve it with net/http: the checks
// need the connection's local address.
func (s *Server) Handler() http.Handler { return guard(s.routes()) }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /api/screen.png", s.screen)
	mux.HandleFunc("POST /api/press/{button}", s.press)
	mux.HandleFunc("GET /api/state", s.state)
	// The method-less twins answer a wrong method with a JSON 405 (the
	// mux's own 405 is plain text, which API clients cannot parse).
	for path, allow := range map[string]string{
		"/api/screen.png":     "GET, HEAD",
		"/api/press/{button}": "POST",
		"/api/state":          "GET, HEAD",
	} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			jsonError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed (use %s)", r.Method, r.URL.Path, allow))
		})
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		jsonError(w, http.StatusNotFound, fmt.Sprintf("%s: no such endpoint", r.URL.Path))
	})
	return mux
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(sim.PageHTML))
}

func (s *Server) screen(w http.ResponseWriter, r *http.Request) {
	b, v, err := s.Display.PNG()
	if err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	etag := `"` + strconv.FormatUint(v, 10) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set(ScreenStateHeader, s.screenState())
	w.Header().Set("Cache-Control", "no-cache")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func (s *Server) press(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("button")
	if !s.Buttons.Has(name) {
		jsonError(w, http.StatusNotFound, fmt.Sprintf("no button %q (have %v)", name, s.Buttons.Names()))
		return
	}
	var hold time.Duration
	if q := r.URL.Query().Get("hold"); q != "" {
		ms, err := strconv.Atoi(q)
		if err != nil || ms < 0 || time.Duration(ms)*time.Millisecond > sim.MaxHold {
			jsonError(w, http.StatusBadRequest, fmt.Sprintf("hold=%q: want milliseconds 0..%d", q, sim.MaxHold.Milliseconds()))
			return
		}
		hold = time.Duration(ms) * time.Millisecond
	}
	p, n, err := s.Buttons.Press(name, hold)
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.Logger != nil {
		s.Logger.Info("button pressed", "button", p.Name, "long", p.Long, "hold", p.Hold, "subscribers", n)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"button": p.Name, "long": p.Long, "hold_ms": p.Hold.Milliseconds(), "delivered": n,
	})
}

func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	st := State{Board: s.Board}
	if s.State != nil {
		st = s.State()
	}
	if st.Services == nil {
		st.Services = []Service{} // [] not null: the list exists, it is empty
	}
	st.Screen = s.screenState()
	writeJSON(w, http.StatusOK, st)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func jsonError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
