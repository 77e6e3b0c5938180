package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

type echo struct{ got chan string }

func (e echo) Receive(c actor.Context) {
	if s, ok := c.Message().(string); ok {
		e.got <- s
	}
}

// ServicePID must reach the running incarnation, including after a restart.
func TestServicePIDSurvivesRestart(t *testing.T) {
	got := make(chan string, 4)
	tree, err := New(Options{}, Service{Name: "ble", Policy: DefaultPolicy, New: func(*Handle) actor.Actor { return echo{got} }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tree.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer tree.Shutdown(ctx)
	pid := ServicePID(tree.System(), "ble")
	if !pid.Equal(tree.ActorPID("ble")) {
		t.Fatalf("ServicePID = %v, running actor is %v", pid, tree.ActorPID("ble"))
	}
	tree.System().Root.Send(pid, "one")
	if s := <-got; s != "one" {
		t.Fatal(s)
	}
	before, _ := tree.Process("ble")
	if err := tree.SignalProcess("ble", "KILL"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if p, _ := tree.Process("ble"); p.State == Running && p.Start.After(before.Start) && tree.ActorPID("ble") != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ble not RUNNING again")
		}
	}
	tree.System().Root.Send(pid, "two")
	select {
	case s := <-got:
		if s != "two" {
			t.Fatal(s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("message to ServicePID lost after restart")
	}
}
