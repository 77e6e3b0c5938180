package wire_test

import (
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// The host's side of the handshake: send HELLO, validate the HELLO_ACK.
func ExampleCheckHelloAck() {
	hello, _ := wire.AppendFrame(nil, wire.HelloFrame(0, wire.HostHello))
	fmt.Printf("HELLO % x\n", hello[20:28])

	ack := wire.HelloAckFrame(0, wire.HelloPayload{MaxPayload: 4096, Caps: wire.FirmwareCaps &^ wire.CapEvent})
	n, err := wire.CheckHelloAck(ack, wire.HostCaps, wire.HostRequiredCaps)
	if err != nil {
		fmt.Println(err)
		return
	}
	status, _ := n.StatusToSend(wire.StatusListening)
	fmt.Println("max", n.MaxPayload, "event", n.Event, "listening sent as", status)
	fmt.Println("android policy allows:", wire.PolicyAudioOnly.ConnectionAllowed(n.Peer))
	fmt.Println("codex policy allows:", wire.PolicyEventRequired.ConnectionAllowed(n.Peer))
	// Output:
	// HELLO 00 10 00 00 27 0f 00 00
	// max 4096 event false listening sent as LISTENING
	// android policy allows: true
	// codex policy allows: false
}

// A read that ends mid-frame, preceded by line noise, then the rest.
func ExampleParser() {
	frame, _ := wire.AppendFrame(nil, wire.SpeakerCreditFrame(2, 3, 24000, 8192))
	p := wire.Parser{OnSkip: func(s wire.Skip) {
		fmt.Printf("skipped %d bytes at %d: %s\n", s.Len, s.Offset, s.Reason)
	}}
	reads := [][]byte{append([]byte("noise"), frame[:10]...), frame[10:]}
	for _, r := range reads {
		p.Feed(r)
		for f, ok := p.Next(); ok; f, ok = p.Next() {
			c, err := wire.DecodeControl(f)
			fmt.Println(f.Type, c.Code, "stream", f.StreamID, "credit", c.Credit, err)
		}
	}
	// Output:
	// skipped 5 bytes at 0: no magic
	// CONTROL SPEAKER_CREDIT stream 2 credit 8192 <nil>
}

func ExampleAppendFrame() {
	b, err := wire.AppendFrame(nil, wire.Frame{
		Type: wire.TypeSpeakerPCM, Flags: 32, StreamID: 1, Sequence: 42, SampleRate: 24000,
		Payload: []byte{1, 2, 3, 4},
	})
	fmt.Printf("%x %v\n", b, err)
	// Output:
	// 43530202200001002a000000c05d00000400000001020304a2b25483 <nil>
}
