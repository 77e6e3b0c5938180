package appliance

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/drivers/updates"
	"github.com/claude-pi/claude-pi/supervisor"
)

// audioService is the speaker's service. No package owns it: on every
// board today it is an absent.New stand-in (the ui plays the chimes).
const audioService = "audio"

// topology is the appliance's actor tree, its one table: each service in
// start order and the services it depends on. A service depends on every
// service its Started handler sends to, so that one runs first and stops
// after it (TestStartupLosesNoMessage holds this true). Who sends what to
// whom is in actors/README.md.
var topology = []struct {
	name string
	deps []string
}{
	{bleactor.ServiceName, nil},
	{approvals.ServiceName, nil},
	{buddyactor.ServiceName, []string{bleactor.ServiceName, approvals.ServiceName}},
	{lan.ServiceName, []string{approvals.ServiceName}},
	{dock.ServiceName, []string{approvals.ServiceName, buddyactor.ServiceName, lan.ServiceName}},
	{ui.ServiceName, []string{approvals.ServiceName, buddyactor.ServiceName, bleactor.ServiceName,
		dock.ServiceName, lan.ServiceName}},
	{audioService, nil},
}

// ServiceNames are topology's names, for the [services.NAME] keys.
var ServiceNames = func() []string {
	names := make([]string, len(topology))
	for i, t := range topology {
		names[i] = t.name
	}
	return names
}()

// services is topology with each service's actor and policy.
func services(s Settings, hw hardware) []supervisor.Service {
	// The busy marker sits beside the control socket: /run/claude-pi/busy
	// (updates.BusyPath) on the Pi, where the image's and the .deb's quiet
	// check reads it before an upgrade's restart or a reboot.
	busy := updates.NewBusy(filepath.Join(filepath.Dir(s.controlSocket), "busy"))
	mark := func(reason string) func(bool) {
		return func(on bool) {
			if err := busy.Set(reason, on); err != nil {
				slog.Warn("busy marker not written: an update may restart claude-pi mid-"+reason, "err", err)
			}
		}
	}
	hw.dock.Speaking = mark("speaking")
	actors := map[string]func(*supervisor.Handle) actor.Actor{
		bleactor.ServiceName: bleactor.New(hw.link, bleactor.Config{Name: s.ble.Name, Security: hw.security,
			Lines: buddyactor.ServiceName}),
		// The owners of the prompts' sources hear their decisions: the
		// desktop's go back over BLE, the CLI's ("cli:<session>") to the
		// hook waiting on the lan.
		approvals.ServiceName: approvals.New(approvals.WithOwner(buddyactor.Source, buddyactor.ServiceName),
			approvals.WithOwner(lan.SourcePrefix+"*", lan.ServiceName), approvals.WithBusy(mark("prompt"))),
		buddyactor.ServiceName: buddyactor.New(buddyactor.Config{DataDir: s.dataDir, Name: s.ble.Name}),
		lan.ServiceName: lan.New(lan.Options{Listen: s.lan.listen, DataDir: s.dataDir, Device: s.ble.Name,
			PairTimeout: s.lan.pairTimeout, MaxWait: s.lan.maxWait, Speak: dock.ServiceName, Tools: dock.ServiceName, FollowUpWindow: s.voice.followUp}),
		dock.ServiceName: dock.New(hw.dock),
		ui.ServiceName:   hw.ui,
		audioService:     hw.audio,
	}
	out := make([]supervisor.Service, 0, len(topology))
	for _, t := range topology {
		out = append(out, supervisor.Service{Name: t.name, DependsOn: t.deps, Policy: s.policies[t.name], New: actors[t.name]})
	}
	return out
}

// ServicesOf is part of the tree as the appliance runs it: the named
// services, in start order, each with its actor, dependencies and policy
// from s. Every service a named one depends on must be named too. Tests
// of one part (the hook against approvals and lan, say) run it so, and
// cannot drift from the tree `claude-pi run` starts.
func ServicesOf(s Settings, names ...string) ([]supervisor.Service, error) {
	var out []supervisor.Service
	for _, svc := range services(s, hardware{}) {
		if !slices.Contains(names, svc.Name) {
			continue
		}
		for _, d := range svc.DependsOn {
			if !slices.Contains(names, d) {
				return nil, fmt.Errorf("service %s depends on %s: name it too", svc.Name, d)
			}
		}
		out = append(out, svc)
	}
	if len(out) != len(names) {
		return nil, fmt.Errorf("services %v: not all are in the topology (%v)", names, ServiceNames)
	}
	return out, nil
}
