package appliance

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/internal/pisystem"
	"github.com/claude-pi/claude-pi/supervisor"
)

// hatAudio is the audio service on a HAT board. The chimes are the ui's
// (it knows when a prompt arrives), so this service plays nothing itself;
// it checks, at every start and reload, that the board's sound card is
// there, the way doctor does, so that a missing card shows in
// supervisorctl status (BACKOFF, then FATAL) rather than as RUNNING beside
// chimes that cannot play.
func hatAudio(p boards.Profile) func(*supervisor.Handle) actor.Actor {
	return hatAudioAt(p, "/")
}

// hatAudioAt checks the cards under root (a t.TempDir() in tests).
func hatAudioAt(p boards.Profile, root string) func(*supervisor.Handle) actor.Actor {
	stand := absent.New(fmt.Sprintf("chimes play through the ui service on aplay -D %s", audioDevice(p)))
	return func(h *supervisor.Handle) actor.Actor {
		return &soundCardCheck{inner: stand(h), h: h, p: p, root: root}
	}
}

type soundCardCheck struct {
	inner actor.Actor
	h     *supervisor.Handle
	p     boards.Profile
	root  string
}

func (a *soundCardCheck) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started, supervisor.Reload, *supervisor.Reload:
		if found, detail, fix := pisystem.SoundCard(a.root, a.p, pisystem.Detect(a.root)); !found {
			a.h.Fail(fmt.Errorf("%s: chimes cannot play; fix: %s", detail, fix))
			return
		}
	}
	a.inner.Receive(c)
}
