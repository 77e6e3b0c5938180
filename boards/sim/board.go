package sim

// Opts configures the simulated hardware. Copy DefaultOpts and edit it.
type Opts struct {
	// Width and Height of the display in pixels. 240×240 matches the
	// Pirate Audio's ST7789 panel, the first HAT the appliance targets.
	Width, Height int
}

// DefaultOpts is the sim board as it runs by default.
var DefaultOpts = Opts{Width: 240, Height: 240}

// Board is the simulated hardware: a display and four buttons. The web
// Server that shows them is separate so that tests can use the hardware
// without a listener.
type Board struct {
	Display *Display
	Buttons *Buttons
}

// New returns a sim board. A nil opts means DefaultOpts.
func New(opts *Opts) (*Board, error) {
	if opts == nil {
		opts = &DefaultOpts
	}
	d, err := NewDisplay(opts.Width, opts.Height)
	if err != nil {
		return nil, err
	}
	return &Board{Display: d, Buttons: NewButtons(ButtonA, ButtonB, ButtonX, ButtonY)}, nil
}

// String names the board, as periph resources do.
func (b *Board) String() string { return "sim" }
