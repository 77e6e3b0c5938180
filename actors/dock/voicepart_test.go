package dock

import (
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"testing"
)

// voiceFiles hold the voice part (voicepart.go): speech, voice, STT,
// follow-ups and the conversation.
var voiceFiles = []string{"speech.go", "voice.go", "followup.go", "followupcard.go", "conversation.go", "voicepart.go"}

// TestVoiceIsBelowTheHost: the voice part's files give the host no
// methods, and nothing in them names the host but voicepart.go's sink
// side, so voice logic cannot creep back onto the host and reach past
// voiceSink (the port, HELLO, the wire, the mirror and trust stay the
// host's).
func TestVoiceIsBelowTheHost(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range voiceFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			fd, ok := n.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				return true
			}
			recv := fd.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && id.Name == "host" && name != "voicepart.go" {
				t.Errorf("%s: %s is a method of host: the voice part's logic belongs on voicePart, reaching the host through voiceSink", fset.Position(fd.Pos()), fd.Name.Name)
			}
			return false
		})
	}
}

// The host's sink side answers from the host's own state.
func TestVoiceSinkIsTheHost(t *testing.T) {
	h := newHost(hostConfig{token: "t", log: slog.New(slog.DiscardHandler)})
	if h.voicePart.out != voiceSink(h) || h.voicePart.cfg != &h.cfg {
		t.Fatal("newHost did not wire the voice part to itself")
	}
	if h.ready() || h.oldestPrompt() != nil || h.promptByReq("x") != nil {
		t.Errorf("a detached host: ready %v, oldest %v", h.ready(), h.oldestPrompt())
	}
	h.mediaStarted()
	h.effect(cancelSynthOut{Utt: 7})
	if !h.mediaSince || len(h.effects) != 1 || h.effects[0] != (cancelSynthOut{Utt: 7}) {
		t.Errorf("mediaSince %v, effects %v", h.mediaSince, h.effects)
	}
}
