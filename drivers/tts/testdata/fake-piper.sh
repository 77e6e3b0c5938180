#!/bin/sh
# Stands in for piper in tests: records its arguments and stdin next to
# itself (FAKE_PIPER_LOG), then prints raw 16-bit PCM: one sample of 0x0100
# per input byte, or fails when the text contains "FAIL".
log="${FAKE_PIPER_LOG:?}"
printf '%s\n' "$@" > "$log.args"
cat > "$log.stdin"
if grep -q FAIL "$log.stdin"; then
	echo "voice exploded" >&2
	exit 3
fi
n=$(wc -c < "$log.stdin")
head -c "$n" /dev/zero | tr '\0' '\1' | sed 's/./\x00&/g' | head -c $((n * 2))
