package appliance

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
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
	{dock.ServiceName, []string{approvals.ServiceName, buddyactor.ServiceName}},
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
	actors := map[string]func(*supervisor.Handle) actor.Actor{
		bleactor.ServiceName: bleactor.New(hw.link, bleactor.Config{Name: s.ble.Name, Security: hw.security,
			Lines: buddyactor.ServiceName}),
		// The owners of the prompts' sources hear their decisions: the
		// desktop's go back over BLE, the CLI's ("cli:<session>") to the
		// hook waiting on the lan.
		approvals.ServiceName: approvals.New(approvals.WithOwner(buddyactor.Source, buddyactor.ServiceName),
			approvals.WithOwner(lan.SourcePrefix+"*", lan.ServiceName)),
		buddyactor.ServiceName: buddyactor.New(buddyactor.Config{DataDir: s.dataDir, Name: s.ble.Name}),
		lan.ServiceName: lan.New(lan.Options{Listen: s.lan.listen, DataDir: s.dataDir, Device: s.ble.Name,
			PairTimeout: s.lan.pairTimeout, MaxWait: s.lan.maxWait, Speak: dock.ServiceName}),
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
