// Package audio plays short sounds on the Pi's own speaker: the chimes for
// a prompt's arrival, an approval and a denial, and (through drivers/tts)
// spoken prompts.
//
// Backend choice: playback pipes raw PCM into ALSA's aplay
// (`aplay -q -t raw -f S16_LE -r RATE -c 1 -D DEVICE`) instead of talking
// to /dev/snd/pcmC*D*p through a pure-Go hw: backend. The sounds are a
// second or two, so aplay's process start (about 10 ms on a Pi Zero 2) is
// irrelevant; in exchange ALSA's plug layer converts our mono 16-bit PCM to
// whatever the card accepts (the Pirate Audio's PCM5102A is stereo-only at
// fixed rates), honours the user's asound.conf, and recovers from underruns.
// A hw: backend would have to reimplement the hw_params negotiation,
// channel and rate conversion and xrun recovery, for no gain. aplay is in
// Debian's alsa-utils, which the image installs.
//
// Everything is 16-bit signed little-endian mono PCM (tts.PCM). Player is
// the interface the audio actor uses; Aplay, WAVFile and Fake implement
// it. The amplifier-enable GPIO (Pirate Audio: GPIO25) is driven by Amp.
package audio
