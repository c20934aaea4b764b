#!/bin/sh
# guard: one request a line on stdin ({"id":N,"event":"on-shell","phase":...}),
# one answer a line on stdout. It decides on the exact argv and -c script mur
# hands it; anything it does not refuse is a clean none.
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
	reason=
	case "$line" in
	*'"phase":"decide"'*)
		case "$line" in
		*'rm -rf'* | *'mkfs'* | *'dd if='* | *'git push'*) reason="destructive command" ;;
		*curl* | *wget* | *'nc '* | *ssh* | *scp*) reason="network tools are not allowed here" ;;
		esac
		;;
	esac
	if [ -n "$reason" ]; then
		printf '{"id":%s,"answer":"deny","reason":"%s"}\n' "$id" "$reason"
	else
		printf '{"id":%s,"answer":"none"}\n' "$id"
	fi
done
