package stats_test

import (
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/actors/buddy/stats"
)

func ExampleTracker() {
	boot := time.Date(2026, 4, 16, 10, 0, 0, 0, time.UTC)
	saved, err := stats.Decode([]byte(`{"v":1,"appr":2,"deny":0,"nap":0,"tokens":49000,"vel":[6,10]}`))
	if err != nil {
		panic(err)
	}
	tr, err := stats.NewTracker(saved, boot)
	if err != nil {
		panic(err)
	}
	tr.Tokens(184_502)              // first heartbeat: baseline only
	fmt.Println(tr.Tokens(185_502)) // +1000 tokens reaches 50,000
	tr.Tokens(300)                  // the desktop restarted: baseline again
	arrived := boot.Add(time.Minute)
	_, heart := tr.Approve("req_7c1e", arrived, arrived.Add(3*time.Second))
	fmt.Println(heart, tr.SaveDue(arrived.Add(3*time.Second)))
	fmt.Printf("%+v\n", tr.Report())
	// Output:
	// true
	// true true
	// {Appr:3 Deny:0 Vel:6 Nap:0 Lvl:1}
}

func ExamplePersona() {
	now := time.Now()
	scene := stats.Scene{Connected: true, Running: 1, Waiting: 1}
	fmt.Println(stats.Persona(scene, stats.DefaultRules, now))
	scene.OneShot, scene.OneShotUntil = stats.Heart, now.Add(stats.OneShotFor(stats.Heart))
	fmt.Println(stats.Persona(scene, stats.DefaultRules, now))
	// Output:
	// attention
	// heart
}
