#!/bin/sh
# A fake speech-to-text command for the dock tests:
#   fake-stt.sh WORD DIR WAV
# copies WAV (the dock's recording, always the last argument) into DIR,
# appends its path to DIR/paths and prints WORD as the recognized text.
# WORD "SLEEP" sleeps instead, so a test can cancel a running recognition.
word=$1
dir=$2
for wav; do :; done
echo "$wav" >> "$dir/paths"
cp "$wav" "$dir/heard.wav" || exit 1
if [ "$word" = SLEEP ]; then
	exec sleep 30
fi
printf '%s\n' "$word"
