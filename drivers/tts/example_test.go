package tts_test

import (
	"context"
	"fmt"

	"github.com/claude-pi/claude-pi/drivers/tts"
)

func ExampleSplit() {
	for _, s := range tts.Split("Dr. Smith ran the tests. All 12 passed!\nShall I push? はい。了解") {
		fmt.Printf("%q\n", s)
	}
	// Output:
	// "Dr. Smith ran the tests."
	// "All 12 passed!"
	// "Shall I push?"
	// "はい。"
	// "了解"
}

func ExampleResample() {
	speech := tts.FromSamples(22050, make([]int16, 22050)) // one second from espeak-ng
	out, err := tts.Resample(speech, 24000)
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Rate, len(out.Data), out.Duration())
	// Output: 24000 48000 1s
}

func ExampleSynth() {
	var synth tts.Synth = &tts.Fake{}
	for _, sentence := range tts.Split("Hi. Bye.") {
		pcm, err := synth.Synthesize(context.Background(), sentence, 16000)
		if err != nil {
			panic(err)
		}
		fmt.Println(sentence, pcm.Duration())
	}
	// Output:
	// Hi. 60ms
	// Bye. 80ms
}
