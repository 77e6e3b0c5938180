package supervisor_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/supervisor"
)

// bleActor stands in for a real service: it reports what it is doing in
// its description and reacts to "supervisorctl signal HUP ble".
type bleActor struct{ h *supervisor.Handle }

func (a *bleActor) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started:
		a.h.SetDescription("advertising as Claude_Pi")
	case supervisor.Reload:
		a.h.Logger().Info("reloading configuration")
	case *actor.Stopping:
		// Flush persisted state here: Shutdown waits for it.
	}
}

func Example() {
	policy := supervisor.DefaultPolicy
	policy.MaxRestarts = 3 // e.g. from the configuration file
	tree, err := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler)},
		supervisor.Service{
			Name: "buddy", DependsOn: []string{"ble"}, Policy: policy,
			New: func(h *supervisor.Handle) actor.Actor {
				return actor.ReceiveFunc(func(actor.Context) {})
			},
		},
		supervisor.Service{
			Name: "ble", Policy: policy,
			New: func(h *supervisor.Handle) actor.Actor { return &bleActor{h: h} },
		},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tree.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range tree.Processes() {
		if p.Name == "ble" {
			fmt.Println(p.Name, p.State, p.Description)
		} else {
			fmt.Println(p.Name, p.State)
		}
	}
	if err := tree.Shutdown(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ble RUNNING advertising as Claude_Pi
	// buddy RUNNING
}
