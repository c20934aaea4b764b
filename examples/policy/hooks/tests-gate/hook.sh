#!/bin/sh
# tests-gate: at on-task-end's decision it runs the member's check in the
# workdir (its filesystem.scope is ".") and answers reopen-task with the
# failure, or none. mur bounds the reopens (lifecycle.max_task_reopens).
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
	case "$line" in
	*'"phase":"decide"'*)
		if grep -qx 'hello world' greeting.txt 2>/dev/null; then
			printf '{"id":%s,"answer":"none"}\n' "$id"
		else
			printf '{"id":%s,"answer":"reopen-task","reason":"check failed: greeting.txt must hold the line hello world"}\n' "$id"
		fi
		;;
	*) printf '{"id":%s,"answer":"none"}\n' "$id" ;;
	esac
done
