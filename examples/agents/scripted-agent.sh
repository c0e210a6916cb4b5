#!/bin/sh
# A stand-in for an LLM coding agent, so the example team runs anywhere:
# it reads its first prompt and warden's CHECKPOINT REQUEST lines from its
# terminal, does one step of "work" per request (a line in work/TASK.txt),
# and answers with a CHECKPOINT block as DESIGN §4 asks. After STEPS steps it
# reports the task complete. With CRASH_AFTER=N it crashes after its Nth
# answer, unless its prompt says it is resuming: warden restarts it and the
# new session carries on from the checkpoint.
steps=${STEPS:-3}
done_steps=0
answers=0
resumed=no
task=""
mkdir -p work
while IFS= read -r line; do
	case "$line" in
	"Your task: "*)
		task=${line#Your task: }
		task=${task%% *}
		task=${task%.}
		echo "Working on $task"
		;;
	"You are resuming"*)
		resumed=yes
		echo "Resuming: $line"
		;;
	"Already completed"*) ;;
	"  * step "*)
		# A completed step listed in the resume text: do not redo it.
		;;
	"CHECKPOINT REQUEST: "*)
		id=${line#CHECKPOINT REQUEST: }
		id=${id%% *} # the task id; a reminder of the format follows it
		if [ -f "work/$id.txt" ]; then done_steps=$(wc -l <"work/$id.txt"); fi
		if [ "$done_steps" -lt "$steps" ]; then
			done_steps=$((done_steps + 1))
			echo "step $done_steps" >>"work/$id.txt"
		fi
		answers=$((answers + 1))
		status=implementing
		[ "$done_steps" -ge "$steps" ] && status=complete
		printf 'CHECKPOINT: %s\nStatus: %s\nCompleted:\n' "$id" "$status"
		i=1
		while [ "$i" -le "$done_steps" ]; do printf -- '- step %d\n' "$i"; i=$((i + 1)); done
		printf 'Remaining:\n'
		[ "$done_steps" -ge "$steps" ] && printf -- '- nothing\n'
		while [ "$i" -le "$steps" ]; do printf -- '- step %d\n' "$i"; i=$((i + 1)); done
		printf 'Files Modified: work/%s.txt\nEstimated Progress: %d%%\n' "$id" $((done_steps * 100 / steps))
		printf 'Resume: continue with step %d of %s\n\n' $((done_steps + 1)) "$id"
		if [ -n "$CRASH_AFTER" ] && [ "$answers" -eq "$CRASH_AFTER" ] && [ "$resumed" = no ]; then
			echo "crashing on purpose"
			exit 3
		fi
		;;
	esac
done
